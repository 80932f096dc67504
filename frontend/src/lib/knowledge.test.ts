// Citations, the Settings URLs and the knowledge store (SPEC §11).
import { afterEach, describe, expect, it } from 'vitest'
import { flushPromises } from '@vue/test-utils'
import { renderCitedMarkdown, renderMarkdown } from './markdown'
import { sectionFromHash, settingsHash } from './settingsRoute'
import { mountInBody, resetDom, setupEnv } from '../test-utils'
import { useKnowledgeStore } from '../stores/knowledge'
import { connectEvents } from '../stores/events'
import { messageFromDone } from '../stores/chat'
import MessageItem from '../components/chat/MessageItem.vue'
import { h } from 'vue'

afterEach(() => resetDom())

describe('citation chips', () => {
  it('turns [n] of the given passages into chips, not in code and not other numbers', () => {
    const html = renderCitedMarkdown('Install it with apt [1], or see [2] and [7].\n\n`[1] in code`\n\n```\n[1]\n```', [1, 2])
    const doc = new DOMParser().parseFromString(html, 'text/html')
    const chips = [...doc.querySelectorAll('button.cite')]
    expect(chips.map((c) => c.getAttribute('data-cite'))).toEqual(['1', '2'])
    expect(chips[0]!.textContent).toBe('1')
    expect(doc.body.textContent).toContain('[7]')
    expect(doc.querySelector('code')!.textContent).toBe('[1] in code')
    expect(doc.querySelector('pre')!.textContent).toContain('[1]')
  })

  it('keeps model HTML escaped and leaves replies without sources alone', () => {
    const html = renderCitedMarkdown('<img src=x onerror=alert(1)> [1]', [1])
    expect(html).not.toContain('<img')
    expect(html).toContain('&lt;img')
    expect(renderMarkdown('plain [1]')).not.toContain('button')
  })

  it('shows the passage of a chip, and closes it', async () => {
    const env = setupEnv()
    const message = {
      id: 'm1', role: 'assistant' as const, content: 'Use apt [1].', created_at: '', parent_id: '', siblings: 1, sibling_index: 0,
      sources: [{ n: 1, path: '/docs/guide.md', locator: 'Setup › Linux', text: 'Install with <b>apt</b>.' }],
    }
    const w = await mountInBody({ render: () => h(MessageItem, { message, conversationId: 'c1' }) }, env)
    const chip = w.find('button.cite')
    expect(chip.exists()).toBe(true)
    await chip.trigger('click')
    const passage = w.find('[data-testid="source-passage"]')
    expect(passage.find('[data-testid="source-file"]').text()).toBe('guide.md')
    expect(passage.find('[data-testid="source-locator"]').text()).toBe('Setup › Linux')
    expect(passage.find('[data-testid="source-text"]').text()).toBe('Install with <b>apt</b>.')
    expect(passage.find('b').exists()).toBe(false)
    // A browser cannot open the file: the path is copied instead.
    await passage.find('[data-testid="source-open"]').trigger('click')
    await flushPromises()
    expect(env.fake.copied).toEqual(['/docs/guide.md'])
    env.fake.nativeFileDialogs = true
    await passage.find('[data-testid="source-open"]').trigger('click')
    await flushPromises()
    expect(env.fake.openedSources).toEqual(['/docs/guide.md'])
    await passage.find('[data-testid="source-close"]').trigger('click')
    expect(w.find('[data-testid="source-passage"]').exists()).toBe(false)
  })
})

describe('replies with sources', () => {
  it('keep their sources from message:done', () => {
    const sources = [{ n: 1, path: '/d/a.md', locator: 'A', text: 't' }]
    const m = messageFromDone({ conversationId: 'c', message: { id: 'm', conversationId: 'c', role: 'assistant', content: 'x [1]', created_at: '', parent_id: '', siblings: 1, sibling_index: 0, sources } })
    expect(m?.sources).toEqual(sources)
  })
})

describe('settings URLs', () => {
  it('names each section', () => {
    expect(sectionFromHash('#settings')).toBe('server')
    expect(sectionFromHash(settingsHash('knowledge'))).toBe('knowledge')
    expect(sectionFromHash('#settings/nope')).toBeNull()
    expect(sectionFromHash('#other')).toBeNull()
  })
})

describe('knowledge store', () => {
  it('creates a collection, follows its progress and keeps errors per collection', async () => {
    const env = setupEnv()
    const stop = connectEvents()
    const kn = useKnowledgeStore()
    await kn.load()
    expect(await kn.create('Docs', ['relative'])).toBe(false)
    expect(kn.errors['']).toContain('not absolute')
    expect(await kn.create('Docs', ['/home/me/docs'])).toBe(true)
    const c = kn.collections[0]!
    expect(c.status).toBe('indexing')
    env.fake.knowledge.index(c.id, [{ path: '/home/me/docs/a.md', locator: 'A', text: 'alpha' }], [{ path: '/home/me/docs/b.pdf', error: 'unreadable PDF' }])
    await flushPromises()
    expect(kn.byId(c.id)).toMatchObject({ status: 'ready', files: 2, indexed_files: 1, chunks: 1 })
    expect(kn.byId(c.id)!.errors).toEqual([{ path: '/home/me/docs/b.pdf', error: 'unreadable PDF' }])
    expect(await kn.rename(c.id, '')).toBe(false)
    expect(kn.errors[c.id]).toContain('name')
    expect(await kn.remove(c.id)).toBe(true)
    expect(kn.collections).toEqual([])
    stop()
  })
})
