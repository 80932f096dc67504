// Model text → safe HTML. markdown-it with raw HTML off (it is escaped), then
// DOMPurify as a second wall. Code is highlighted with highlight.js core and
// a few common languages; each block gets a Copy button (handled by
// MarkdownContent through event delegation, no inline scripts).
import { language, t } from '../i18n'
import MarkdownIt from 'markdown-it'
import DOMPurify from 'dompurify'
import hljs from 'highlight.js/lib/core'
import bash from 'highlight.js/lib/languages/bash'
import css from 'highlight.js/lib/languages/css'
import diff from 'highlight.js/lib/languages/diff'
import go from 'highlight.js/lib/languages/go'
import javascript from 'highlight.js/lib/languages/javascript'
import json from 'highlight.js/lib/languages/json'
import markdownLang from 'highlight.js/lib/languages/markdown'
import python from 'highlight.js/lib/languages/python'
import rust from 'highlight.js/lib/languages/rust'
import shell from 'highlight.js/lib/languages/shell'
import sql from 'highlight.js/lib/languages/sql'
import typescript from 'highlight.js/lib/languages/typescript'
import xml from 'highlight.js/lib/languages/xml'
import yaml from 'highlight.js/lib/languages/yaml'

const languages = { bash, css, diff, go, javascript, json, markdown: markdownLang, python, rust, shell, sql, typescript, xml, yaml }
for (const [name, lang] of Object.entries(languages)) {
  if (!hljs.getLanguage(name)) hljs.registerLanguage(name, lang)
}
hljs.registerAliases(['sh', 'zsh', 'console'], { languageName: 'bash' })
hljs.registerAliases(['html', 'svg', 'vue'], { languageName: 'xml' })
hljs.registerAliases(['golang'], { languageName: 'go' })
hljs.registerAliases(['py'], { languageName: 'python' })
hljs.registerAliases(['ts', 'tsx'], { languageName: 'typescript' })
hljs.registerAliases(['js', 'jsx', 'mjs'], { languageName: 'javascript' })
hljs.registerAliases(['yml'], { languageName: 'yaml' })
hljs.registerAliases(['md'], { languageName: 'markdown' })
hljs.registerAliases(['rs'], { languageName: 'rust' })

const md = new MarkdownIt({ html: false, linkify: true, breaks: false, typographer: false })
// Remote images would be blocked by the CSP anyway; show them as links' text.
md.disable('image')

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
}

md.renderer.rules.fence = (tokens, idx) => {
  const token = tokens[idx]!
  const info = (token.info || '').trim().split(/\s+/)[0]?.toLowerCase() ?? ''
  const lang = info && hljs.getLanguage(info) ? info : ''
  let body: string
  if (lang) {
    try {
      body = hljs.highlight(token.content, { language: lang, ignoreIllegals: true }).value
    } catch {
      body = escapeHtml(token.content)
    }
  } else {
    body = escapeHtml(token.content)
  }
  const label = escapeHtml(info || 'text')
  return (
    `<div class="code-block"><div class="code-head"><span class="code-lang">${label}</span>` +
    `<button type="button" class="copy-code" data-copy-code="">${copyLabel()}</button></div>` +

    `<pre><code class="hljs${lang ? ' language-' + escapeHtml(lang) : ''}">${body}</code></pre></div>`
  )
}

// Links open outside the window (MarkdownContent intercepts the click too).
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    const href = node.getAttribute('href') ?? ''
    if (!/^(https?:|mailto:|#)/i.test(href)) node.removeAttribute('href')
    node.setAttribute('target', '_blank')
    node.setAttribute('rel', 'noopener noreferrer nofollow')
  }
})

const PURIFY_CONFIG = {
  FORBID_TAGS: ['style', 'script', 'iframe', 'object', 'embed', 'form', 'input', 'textarea', 'select', 'img', 'svg', 'math'],
  FORBID_ATTR: ['style', 'srcset', 'formaction'],
  ALLOW_DATA_ATTR: true,
}

// Set once: given with each call, the configuration is parsed again each
// time (DOMPurify copies its lists of hundreds of allowed tags and
// attributes), and a streamed reply is sanitized every frame. Nothing else
// uses DOMPurify, with this configuration or another.
DOMPurify.setConfig(PURIFY_CONFIG)

/** Sanitizes an HTML string (the last step of every render). */
export function sanitizeHtml(html: string): string {
  return DOMPurify.sanitize(html) as unknown as string
}

/** Renders model Markdown to sanitized HTML. */
export function renderMarkdown(src: string): string {
  if (!src) return ''
  return sanitizeHtml(md.render(src))
}

// Citations (SPEC §11): in a reply given passages of the user's documents,
// each `[n]` of the text (not in code) whose n is one of them becomes a chip
// (a button carrying data-cite) that shows the passage.
const CITATION = /\[(\d{1,3})\]/g

md.core.ruler.push('citations', (state) => {
  const cites = (state.env as { cites?: Set<number> } | undefined)?.cites
  if (!cites?.size) return
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue
    const out: typeof block.children = []
    for (const tok of block.children) {
      if (tok.type !== 'text' || !tok.content.includes('[')) {
        out.push(tok)
        continue
      }
      let last = 0
      for (const m of tok.content.matchAll(CITATION)) {
        const n = Number(m[1])
        if (!cites.has(n)) continue
        if (m.index > last) {
          const text = new state.Token('text', '', 0)
          text.content = tok.content.slice(last, m.index)
          out.push(text)
        }
        const chip = new state.Token('html_inline', '', 0)
        chip.content = `<button type="button" class="cite" data-cite="${n}" aria-label="${md.utils.escapeHtml(t('knowledge.source.chip', { n }))}" aria-haspopup="dialog">${n}</button>`
        out.push(chip)
        last = m.index + m[0].length
      }
      if (last === 0) {
        out.push(tok)
      } else if (last < tok.content.length) {
        const rest = new state.Token('text', '', 0)
        rest.content = tok.content.slice(last)
        out.push(rest)
      }
    }
    block.children = out
  }
})

/** Renders a reply whose `[n]` cite the given passages: each becomes a chip (sanitized like the rest). */
export function renderCitedMarkdown(src: string, cites: number[]): string {
  if (!src) return ''
  return sanitizeHtml(md.render(src, { cites: new Set(cites) }))
}

// ---- rendering in blocks (streamed text, long messages) ----------------------
// Model text is split at blank lines between top-level blocks; each block is
// rendered and sanitized on its own and its HTML kept in a small cache, so
// text that streams in re-renders only its last block. The splits are where
// Markdown itself ends every open block, so the blocks' HTML put together is
// what renderMarkdown gives for the whole text (markdown.test.ts checks it).
//
// A blank line (outside a code fence) is such a place when the line after it
// starts at the left margin and is no list item: anything indented could
// continue a list or an indented code block, and a list item continues its
// list. Reference definitions (`[x]: url`) reach across blocks, so a finished
// text that has one is rendered whole; while text streams it is split anyway
// (the finished message is rendered again when it lands).

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/
const LIST_ITEM = /^(?:[*+-]|\d{1,9}[.)])(?:[ \t]|$)/
/** What an unfinished last line may still turn into a list item from. */
const LIST_ITEM_PREFIX = /^(?:[*+-]|\d{1,9}[.)]?)$/
const BLANK = /^[ \t]*\r?$/
const REFERENCE = /^ {0,3}\[[^\]\n]+\]:/m

/**
 * Splits Markdown into top-level blocks whose rendered HTML, joined, is the
 * HTML of the whole. `streaming`: the text is still growing (its last line
 * may be unfinished). Joining the parts gives `src` back.
 */
export function splitMarkdown(src: string, streaming = false): string[] {
  if (!src) return []
  if (!streaming && REFERENCE.test(src)) return [src]
  const parts: string[] = []
  let start = 0
  let fence: { char: string; len: number } | null = null
  let afterBlank = false
  let pos = 0
  while (pos < src.length) {
    const nl = src.indexOf('\n', pos)
    const end = nl < 0 ? src.length : nl
    const line = src.slice(pos, end)
    const last = nl < 0
    if (fence) {
      const m = FENCE_OPEN.exec(line)
      if (m && m[1]![0] === fence.char && m[1]!.length >= fence.len && !m[2]!.trim()) fence = null
      afterBlank = false
    } else if (BLANK.test(line)) {
      afterBlank = true
    } else {
      if (afterBlank && pos > start && startsBlock(line, last && streaming)) {
        parts.push(src.slice(start, pos))
        start = pos
      }
      afterBlank = false
      const m = FENCE_OPEN.exec(line)
      if (m && !(m[1]![0] === '`' && m[2]!.includes('`'))) fence = { char: m[1]![0]!, len: m[1]!.length }
    }
    pos = last ? src.length : nl + 1
  }
  parts.push(src.slice(start))
  return parts
}

/** Whether a line after a blank line starts a new top-level block. */
function startsBlock(line: string, unfinished: boolean): boolean {
  const c = line[0]
  if (c === ' ' || c === '\t') return false
  if (LIST_ITEM.test(line)) return false
  if (unfinished && LIST_ITEM_PREFIX.test(line.replace(/\r$/, ''))) return false
  return true
}

const BLOCK_CACHE_MAX = 2000
const BLOCK_CACHE_MAX_CHARS = 4_000_000
const blockCache = new Map<string, string>()
let blockCacheChars = 0

// The code blocks' Copy button, in the current language (escaped once per language).
const copyLabels = new Map<string, string>()
function copyLabel(): string {
  const lang = language()
  let label = copyLabels.get(lang)
  if (label === undefined) {
    label = escapeHtml(t('common.copy'))
    copyLabels.set(lang, label)
  }
  return label
}

/** A finished block's HTML from the cache (kept as the newest), if there. */
function cachedBlock(key: string): string | undefined {
  const hit = blockCache.get(key)
  if (hit !== undefined) {
    blockCache.delete(key)
    blockCache.set(key, hit)
  }
  return hit
}

/** A block's cache key: its HTML has the Copy buttons' words, so one entry per language. */
function blockKey(lang: string, src: string): string {
  return `${lang}\u0000${src}`
}

/** Sanitized HTML of blocks rendered afresh, sanitized together. */
function renderFresh(blocks: string[]): string[] {
  return sanitizeEach(blocks.map((p) => (p ? md.render(p) : '')))
}

function cacheBlock(key: string, src: string, html: string): void {
  blockCache.set(key, html)
  blockCacheChars += src.length + html.length
  while (blockCache.size > BLOCK_CACHE_MAX || (blockCacheChars > BLOCK_CACHE_MAX_CHARS && blockCache.size > 1)) {
    const [oldSrc, oldHtml] = blockCache.entries().next().value!
    blockCache.delete(oldSrc)
    blockCacheChars -= oldSrc.length + oldHtml.length
  }
}

// Between the blocks sanitized together: an element DOMPurify keeps as it
// is, which model text cannot make (markdown-it escapes raw HTML, and the
// value is random).
const SPLIT = `<hr data-parley-split="${Math.random().toString(36).slice(2)}${Date.now().toString(36)}">`

/**
 * Sanitizes several HTML strings in one DOMPurify call. Each call parses a
 * whole document first: in Chromium 100 small blocks took 26 ms one by one
 * and 11 ms together, and a long conversation's first screen has hundreds
 * (issue #42, opening 5,000 messages). Should the parts not come back one
 * for one, each is sanitized alone.
 */
export function sanitizeEach(htmls: string[]): string[] {
  if (htmls.length < 2) return htmls.map(sanitizeHtml)
  const out = sanitizeHtml(htmls.join(SPLIT)).split(SPLIT)
  return out.length === htmls.length ? out : htmls.map(sanitizeHtml)
}

/** What renderMarkdownParts gave for a text's parts, to give again for the parts that stayed. */
export interface RenderedParts {
  parts: readonly string[]
  html: readonly string[]
  lang: string
  streaming: boolean
}

/**
 * Sanitized HTML of each block of `parts` (from splitMarkdown). Finished
 * blocks come from the cache, the others are sanitized together; with
 * `streaming` the last block, still growing, is rendered every time and
 * not kept. `previous`: the same text's parts rendered before (a stream),
 * whose finished blocks that stayed are given again as they were.
 */
export function renderMarkdownParts(parts: string[], streaming = false, previous?: RenderedParts): string[] {
  const out: string[] = new Array(parts.length)
  const lang = language()
  const missing: number[] = []
  // The blocks a stream rendered last time (the same strings, all but its
  // last): their HTML as it was, without a key made and looked up for each.
  // 76 KB into a reply that was ~150 keys a render: the whole text copied
  // into new strings and hashed each time (issue #42).
  const same = previous && previous.lang === lang ? Math.min(previous.parts.length - (previous.streaming ? 1 : 0), parts.length - (streaming ? 1 : 0)) : 0
  parts.forEach((p, i) => {
    if (i < same && previous!.parts[i] === p) {
      out[i] = previous!.html[i]!
      return
    }
    const hit = streaming && i === parts.length - 1 ? undefined : cachedBlock(blockKey(lang, p))
    if (hit !== undefined) out[i] = hit
    else missing.push(i)
  })
  if (missing.length) {
    const html = renderFresh(missing.map((i) => parts[i]!))
    missing.forEach((i, n) => {
      out[i] = html[n]!
      if (!streaming || i < parts.length - 1) cacheBlock(blockKey(lang, parts[i]!), parts[i]!, html[n]!)
    })
  }
  return out
}

/**
 * Renders the blocks of several texts into the cache at once, with one
 * sanitize call for all (a list about to show them: each message's own
 * render then finds its blocks there).
 */
export function prerenderMarkdown(sources: readonly string[]): void {
  const lang = language()
  const todo = new Map<string, string>() // key -> block
  for (const src of sources) {
    for (const p of splitMarkdown(src)) {
      const key = blockKey(lang, p)
      if (!todo.has(key) && !blockCache.has(key)) todo.set(key, p)
    }
  }
  if (todo.size < 2) return // one block: its message renders it as soon
  const blocks = [...todo.values()]
  const html = renderFresh(blocks)
  blocks.forEach((p, i) => cacheBlock(blockKey(lang, p), p, html[i]!))
}

// A sample with what model text commonly has: rendering it once, when the
// page is idle, compiles the renderer's and the sanitizer's code paths before
// the first conversation is opened (its first messages would pay for that).
const WARM_UP_SAMPLE = 'Warm **up** with `code`, a [link](https://example.com) and\n\n- a list\n- of items\n\n```js\nlet x = 1\n```\n'

/** Renders a sample once without keeping it (see WARM_UP_SAMPLE). */
export function warmUpMarkdown(): void {
  renderMarkdown(WARM_UP_SAMPLE)
}

/** Drops the cached block HTML (tests). */
export function clearMarkdownCache(): void {
  blockCache.clear()
  blockCacheChars = 0
}
