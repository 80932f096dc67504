import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { mount } from '@vue/test-utils'
import { clearMarkdownCache, renderMarkdown, renderMarkdownParts, sanitizeEach, sanitizeHtml, splitMarkdown } from './markdown'
import DOMPurify from 'dompurify'
import MarkdownContent from '../components/chat/MarkdownContent.vue'
import MessageItem from '../components/chat/MessageItem.vue'
import { setupEnv, settle, type TestEnv } from '../test-utils'
import { language } from '../i18n'

const ATTACKS = [
  '<img src=x onerror=alert(1)>',
  '<script>alert(1)</script>',
  '[x](javascript:alert(1))',
  '[y](JaVaScRiPt:alert(1))',
  '<a href="javascript:alert(1)">z</a>',
  '![img](javascript:alert(1))',
  '<svg onload=alert(1)>',
  '<iframe src="https://evil.example"></iframe>',
]

function inert(root: ParentNode): void {
  expect(root.querySelector('script')).toBeNull()
  expect(root.querySelector('img')).toBeNull()
  // our own icons are aria-hidden SVGs; anything else from content must not be there
  expect(root.querySelector('iframe, svg:not([aria-hidden="true"]), object, embed')).toBeNull()
  for (const el of Array.from(root.querySelectorAll('*'))) {
    for (const attr of Array.from(el.attributes)) {
      expect(attr.name.startsWith('on'), `${el.tagName} has ${attr.name}`).toBe(false)
      expect(/^\s*javascript:/i.test(attr.value), `${el.tagName}[${attr.name}]=${attr.value}`).toBe(false)
    }
  }
}

let env: TestEnv
beforeEach(() => {
  env = setupEnv()
})
afterEach(() => {
  document.body.innerHTML = ''
})

describe('renderMarkdown', () => {
  it.each(ATTACKS)('keeps %s inert', (attack) => {
    const div = document.createElement('div')
    div.innerHTML = renderMarkdown(`Before ${attack} after\n\n- item ${attack}`)
    inert(div)
    expect(div.textContent).toContain('Before')
  })

  it('shows raw HTML as text instead of dropping it', () => {
    const div = document.createElement('div')
    div.innerHTML = renderMarkdown('<img src=x onerror=alert(1)>')
    expect(div.textContent).toContain('<img src=x onerror=alert(1)>')
  })

  it('renders Markdown: emphasis, lists, safe links with rel/target', () => {
    const div = document.createElement('div')
    div.innerHTML = renderMarkdown('**bold** and *it*\n\n1. one\n2. two\n\n[site](https://example.com)')
    expect(div.querySelector('strong')!.textContent).toBe('bold')
    expect(div.querySelectorAll('ol li')).toHaveLength(2)
    const a = div.querySelector('a')!
    expect(a.getAttribute('href')).toBe('https://example.com')
    expect(a.getAttribute('rel')).toContain('noopener')
    expect(a.getAttribute('target')).toBe('_blank')
  })

  it('highlights known languages and escapes code', () => {
    const div = document.createElement('div')
    div.innerHTML = renderMarkdown('```go\nfunc main() { fmt.Println("<b>") }\n```\n\n```\n<script>alert(1)</script>\n```')
    const blocks = div.querySelectorAll('.code-block')
    expect(blocks).toHaveLength(2)
    expect(blocks[0]!.querySelector('code')!.className).toContain('language-go')
    expect(blocks[0]!.querySelector('.hljs-keyword')!.textContent).toBe('func')
    expect(blocks[0]!.querySelector('.code-lang')!.textContent).toBe('go')
    expect(blocks[1]!.querySelector('code')!.textContent).toBe('<script>alert(1)</script>\n')
    expect(div.querySelectorAll('button[data-copy-code]')).toHaveLength(2)
    inert(div)
  })
})

describe('assistant and user messages in the DOM', () => {
  it('the assistant text is sanitized Markdown; the user text is plain text', () => {
    const text = ATTACKS.join('\n\n')
    const a = mount(MessageItem, { props: { message: { id: '1', conversationId: 'c1', role: 'assistant', content: `# Title\n\n${text}`, created_at: '', parent_id: '', siblings: 1, sibling_index: 0 } }, global: { plugins: [env.pinia] } })
    expect(a.find('h1').text()).toBe('Title')
    inert(a.element)
    const u = mount(MessageItem, { props: { message: { id: '2', conversationId: 'c1', role: 'user', content: `**not bold** ${text}`, created_at: '', parent_id: '', siblings: 1, sibling_index: 0 } }, global: { plugins: [env.pinia] } })
    expect(u.find('strong').exists()).toBe(false)
    expect(u.text()).toContain('**not bold** <img src=x onerror=alert(1)>')
    inert(u.element)
  })

  it('collapses other tool results', () => {
    const w = mount(MessageItem, { props: { message: { id: '3', conversationId: 'c1', role: 'tool', tool_name: 'web_search', content: '<img src=x onerror=alert(1)> result', created_at: '', parent_id: '', siblings: 1, sibling_index: 0 } }, global: { plugins: [env.pinia] } })
    const details = w.find('details')
    expect(details.exists()).toBe(true)
    expect((details.element as HTMLDetailsElement).open).toBe(false)
    expect(w.find('summary').text()).toContain('web_search')
    inert(w.element)
  })

  it('the Copy button copies the code through the transport; links open outside', async () => {
    const w = mount(MarkdownContent, { props: { source: 'See [docs](https://example.com/docs)\n\n```ts\nconst a = 1\n```' }, global: { plugins: [env.pinia] }, attachTo: document.body })
    await w.find('button[data-copy-code]').trigger('click')
    await settle()
    expect(env.fake.copied).toEqual(['const a = 1\n'])
    expect(w.find('button[data-copy-code]').text()).toBe('Copied')
    await w.find('a').trigger('click')
    expect(env.fake.opened).toEqual(['https://example.com/docs'])
    w.unmount()
  })
})

// ---- rendering in blocks ------------------------------------------------------

/** A small seeded random generator, so a failure can be reproduced. */
function rng(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

const FRAGMENTS = [
  'Plain paragraph with **bold**, *it*, `code` and https://example.com/x.',
  'Second line of a paragraph\ncontinued here.',
  '# Heading one',
  '## Heading two',
  'Setext heading\n===',
  '- item one\n- item two',
  '- loose item\n\n- next loose item',
  '1. first\n2. second',
  '3. starts at three',
  '* star item\n  continued under it',
  '- item\n\n  paragraph inside the item',
  '- item\n\n      code inside the item',
  '> a quote\n> on two lines',
  '> quote\n\n> another quote',
  '```js\nconst a = 1\n\nconst b = 2\n```',
  '```\nno language\n\n\nstill code\n```',
  '~~~\ntilde fence\n```\nnot closed by backticks\n~~~',
  '````md\n```\ninner fence\n```\n````',
  '```not a fence``` inline code',
  '    indented code\n\n    more indented code',
  '| a | b |\n|---|---|\n| 1 | 2 |',
  '---',
  '***',
  '- - -',
  '<img src=x onerror=alert(1)> raw html stays text',
  '[x](javascript:alert(1)) and [ok](https://example.com)',
  '-not a list',
  '2) paren list',
  '\tTab indented',
]

function randomDoc(next: () => number, parts: number): string {
  const out: string[] = []
  for (let i = 0; i < parts; i++) {
    out.push(FRAGMENTS[Math.floor(next() * FRAGMENTS.length)]!)
    const r = next()
    out.push(r < 0.6 ? '\n\n' : r < 0.8 ? '\n' : r < 0.9 ? '\n\n\n' : '\n  \n')
  }
  return out.join('')
}

describe('splitMarkdown and renderMarkdownParts', () => {
  beforeEach(() => clearMarkdownCache())

  it('splits at blank lines between top-level blocks, not inside fences, lists or indented text', () => {
    expect(splitMarkdown('one\n\ntwo\n\n# three')).toEqual(['one\n\n', 'two\n\n', '# three'])
    expect(splitMarkdown('```\na\n\nb\n```\n\nafter')).toEqual(['```\na\n\nb\n```\n\n', 'after'])
    expect(splitMarkdown('- a\n\n- b\n\nc')).toEqual(['- a\n\n- b\n\n', 'c'])
    expect(splitMarkdown('- a\n\n  b\n\nc')).toEqual(['- a\n\n  b\n\n', 'c'])
    expect(splitMarkdown('    code\n\n    more\n\nend')).toEqual(['    code\n\n    more\n\n', 'end'])
    // a reference definition reaches across blocks: the finished text stays whole
    expect(splitMarkdown('see [x][r]\n\n[r]: https://example.com')).toHaveLength(1)
    expect(splitMarkdown('')).toEqual([])
  })

  it('the blocks put together render exactly like the whole text', () => {
    const next = rng(42)
    for (let n = 0; n < 400; n++) {
      const doc = randomDoc(next, 1 + Math.floor(next() * 8))
      const parts = splitMarkdown(doc)
      expect(parts.join('')).toBe(doc)
      expect(renderMarkdownParts(parts).join(''), JSON.stringify(doc)).toBe(renderMarkdown(doc))
    }
  })

  it('while text streams, the finished blocks are the blocks of the finished text', () => {
    const next = rng(7)
    for (let n = 0; n < 60; n++) {
      const doc = randomDoc(next, 2 + Math.floor(next() * 6))
      const final = splitMarkdown(doc)
      for (let end = 1; end <= doc.length; end++) {
        const parts = splitMarkdown(doc.slice(0, end), true)
        expect(parts.join('')).toBe(doc.slice(0, end))
        const finished = parts.slice(0, -1)
        expect(final.slice(0, finished.length), `${JSON.stringify(doc)} at ${end}`).toEqual(finished)
      }
    }
  })

  it('does not take an unfinished line for the start of a new block when it may still become a list item', () => {
    expect(splitMarkdown('- a\n\n1', true)).toHaveLength(1)
    expect(splitMarkdown('- a\n\n1.', true)).toHaveLength(1)
    expect(splitMarkdown('- a\n\n-', true)).toHaveLength(1)
    expect(splitMarkdown('- a\n\nWord', true)).toEqual(['- a\n\n', 'Word'])
  })

  it('while text streams, the blocks that stayed are given again as they were, without rendering or a cache lookup', () => {
    const first = splitMarkdown('Alpha *one*.\n\nBravo `two`.\n\nCharlie thr', true)
    const before = renderMarkdownParts(first, true)
    const previous = { parts: first, html: before, lang: language(), streaming: true }
    clearMarkdownCache() // what is given again cannot come from the cache
    const next = first.slice(0, 2).concat(splitMarkdown('Charlie three.\n\nDelta fo', true))
    const calls = vi.spyOn(DOMPurify, 'sanitize')
    const html = renderMarkdownParts(next, true, previous)
    // One call, for the block that was still growing and the new one only.
    expect(calls).toHaveBeenCalledTimes(1)
    const sanitized = String(calls.mock.calls[0]![0])
    calls.mockRestore()
    expect(sanitized).toContain('Charlie three.')
    expect(sanitized).toContain('Delta fo')
    expect(sanitized).not.toContain('Alpha')
    expect(sanitized).not.toContain('Bravo')
    expect(html.slice(0, 2)).toEqual(before.slice(0, 2))
    expect(html.join('')).toBe(renderMarkdownParts(next, true).join(''))
    // A block that changed is rendered again, and so is everything in another language.
    const edited = ['Alpha *uno*.\n\n', ...next.slice(1)]
    expect(renderMarkdownParts(edited, true, { parts: next, html, lang: language(), streaming: true })[0]).toContain('uno')
    const other = renderMarkdownParts(next, true, { parts: next, html: html.map(() => 'stale'), lang: 'xx', streaming: true })
    expect(other).not.toContain('stale')
  })

  it('keeps every block inert', () => {
    const parts = splitMarkdown(ATTACKS.join('\n\n'))
    expect(parts.length).toBe(ATTACKS.length)
    const div = document.createElement('div')
    div.innerHTML = renderMarkdownParts(parts).join('')
    inert(div)
  })
})

describe('the sanitizer', () => {
  it("keeps Parley's rules on every call (images, forms, styles out; data attributes and safe links kept)", () => {
    for (let i = 0; i < 3; i++) {
      const root = document.createElement('div')
      root.innerHTML = sanitizeHtml(
        '<p style="color:red" data-copy-code="">x</p><img src="https://example.com/a.png"><form><input></form><svg><circle/></svg><a href="javascript:alert(1)">j</a><a href="https://example.com">ok</a>',
      )
      expect(root.querySelector('img, form, input, svg, [style]')).toBeNull()
      expect(root.querySelector('p')?.hasAttribute('data-copy-code')).toBe(true)
      const [bad, ok] = [...root.querySelectorAll('a')]
      expect(bad?.hasAttribute('href')).toBe(false)
      expect(ok?.getAttribute('href')).toBe('https://example.com')
      expect(ok?.getAttribute('rel')).toBe('noopener noreferrer nofollow')
    }
  })

  it('drops what tries to leave the element it is sanitized in, or hide in a template', () => {
    for (const attack of [
      '</div><img src=x onerror=alert(1)><div>',
      'a</div></template><img src=x onerror=alert(1)>',
      '<template><img src=x onerror=alert(1)></template>',
      '<math><mi><style><img src=x onerror=alert(1)></style></mi></math>',
    ]) {
      const out = sanitizeHtml(attack)
      expect(out, attack).not.toMatch(/onerror|<img|<style/i)
    }
    expect(sanitizeHtml('<p>after</p>')).toBe('<p>after</p>') // nothing left over from before
  })
})

describe('sanitizeEach', () => {
  it('gives what sanitizing each alone gives, hostile parts included, in one call', () => {
    const parts = [
      '# Title',
      'Some **bold** and [a link](https://example.com) and [bad](javascript:alert(1)).',
      '```html\n<script>alert(1)</script>\n```',
      'Raw <img src=x onerror=alert(1)> and <hr data-parley-split="guess"> stay text.',
      '- one\n- two',
    ].map((p) => renderMarkdownParts([p])[0]!)
    clearMarkdownCache()
    const raw = ['<p>a<img src=x onerror=alert(1)></p>', '<p onclick="x()">b</p>', '<div><a href="javascript:alert(1)">c</a></div>', ...parts]
    const calls = vi.spyOn(DOMPurify, 'sanitize')
    const together = sanitizeEach(raw)
    expect(calls).toHaveBeenCalledTimes(1)
    calls.mockRestore()
    expect(together).toEqual(raw.map(sanitizeHtml))
    const box = document.createElement('div')
    box.innerHTML = together.join('')
    expect(box.querySelector('img, script, hr')).toBeNull()
    for (const el of Array.from(box.querySelectorAll('*'))) {
      for (const attr of Array.from(el.attributes)) {
        expect(attr.name.startsWith('on')).toBe(false)
        expect(attr.value).not.toMatch(/^\s*javascript:/i)
      }
    }
    expect(box.textContent).toContain('<hr data-parley-split="guess">') // the model's text, shown as text
  })

  it('renders a message of many blocks with one sanitize call, as the whole text renders', () => {
    clearMarkdownCache()
    const src = Array.from({ length: 40 }, (_, i) => (i % 5 === 4 ? '```js\nlet x = ' + i + '\n```' : `Paragraph ${i} with *words*.`)).join('\n\n')
    const calls = vi.spyOn(DOMPurify, 'sanitize')
    const html = renderMarkdownParts(splitMarkdown(src))
    expect(calls).toHaveBeenCalledTimes(1)
    calls.mockRestore()
    expect(html.join('')).toBe(renderMarkdown(src))
  })
})
