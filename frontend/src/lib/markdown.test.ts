import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mount } from '@vue/test-utils'
import { renderMarkdown } from './markdown'
import MarkdownContent from '../components/chat/MarkdownContent.vue'
import MessageItem from '../components/chat/MessageItem.vue'
import { setupEnv, settle, type TestEnv } from '../test-utils'

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
    const a = mount(MessageItem, { props: { message: { id: '1', role: 'assistant', content: `# Title\n\n${text}`, created_at: '' } }, global: { plugins: [env.pinia] } })
    expect(a.find('h1').text()).toBe('Title')
    inert(a.element)
    const u = mount(MessageItem, { props: { message: { id: '2', role: 'user', content: `**not bold** ${text}`, created_at: '' } }, global: { plugins: [env.pinia] } })
    expect(u.find('strong').exists()).toBe(false)
    expect(u.text()).toContain('**not bold** <img src=x onerror=alert(1)>')
    inert(u.element)
  })

  it('collapses other tool results', () => {
    const w = mount(MessageItem, { props: { message: { id: '3', role: 'tool', tool_name: 'web_search', content: '<img src=x onerror=alert(1)> result', created_at: '' } }, global: { plugins: [env.pinia] } })
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
