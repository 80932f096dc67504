import { afterEach, describe, expect, it } from 'vitest'
import { BODY_MAX, createAttention, nativeNotifier, notificationBody, notificationTitle, noticeTitle, type Attention } from './attention'
import { fakePage, makeCard, q, type FakePage } from '../test-utils'
import { setLanguage } from '../i18n'
import type { Card } from '../types'

let attention: Attention | null = null
afterEach(() => {
  attention?.dispose()
  attention = null
})

interface Setup {
  page: FakePage
  attention: Attention
  opened: Card[]
  pending: { n: number }
}

function setup(opts: Parameters<typeof fakePage>[0] = {}): Setup {
  const page = fakePage(opts)
  const opened: Card[] = []
  const pending = { n: 0 }
  attention = createAttention({
    env: page,
    pendingCount: () => pending.n,
    openCard: (card) => opened.push(card),
  })
  return { page, attention, opened, pending }
}

const card = (id: string, question = `Question ${id}?`, conversationId = 'c1') =>
  makeCard({ question_id: id, conversationId, questions: [q({ question }), q({ question: 'A second one?' })] })

/** Lets permission prompts (promises) settle. */
const tick = () => new Promise((r) => setTimeout(r, 0))

describe('attention: notifications', () => {
  it('notifies only while the window is not focused, with the first question as the body', () => {
    const s = setup()
    s.attention.cardArrived(card('a', 'Which city?'))
    expect(s.page.Notification.created).toHaveLength(0)

    s.page.document.blur()
    s.attention.cardArrived(card('b', 'Which hotel?'))
    expect(s.page.Notification.created).toHaveLength(1)
    const n = s.page.Notification.created[0]!
    expect(n.title).toBe(notificationTitle())
    expect(n.title).toBe('Parley has a question')
    expect(n.options?.body).toBe('Which hotel?')
  })

  it("an agent's card (SPEC §10) is titled with the agent's name; the assistant's keeps Parley's", async () => {
    const s = setup()
    s.page.document.blur()
    const agentCard = (id: string, agent: string, n = 1) =>
      makeCard({ question_id: id, source: { type: 'agent', agent }, questions: [q({ question: 'Deploy?' }), q({ question: 'Tag it?' })].slice(0, n) })
    s.attention.cardArrived(agentCard('a1', 'parley ask'))
    s.attention.cardArrived(agentCard('a2', 'claude-code', 2))
    s.attention.cardArrived(card('m1'))
    s.attention.cardArrived(agentCard('a3', '<b>bot</b> & co'))
    expect(s.page.Notification.created.map((n) => n.title)).toEqual([
      'parley ask has a question',
      'claude-code has 2 questions',
      'Parley has a question',
      '<b>bot</b> & co has a question', // plain text, as given
    ])
    expect(notificationTitle(agentCard('x', 'claude-code'))).toBe('claude-code has a question')
    // An agent's approval (request_permission) has no questions: still one.
    expect(notificationTitle(makeCard({ kind: 'approval', questions: [], source: { type: 'agent', agent: 'claude-code' } }))).toBe('claude-code has a question')
    await setLanguage('de')
    try {
      expect(notificationTitle(agentCard('x', 'claude-code'))).toBe('claude-code hat eine Frage')
      expect(notificationTitle(agentCard('x', 'claude-code', 2))).toBe('claude-code hat 2 Fragen')
      expect(notificationTitle(card('m2'))).toBe('Parley hat eine Frage')
    } finally {
      await setLanguage('en')
    }
  })

  it('counts a hidden tab as not focused', () => {
    const s = setup()
    s.page.document.visibilityState = 'hidden'
    s.attention.cardArrived(card('a'))
    expect(s.page.Notification.created).toHaveLength(1)
  })

  it('notifies once per card, however often it is announced', () => {
    const s = setup()
    s.page.document.blur()
    s.attention.cardArrived(card('a'))
    s.attention.cardArrived(card('a'))
    s.attention.cardArrived({ ...card('a'), status: 'pending' })
    expect(s.page.Notification.created).toHaveLength(1)
    // Even after its notification was closed and the user left again.
    s.page.window.userFocus()
    s.page.document.blur()
    s.attention.cardArrived(card('a'))
    expect(s.page.Notification.created).toHaveLength(1)
    s.attention.cardArrived(card('b'))
    expect(s.page.Notification.created).toHaveLength(2)
  })

  it('does not notify for a card that is no longer pending', () => {
    const s = setup()
    s.page.document.blur()
    s.attention.cardArrived({ ...card('a'), status: 'answered' })
    expect(s.page.Notification.created).toHaveLength(0)
  })

  it('asks for permission on the first card only, then shows the notification when granted', async () => {
    const s = setup({ permission: 'default', answer: 'granted' })
    expect(s.page.Notification.requests).toBe(0) // lazily: nothing before a card
    s.page.document.blur()
    s.attention.cardArrived(card('a'))
    expect(s.page.Notification.requests).toBe(1)
    await tick()
    expect(s.page.Notification.created).toHaveLength(1)
    s.attention.cardArrived(card('b'))
    await tick()
    expect(s.page.Notification.requests).toBe(1)
    expect(s.page.Notification.created).toHaveLength(2)
  })

  it('asks once even when the user dismisses the prompt', async () => {
    const s = setup({ permission: 'default', answer: 'default' })
    s.page.document.blur()
    s.attention.cardArrived(card('a'))
    s.attention.cardArrived(card('b'))
    await tick()
    s.attention.cardArrived(card('c'))
    await tick()
    expect(s.page.Notification.requests).toBe(1)
    expect(s.page.Notification.created).toHaveLength(0)
  })

  it('while focused reads the permission on the first card only (a synchronous call to the browser in Chromium)', async () => {
    const s = setup({ permission: 'default', answer: 'granted' })
    s.attention.cardArrived(card('a'))
    expect(s.page.Notification.requests).toBe(1) // the first card asks, even while focused
    await tick()
    const reads = s.page.Notification.reads
    for (const id of ['b', 'c', 'd']) s.attention.cardArrived(card(id))
    await tick()
    expect(s.page.Notification.reads).toBe(reads)
    expect(s.page.Notification.requests).toBe(1)
    expect(s.page.Notification.created).toHaveLength(0)
    // Away: a card reads it again, and notifies.
    s.page.document.blur()
    s.attention.cardArrived(card('e'))
    await tick()
    expect(s.page.Notification.created.map((n) => n.options?.body)).toEqual(['Question e?'])
  })

  it('a permission granted later (in the browser\'s settings) notifies the next card that arrives while away', async () => {
    const s = setup({ permission: 'denied' })
    s.attention.cardArrived(card('a'))
    s.page.Notification.permission = 'granted'
    s.page.document.blur()
    s.attention.cardArrived(card('b'))
    await tick()
    expect(s.page.Notification.requests).toBe(0)
    expect(s.page.Notification.created).toHaveLength(1)
  })

  it('never asks when notifications are denied, but still marks the title', async () => {
    const s = setup({ permission: 'denied' })
    s.pending.n = 1
    s.page.document.blur()
    s.attention.cardArrived(card('a'))
    await tick()
    expect(s.page.Notification.requests).toBe(0)
    expect(s.page.Notification.created).toHaveLength(0)
    expect(s.page.document.title).toBe('(1) Parley')
  })

  it('does not show a notification for a card resolved while permission was asked', async () => {
    const s = setup({ permission: 'default', answer: 'granted' })
    s.page.document.blur()
    const c = card('a')
    s.attention.cardArrived(c)
    s.attention.cardResolved({ ...c, status: 'answered' })
    await tick()
    expect(s.page.Notification.created).toHaveLength(0)
  })

  it('a click focuses the window and opens the card, without raising the window by itself', () => {
    const s = setup({ wails: true })
    s.pending.n = 1
    s.page.document.blur()
    const c = card('a', 'Which city?', 'c7')
    s.attention.cardArrived(c)
    expect(s.page.window.focusCalls).toBe(0)
    s.page.Notification.created[0]!.click()
    expect(s.page.window.focusCalls).toBe(1)
    expect(s.page.Notification.created[0]!.closed).toBe(true)
    expect(s.opened.map((x) => [x.conversationId, x.question_id])).toEqual([['c7', 'a']])
    expect(s.page.document.title).toBe('Parley')
  })

  it('closes the notification once the card is answered elsewhere, and all of them on focus', () => {
    const s = setup()
    s.page.document.blur()
    s.attention.cardArrived(card('a'))
    s.attention.cardArrived(card('b'))
    const [na, nb] = s.page.Notification.created
    s.attention.cardResolved({ ...card('a'), status: 'answered' })
    expect(na!.closed).toBe(true)
    expect(nb!.closed).toBe(false)
    s.page.window.userFocus()
    expect(nb!.closed).toBe(true)
  })

  it('works without the Notifications API (title only)', () => {
    const page = fakePage()
    const pending = { n: 2 }
    attention = createAttention({ env: { ...page, Notification: null }, pendingCount: () => pending.n, openCard: () => {} })
    page.document.blur()
    attention.cardArrived(card('a'))
    expect(page.document.title).toBe('(2) Parley')
  })

  it('uses the question as plain text, on one line, cut when long', () => {
    expect(notificationBody(card('a', '<b>Tea</b>\n  or   **coffee**?'))).toBe('<b>Tea</b> or **coffee**?')
    const long = notificationBody(card('a', 'word '.repeat(100)))
    expect(long.length).toBeLessThanOrEqual(BODY_MAX)
    expect(long.endsWith('…')).toBe(true)
  })
})

describe('attention: title prefix', () => {
  it('shows the number of pending cards while not focused and clears it on focus', () => {
    const s = setup()
    s.page.document.blur()
    s.pending.n = 1
    s.attention.cardArrived(card('a'))
    expect(s.page.document.title).toBe('(1) Parley')
    s.pending.n = 2
    s.attention.cardArrived(card('b'))
    expect(s.page.document.title).toBe('(2) Parley')
    s.pending.n = 1 // one answered from another client
    s.attention.refresh()
    expect(s.page.document.title).toBe('(1) Parley')

    s.page.window.userFocus()
    expect(s.page.document.title).toBe('Parley')
    // Pending cards alone do not bring the prefix back: only a new card while away.
    s.page.document.blur()
    s.attention.refresh()
    expect(s.page.document.title).toBe('Parley')
    s.pending.n = 2
    s.attention.cardArrived(card('c'))
    expect(s.page.document.title).toBe('(2) Parley')
  })

  it('clears on becoming visible and focused, and drops to none when nothing is pending', () => {
    const s = setup()
    s.page.document.visibilityState = 'hidden'
    s.pending.n = 3
    s.attention.cardArrived(card('a'))
    expect(s.page.document.title).toBe('(3) Parley')
    s.pending.n = 0
    s.attention.refresh()
    expect(s.page.document.title).toBe('Parley')
    s.pending.n = 1
    s.attention.refresh()
    expect(s.page.document.title).toBe('(1) Parley')
    s.page.document.visibilityState = 'visible'
    s.page.document.focused = true
    s.page.document.fire('visibilitychange')
    expect(s.page.document.title).toBe('Parley')
  })

  it('keeps no prefix for a card that arrives while focused', () => {
    const s = setup()
    s.pending.n = 1
    s.attention.cardArrived(card('a'))
    expect(s.page.document.title).toBe('Parley')
  })

  it('sets the native window title over Wails too', () => {
    const s = setup({ wails: true })
    s.pending.n = 1
    s.page.document.blur()
    s.attention.cardArrived(card('a'))
    s.page.window.userFocus()
    expect(s.page.window.nativeTitles).toEqual(['(1) Parley', 'Parley'])
  })

  it('dispose removes the prefix and the listeners', () => {
    const s = setup()
    s.pending.n = 1
    s.page.document.blur()
    s.attention.cardArrived(card('a'))
    expect(s.page.window.count() + s.page.document.count()).toBeGreaterThan(0)
    s.attention.dispose()
    expect(s.page.document.title).toBe('Parley')
    expect(s.page.window.count() + s.page.document.count()).toBe(0)
  })
})

describe('attention: native notifications in the desktop app', () => {
  function nativeSetup(fail = false) {
    const page = fakePage()
    const sent: [string, string][] = []
    const urgency: boolean[] = []
    const win = {
      go: {
        desktop: {
          DesktopService: {
            Notify: (title: string, body: string) => {
              sent.push([title, body])
              return fail ? Promise.reject(new Error('no notification server')) : Promise.resolve()
            },
            RequestAttention: () => {
              urgency.push(true)
              return Promise.resolve()
            },
            ClearAttention: () => {
              urgency.push(false)
              return Promise.resolve()
            },
          },
        },
      },
    }
    const native = nativeNotifier(win)
    attention = createAttention({ env: { ...page, native }, pendingCount: () => 1, openCard: () => {} })
    return { page, sent, urgency, native, attention }
  }

  it('finds the Go DesktopService binding, and nothing in a plain browser', () => {
    expect(nativeNotifier({})).toBeNull()
    expect(nativeNotifier(null)).toBeNull()
    expect(nativeNotifier({ go: { desktop: { DesktopService: {} } } })).toBeNull()
    expect(nativeNotifier({ go: { desktop: { DesktopService: { Notify: () => Promise.resolve() } } } })).not.toBeNull()
  })

  it('uses the native notification instead of the Web one, only while unfocused, once per card', () => {
    const s = nativeSetup()
    s.attention.cardArrived(card('a', 'Which city?'))
    expect(s.sent).toEqual([])
    s.page.document.blur()
    s.attention.cardArrived(card('b', 'Which hotel?'))
    s.attention.cardArrived(card('b', 'Which hotel?'))
    expect(s.sent).toEqual([[notificationTitle(), 'Which hotel?']])
    expect(s.page.Notification.created).toHaveLength(0)
    expect(s.page.document.title).toMatch(/^\(1\) /)
  })

  it("titles the native notification of an agent's card with the agent's name", () => {
    const s = nativeSetup()
    s.page.document.blur()
    s.attention.cardArrived(makeCard({ question_id: 'd1', source: { type: 'agent', agent: 'deploy-bot' }, questions: [q({ question: 'Deploy build 7?' })] }))
    expect(s.sent).toEqual([['deploy-bot has a question', 'deploy-bot: Deploy build 7?']])
  })

  it('requests window attention with the notification and clears it when the user comes back', () => {
    const s = nativeSetup()
    s.attention.cardArrived(card('a'))
    expect(s.urgency).toEqual([]) // focused: nothing
    s.page.document.blur()
    s.attention.cardArrived(card('b'))
    expect(s.urgency).toEqual([true])
    s.page.window.userFocus()
    expect(s.urgency).toEqual([true, false])
    expect(s.page.document.title).not.toMatch(/^\(\d+\) /)
  })

  it("an agent's notice notifies only while unfocused, titled as a message, naming the agent", () => {
    const s = nativeSetup()
    s.attention.noticeArrived('ci-bot', 'Tests pass')
    expect(s.sent).toEqual([]) // focused: the user sees it in the chat
    s.page.document.blur()
    s.attention.noticeArrived('ci-bot', 'Tests   pass\non main')
    expect(s.sent).toEqual([[noticeTitle(), 'ci-bot: Tests pass on main']])
  })

  it('a failing native notification changes nothing else', async () => {
    const s = nativeSetup(true)
    s.page.document.blur()
    s.attention.cardArrived(card('a'))
    await tick()
    expect(s.sent).toHaveLength(1)
    expect(s.page.document.title).toMatch(/^\(1\) /)
  })
})
