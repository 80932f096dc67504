// The card's headings follow the page's outline (axe's heading-order): the
// window's h1 is the chat's title, a card in the chat is an h2, and the
// review step inside a card an h3. Checked on the whole window (sidebar,
// chat, card), in document order, as a screen reader lists them.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import ChatShell from '../layout/ChatShell.vue'
import { makeCard, q, mountInBody, onReset, resetDom, setupEnv, settle, type TestEnv } from '../../test-utils'
import { connectEvents } from '../../stores/events'
import { useConversationsStore } from '../../stores/conversations'
import { useSettingsStore } from '../../stores/settings'

let env: TestEnv
beforeEach(() => {
  env = setupEnv()
})
afterEach(resetDom)

/** The headings of the page in document order: level and text. */
function outline(): { level: number; text: string }[] {
  return Array.from(document.querySelectorAll<HTMLElement>('h1, h2, h3, h4, h5, h6')).map((h) => ({
    level: Number(h.tagName[1]),
    text: (h.textContent ?? '').trim(),
  }))
}

/** Headings that go more than one level deeper than the one before them. */
function skips(list: { level: number; text: string }[]): string[] {
  return list.flatMap((h, i) => (i > 0 && h.level > list[i - 1]!.level + 1 ? [`h${list[i - 1]!.level} "${list[i - 1]!.text}" → h${h.level} "${h.text}"`] : []))
}

describe('QuestionCard headings', () => {
  it('a card in the chat is an h2 under the chat title, its review an h3, with no level skipped', async () => {
    env.fake.addConversation({ id: 'c1', title: 'Groceries' })
    onReset(connectEvents())
    await useSettingsStore().init()
    const conversations = useConversationsStore()
    await conversations.load()
    await conversations.select('c1')
    const w = await mountInBody(ChatShell, env)
    env.fake.addCard(
      {
        question_id: 'h1',
        conversationId: 'c1',
        questions: [makeCard().questions[0]!, q({ question: 'Which features?', options: [{ label: 'Auth' }, { label: 'Search' }] })],
      },
      true,
    )
    await settle()

    const card = w.find('[data-question-id="h1"]')
    const title = card.find('.qcard-title')
    expect(title.element.tagName).toBe('H2')
    expect(document.getElementById(card.attributes('aria-labelledby')!)).toBe(title.element)
    const chatTitle = outline().find((h) => h.text === 'Groceries')
    expect(chatTitle?.level).toBe(1)
    expect(skips(outline())).toEqual([])

    // The review step of a card with several questions.
    await card.findAll('[role="tab"]').at(-1)!.trigger('click')
    await settle()
    const review = card.find('[data-review-heading]')
    expect(review.element.tagName).toBe('H3')
    expect(skips(outline())).toEqual([])
  })
})
