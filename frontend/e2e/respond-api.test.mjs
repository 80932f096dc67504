// The respond endpoint of `parley serve` (SPEC §1 answers, §4 statuses),
// against the real binary with the demo model: a spoofed label is refused
// with 422 and changes nothing; a second answer gets 409 and the first one
// stands; a card of another conversation is 404.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { enableDemo } from './serve.mjs'
import { waitUntil, sleep, transcript, startTempServe } from './util.mjs'

const TONE = 'What tone should the answer have?'
const INCLUDE = 'What should it include?'
const good = { [TONE]: { selected: ['Formal'] }, [INCLUDE]: { selected: ['Summary', 'Examples'] } }

async function withServer(fn) {
  const server = await startTempServe()
  try {
    await enableDemo(server)
    await fn(server)
  } finally {
    await server.stop()
  }
}

// askedConversation creates a conversation whose demo run waits on a card.
async function askedConversation(server, content = 'Write a note') {
  const id = (await server.api('POST', '/api/v1/conversations', {})).body.id
  const sent = await server.api('POST', `/api/v1/conversations/${id}/messages`, { content })
  assert.equal(sent.status, 202, JSON.stringify(sent.body))
  const pending = await waitUntil(async () => {
    const p = (await server.api('GET', `/api/v1/conversations/${id}/pending-question`)).body
    return p.has_pending_question ? p : null
  }, { what: `a pending card in ${id}` })
  return { id, card: pending.question_id }
}

async function cardState(server, id) {
  const conv = (await server.api('GET', `/api/v1/conversations/${id}`)).body
  const cards = (await server.api('GET', `/api/v1/conversations/${id}/questions`)).body
  return { conv, cards }
}

function respond(server, id, body) {
  return server.api('POST', `/api/v1/conversations/${id}/respond`, body)
}

test('a spoofed label is refused with 422 naming it, and the card stays pending', async () => {
  await withServer(async (server) => {
    const { id, card } = await askedConversation(server)
    const attempts = [
      { [TONE]: { selected: ['Sarcastic'] }, [INCLUDE]: { selected: ['Summary'] } },
      { [TONE]: { selected: ['Formal'] }, [INCLUDE]: { selected: ['Summary', 'Secrets'] } },
      { [TONE]: { selected: ['Formal', 'Friendly'] }, [INCLUDE]: { selected: ['Summary'] } }, // single-select, two labels
      { [TONE]: { selected: [' Formal '] }, [INCLUDE]: { selected: ['summary'] } }, // labels are exact
    ]
    for (const answers of attempts) {
      const res = await respond(server, id, { question_id: card, action: 'submit', answers })
      assert.equal(res.status, 422, `${JSON.stringify(answers)} -> ${res.status} ${JSON.stringify(res.body)}`)
      assert.equal(typeof res.body.error, 'string')
    }
    const spoof = await respond(server, id, { question_id: card, action: 'submit', answers: attempts[0] })
    assert.match(spoof.body.error, /Sarcastic/, 'the error names the bad label')

    const { conv, cards } = await cardState(server, id)
    assert.equal(cards.length, 1)
    assert.equal(cards[0].status, 'pending', JSON.stringify(cards[0]))
    assert.equal(cards[0].answers ?? null, null)
    assert.equal(conv.state, 'awaiting_user_response')
    assert.equal(conv.pending_question?.question_id, card)
    assert.equal(conv.messages.filter((m) => m.role === 'tool').length, 0, 'nothing reached the model:\n' + transcript(conv))
    const inbox = (await server.api('GET', '/api/v1/questions?status=pending')).body
    assert.deepEqual(inbox.map((c) => c.question_id), [card])

    // The same card still takes a valid answer.
    const ok = await respond(server, id, { question_id: card, action: 'submit', answers: good })
    assert.equal(ok.status, 200, JSON.stringify(ok.body))
    assert.deepEqual(ok.body.answers, { [TONE]: 'Formal', [INCLUDE]: 'Summary, Examples' })
  })
})

test('answering twice gets 409 and the first answer stands; of two racing answers exactly one wins', async () => {
  await withServer(async (server) => {
    const { id, card } = await askedConversation(server)
    const first = await respond(server, id, { question_id: card, action: 'submit', answers: good })
    assert.equal(first.status, 200, JSON.stringify(first.body))
    for (const body of [
      { question_id: card, action: 'submit', answers: { [TONE]: { selected: ['Playful'] }, [INCLUDE]: { selected: ['Examples'] } } },
      { question_id: card, action: 'decline' },
      { question_id: card, action: 'cancel' },
    ]) {
      const again = await respond(server, id, body)
      assert.equal(again.status, 409, `${body.action} after answering -> ${again.status} ${JSON.stringify(again.body)}`)
      assert.equal(typeof again.body.error, 'string')
    }
    await waitUntil(async () => (await cardState(server, id)).conv.state === 'idle', { what: 'the run to finish' })
    const { conv, cards } = await cardState(server, id)
    assert.equal(cards[0].status, 'answered')
    assert.deepEqual(cards[0].answers, { [TONE]: 'Formal', [INCLUDE]: 'Summary, Examples' })
    const tools = conv.messages.filter((m) => m.role === 'tool')
    assert.equal(tools.length, 1, 'one tool result:\n' + transcript(conv))
    assert.equal(tools[0].content, '{"answers":{"What should it include?":"Summary, Examples","What tone should the answer have?":"Formal"}}')

    // Racing: two different answers at once.
    const second = await askedConversation(server, 'Another note')
    const bodies = ['Friendly', 'Playful'].map((tone) => ({
      question_id: second.card, action: 'submit', answers: { [TONE]: { selected: [tone] }, [INCLUDE]: { selected: ['Examples'] } },
    }))
    const results = await Promise.all(bodies.map((b) => respond(server, second.id, b)))
    const statuses = results.map((r) => r.status).sort()
    assert.deepEqual(statuses, [200, 409], JSON.stringify(results))
    const winner = results.find((r) => r.status === 200).body.answers[TONE]
    await sleep(300)
    const after = await cardState(server, second.id)
    assert.equal(after.cards[0].answers[TONE], winner, 'the stored answer is the one that got 200')
    assert.equal(after.conv.messages.filter((m) => m.role === 'tool').length, 1, transcript(after.conv))
  })
})

test("a card of another conversation is 404 and changes nothing; so is an unknown card", async () => {
  await withServer(async (server) => {
    const a = await askedConversation(server, 'First note')
    const b = await askedConversation(server, 'Second note')
    const empty = (await server.api('POST', '/api/v1/conversations', {})).body.id

    for (const [conv, label] of [[b.id, 'a conversation with its own card'], [empty, 'a conversation without cards']]) {
      const res = await respond(server, conv, { question_id: a.card, action: 'submit', answers: good })
      assert.equal(res.status, 404, `${label}: ${res.status} ${JSON.stringify(res.body)}`)
      assert.equal(typeof res.body.error, 'string')
    }
    const cancel = await respond(server, b.id, { question_id: a.card, action: 'cancel' })
    assert.equal(cancel.status, 404, JSON.stringify(cancel.body))
    const unknown = await respond(server, a.id, { question_id: '6f1c7c1e-3b0a-4d8e-9c57-0f3b1d2a4e5f', action: 'submit', answers: good })
    assert.equal(unknown.status, 404, JSON.stringify(unknown.body))
    const noConv = await respond(server, '00000000-0000-4000-8000-000000000000', { question_id: a.card, action: 'submit', answers: good })
    assert.equal(noConv.status, 404, JSON.stringify(noConv.body))

    for (const x of [a, b]) {
      const { conv, cards } = await cardState(server, x.id)
      assert.equal(cards.length, 1)
      assert.equal(cards[0].status, 'pending', `${x.id}: ${JSON.stringify(cards[0])}`)
      assert.equal(conv.state, 'awaiting_user_response')
      assert.equal(conv.messages.filter((m) => m.role === 'tool').length, 0, transcript(conv))
    }
    const pending = (await server.api('GET', '/api/v1/questions?status=pending')).body.map((c) => c.question_id).sort()
    assert.deepEqual(pending, [a.card, b.card].sort())

    // Answered through its own conversation it works.
    const own = await respond(server, a.id, { question_id: a.card, action: 'submit', answers: good })
    assert.equal(own.status, 200, JSON.stringify(own.body))
  })
})
