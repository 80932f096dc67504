// Model Markdown as plain text, for screen-reader announcements.
import { renderMarkdown } from './markdown'

/** The text a reader sees in the rendered reply (code blocks' headers left out), on one line. */
export function markdownToText(src: string): string {
  const html = renderMarkdown(src)
  if (!html) return ''
  const doc = new DOMParser().parseFromString(html, 'text/html')
  doc.querySelectorAll('.code-head').forEach((el) => el.remove())
  doc.querySelectorAll('li').forEach((li) => li.prepend(' '))
  return (doc.body.textContent ?? '').replace(/\s+/g, ' ').trim()
}
