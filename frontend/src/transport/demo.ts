// `?demo`: the in-memory fake with a scripted assistant, so the UI can be
// tried (and screenshotted) without a Go backend or a model.
import type { Card, Message, Question, RespondRequest } from '../types'
import { ASK_TOOL } from '../types'
import { FakeTransport, fakeId } from './fake'

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms))

const TRIP_QUESTIONS: Question[] = [
  {
    question: 'How long will you stay in Lisbon?',
    header: 'Length',
    options: [
      { label: 'A weekend', description: 'Two nights, the highlights only' },
      { label: 'Four days', description: 'Time for Sintra or Cascais as a day trip' },
      { label: 'A week or more', description: 'Slow travel, a few neighbourhoods in depth' },
    ],
    multiSelect: false,
    allowCustom: true,
    placeholder: 'e.g. 10 days in May',
  },
  {
    question: 'What do you enjoy most when travelling?',
    header: 'Interests',
    options: [
      { label: 'Food and wine' },
      { label: 'Museums and history' },
      { label: 'Viewpoints and walks' },
      { label: 'Nightlife' },
    ],
    multiSelect: true,
    allowCustom: true,
  },
]

class DemoTransport extends FakeTransport {
  async respond(id: string, req: RespondRequest): Promise<Card> {
    const card = await super.respond(id, req)
    if (req.action !== 'cancel') void this.afterAnswer(id, card)
    return card
  }

  private async stream(conversationId: string, text: string): Promise<void> {
    this.setState(conversationId, 'streaming')
    const id = fakeId('msg')
    for (const chunk of text.match(/[\s\S]{1,6}/g) ?? []) {
      await wait(25)
      this.emit('message:delta', { conversationId, messageId: id, delta: chunk, runId: '' })
    }
  }

  private finish(conversationId: string, partial: Omit<Message, 'id' | 'created_at' | 'conversationId' | 'parent_id' | 'siblings' | 'sibling_index'>): Message {
    const m = this.addMessage(conversationId, partial)
    this.emit('message:done', { conversationId, message: { ...m, conversationId } })
    return m
  }

  async script(conversationId: string, content: string): Promise<void> {
    await wait(500)
    const intro = `Happy to help with “${content.slice(0, 60)}”. Before I plan anything, two quick questions.`
    await this.stream(conversationId, intro)
    const callId = fakeId('call')
    this.finish(conversationId, {
      role: 'assistant',
      content: intro,
      tool_calls: [{ id: callId, name: ASK_TOOL, arguments: JSON.stringify({ questions: TRIP_QUESTIONS }) }],
    })
    this.setState(conversationId, 'tool_executing')
    await wait(200)
    this.addCard(
      {
        conversationId,
        questions: TRIP_QUESTIONS,
        tool_call_id: callId,
        expires_at: new Date(Date.now() + 5 * 60_000).toISOString(),
      },
      true,
    )
  }

  private async afterAnswer(conversationId: string, card: Card): Promise<void> {
    this.finish(conversationId, {
      role: 'tool',
      tool_name: ASK_TOOL,
      tool_call_id: card.tool_call_id,
      content: card.status === 'declined' ? 'The user declined to answer; proceed without the answers.' : JSON.stringify({ answers: card.answers }),
    })
    await wait(400)
    const reply = [
      'Here is a first sketch:',
      '',
      '1. **Day 1** — Alfama and the *Miradouro de Santa Luzia* at sunset.',
      '2. **Day 2** — Belém: the monastery, then pastéis de nata.',
      '3. **Day 3** — A day trip to Sintra.',
      '',
      'A tiny helper to split the budget:',
      '',
      '```ts',
      'export function perDay(total: number, days: number): number {',
      '  return Math.round((total / days) * 100) / 100',
      '}',
      '```',
    ].join('\n')
    await this.stream(conversationId, reply)
    this.finish(conversationId, { role: 'assistant', content: reply })
    this.setState(conversationId, 'idle')
  }
}

export function createDemoTransport(): FakeTransport {
  const t = new DemoTransport()
  t.latency = 40
  const hour = 3600_000
  const now = Date.now()
  const iso = (ms: number) => new Date(ms).toISOString()

  const a = t.addConversation({ title: 'Weekly report outline', pinned: true, created_at: iso(now - 50 * hour), updated_at: iso(now - 48 * hour) })
  t.addMessage(a.id, { role: 'user', content: 'Give me a short outline for a weekly status report.', created_at: iso(now - 48 * hour) })
  t.addMessage(a.id, {
    role: 'assistant',
    created_at: iso(now - 48 * hour),
    content:
      '## Weekly status\n\n- **Done** — what shipped\n- **Next** — what is planned\n- **Risks** — anything blocked\n\n> Keep it under one page.\n\n```python\ndef summary(items):\n    return "\\n".join(f"- {i}" for i in items)\n```',
  })

  const b = t.addConversation({ title: 'Name for the new cat', created_at: iso(now - 3 * hour), updated_at: iso(now - 2 * hour) })
  t.addMessage(b.id, { role: 'user', content: 'Help me pick a name for our new cat.', created_at: iso(now - 2 * hour) })
  const callId = fakeId('call')
  const q: Question[] = [
    {
      question: 'Which style of name do you like?',
      header: 'Style',
      options: [
        { label: 'Classic', description: 'Felix, Luna, Oscar' },
        { label: 'Food', description: 'Mochi, Pepper, Olive' },
        { label: 'Mythology', description: 'Athena, Loki, Freya' },
      ],
      multiSelect: false,
      allowCustom: true,
    },
  ]
  t.addMessage(b.id, {
    role: 'assistant',
    content: 'Fun! One question first.',
    created_at: iso(now - 2 * hour),
    tool_calls: [{ id: callId, name: ASK_TOOL, arguments: JSON.stringify({ questions: q }) }],
  })
  t.addCard({ conversationId: b.id, questions: q, tool_call_id: callId, created_at: iso(now - 2 * hour), expires_at: null })

  t.addConversation({ title: 'Plan a trip', created_at: iso(now - hour), updated_at: iso(now - hour) })
  t.onSend = (cid, content) => void (t as DemoTransport).script(cid, content)
  t.onRetry = (cid, content) => void (t as DemoTransport).script(cid, content)
  t.profiles.set('Concise', {
    name: 'Concise',
    system_prompt: 'Answer in at most three sentences. Ask before guessing when a request is ambiguous.',
    model: '',
    tools: [ASK_TOOL, 'calculator'],
  })
  t.settings = { ...t.settings, demo_mode: true, onboarded: true }
  t.info = { version: 'demo', dataDir: '(in memory; nothing is saved)' }
  t.pullHandler = async (_name, progress) => {
    progress({ status: 'pulling manifest' })
    const total = 2_000_000_000
    for (let done = 0; done <= total; done += total / 20) {
      await wait(120)
      progress({ status: 'downloading', total, completed: done })
    }
    progress({ status: 'success' })
  }
  return t
}
