import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { VueWrapper } from '@vue/test-utils'
import ChatView from './ChatView.vue'
import ReplyFigures from './ReplyFigures.vue'
import { mountInBody, resetDom, setupEnv, settle, type TestEnv } from '../../test-utils'
import { connectEvents } from '../../stores/events'
import { useConversationsStore } from '../../stores/conversations'
import { useSettingsStore } from '../../stores/settings'

let env: TestEnv
beforeEach(() => {
  env = setupEnv()
})
afterEach(resetDom)

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4])

async function open(model = ''): Promise<VueWrapper> {
  env.fake.models = [
    { name: 'qwen3', supports_tools: true },
    { name: 'llava', supports_tools: false, supports_vision: true },
  ]
  env.fake.addConversation({ id: 'c1', title: 'Files', ...(model ? { model } : {}) })
  connectEvents()
  await useSettingsStore().init()
  const conversations = useConversationsStore()
  await conversations.load()
  await conversations.select('c1')
  return mountInBody(ChatView, env)
}

async function pick(w: VueWrapper, files: File[]): Promise<void> {
  const input = w.find('[data-testid="attach-input"]').element as HTMLInputElement
  Object.defineProperty(input, 'files', { value: files, configurable: true })
  await w.find('[data-testid="attach-input"]').trigger('change')
  await settle()
}

describe('Composer attachments', () => {
  it('picks files as removable chips and sends them with the message', async () => {
    const w = await open()
    await pick(w, [new File(['a,b\n'], 'data.csv', { type: 'text/csv' }), new File(['x'], 'drop-me.txt')])
    const chips = w.findAll('[data-testid="pending-attachment"]')
    expect(chips.map((c) => c.text())).toEqual([expect.stringContaining('data.csv'), expect.stringContaining('drop-me.txt')])
    expect(chips[0]!.text()).toContain('4 bytes')
    await w.find('[aria-label="Remove drop-me.txt"]').trigger('click')
    await w.find('textarea').setValue('summarise')
    await w.find('[data-testid="composer"]').trigger('submit')
    await settle()
    const [[req]] = env.fake.callsOf('send') as [[{ id: string; content: string; attachments: { name: string; data: string }[] }]]
    expect(req.id).toBe('c1')
    expect(req.content).toBe('summarise')
    expect(req.attachments.map((a) => [a.name, atob(a.data)])).toEqual([['data.csv', 'a,b\n']])
    expect(w.findAll('[data-testid="pending-attachment"]')).toHaveLength(0)
    // The sent message shows its file.
    expect(w.find('[data-testid="user-message"] [data-testid="attachment-file"]').text()).toContain('data.csv')
  })

  it('sends files alone, pasted images included', async () => {
    const w = await open('llava')
    const paste = new Event('paste', { bubbles: true, cancelable: true }) as ClipboardEvent
    Object.defineProperty(paste, 'clipboardData', { value: { files: [new File([PNG], '', { type: 'image/png' })] } })
    w.find('textarea').element.dispatchEvent(paste)
    await settle()
    expect(paste.defaultPrevented).toBe(true)
    expect(w.find('[data-testid="pending-attachment"] img').exists()).toBe(true)
    expect(w.find('[data-testid="pending-attachment"]').text()).toContain('pasted-1.png')
    await w.find('[data-testid="composer"]').trigger('submit')
    await settle()
    expect(env.fake.callsOf('send')).toHaveLength(1)
    expect(w.find('[data-testid="user-message"] [data-testid="attachment-image"]').exists()).toBe(true)
  })

  it('says why a file cannot be attached: not text, or an image for a model without vision', async () => {
    const w = await open()
    await pick(w, [new File([new Uint8Array([0, 1, 2])], 'blob.bin'), new File([PNG], 'shot.png', { type: 'image/png' })])
    const err = w.find('[data-testid="attachment-error"]').text()
    expect(err).toContain('blob.bin is neither a text file nor an image')
    expect(err).toContain('The model qwen3 cannot read images')
    expect(w.findAll('[data-testid="pending-attachment"]')).toHaveLength(0)
  })

  it('shows the server refusing a file as the send error, keeping the message', async () => {
    const w = await open('llava')
    await pick(w, [new File(['x'], 'note.txt')])
    env.fake.failNext('send', 'note.txt is too large', 413)
    await w.find('[data-testid="composer"]').trigger('submit')
    await settle()
    expect(w.find('[data-testid="error-banner"]').text()).toContain('note.txt is too large')
    expect(w.find('[data-testid="user-message"]').text()).toContain('note.txt')
  })

  it('Up in an empty composer edits the last message; sending adds a sibling', async () => {
    const w = await open()
    const first = env.fake.addMessage('c1', { role: 'user', content: 'first question' })
    env.fake.addMessage('c1', { role: 'assistant', content: 'an answer' })
    await useConversationsStore().reload('c1')
    await settle()
    const box = w.find('textarea')
    await box.trigger('keydown', { key: 'ArrowUp' })
    await settle()
    // The last message opens for editing in place (SPEC §7); the composer stays empty.
    expect((box.element as HTMLTextAreaElement).value).toBe('')
    const editor = w.find('[data-testid="message-editor"] textarea')
    expect((editor.element as HTMLTextAreaElement).value).toBe('first question')
    await editor.setValue('better question')
    await editor.trigger('keydown', { key: 'Enter' })
    await settle()
    expect(env.fake.callsOf('send')).toEqual([[{ id: 'c1', content: 'better question', parent_id: first.parent_id ?? '' }]])
    expect(w.findAll('[data-testid="user-message"]').map((m) => m.text())).toEqual(['better question'])
  })
})

describe('ReplyFigures', () => {
  it('shows time to first token, speed, tokens in → out and context use', async () => {
    const w = await mountInBody(
      { components: { ReplyFigures }, template: '<ReplyFigures :stats="s" />', data: () => ({ s: { time_to_first_token_ms: 420, duration_ms: 3000, tokens_per_second: 31.25, prompt_tokens: 2048, completion_tokens: 96, context_length: 8192 } }) },
      env,
    )
    expect(w.find('[data-testid="reply-figures"]').text()).toBe('420 ms to first token · 31.3 tok/s · 2,048 → 96 tokens · 25% of 8,192 context')
  })
  it('marks estimated counts and leaves out what is unknown', async () => {
    const w = await mountInBody(
      { components: { ReplyFigures }, template: '<ReplyFigures :stats="s" />', data: () => ({ s: { time_to_first_token_ms: 1500, duration_ms: 0, tokens_per_second: 0, prompt_tokens: 10, completion_tokens: 5, estimated: true } }) },
      env,
    )
    expect(w.find('[data-testid="reply-figures"]').text()).toBe('1.5 sec to first token · ≈10 → ≈5 tokens')
  })
})
