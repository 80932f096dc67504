// Model text → safe HTML. markdown-it with raw HTML off (it is escaped), then
// DOMPurify as a second wall. Code is highlighted with highlight.js core and
// a few common languages; each block gets a Copy button (handled by
// MarkdownContent through event delegation, no inline scripts).
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
    `<button type="button" class="copy-code" data-copy-code="">Copy</button></div>` +
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

/** Sanitizes an HTML string (the last step of every render). */
export function sanitizeHtml(html: string): string {
  return DOMPurify.sanitize(html, PURIFY_CONFIG) as unknown as string
}

/** Renders model Markdown to sanitized HTML. */
export function renderMarkdown(src: string): string {
  if (!src) return ''
  return sanitizeHtml(md.render(src))
}
