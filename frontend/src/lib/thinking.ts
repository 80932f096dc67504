// Thinking models (SPEC §9): how long a reply thought, said as the chat says
// it, and the thinking cut into pieces the page lays out one by one.
import { t } from '../i18n'
import { formatSeconds } from '../i18n/format'

/** "12 sec", "2 min 5 sec", "less than a second", in the interface's language (Intl units). */
export function thoughtFor(ms: number): string {
  return Math.round(Math.max(0, ms) / 1000) < 1 ? t('chat.thinking.lessThanSecond') : formatSeconds(ms)
}

/** The label of a thinking block that is done. */
export function thoughtLabel(ms: number | undefined): string {
  return t('chat.thinking.thoughtFor', { time: thoughtFor(ms ?? 0) })
}

/**
 * The longest piece of thinking laid out as one block: a paragraph longer
 * than this goes on in the next block, so that text growing at its end lays
 * out again only its last block, never the whole thinking.
 */
export const THINKING_PIECE = 2000

/** Thinking cut at blank lines, and long paragraphs cut into pieces of at most THINKING_PIECE characters. */
export function thinkingPieces(text: string): string[] {
  const out: string[] = []
  for (const para of text.split(/\n{2,}/)) {
    if (!para.trim()) continue
    for (let i = 0; i < para.length; i += THINKING_PIECE) out.push(para.slice(i, i + THINKING_PIECE))
  }
  return out
}

/**
 * Appends growing thinking to an element, one block per piece: each call
 * adds the text since the last one, to the last block or to new ones, and
 * never touches the blocks before (the page lays out the new text only).
 * Text goes in as text nodes: model text never becomes markup.
 */
export class ThinkingAppender {
  private shown = 0
  private last: Text | null = null
  private lastLength = 0
  private heldNewline = false

  constructor(private readonly el: HTMLElement) {}

  /** Shows `text` (the whole thinking so far; it only grows). */
  show(text: string): void {
    if (text.length < this.shown) this.reset()
    let add = text.slice(this.shown)
    this.shown = text.length
    if (this.heldNewline) {
      add = '\n' + add
      this.heldNewline = false
    }
    // A lone newline at the end may be the first of a blank line.
    if (add.endsWith('\n') && !add.endsWith('\n\n')) {
      add = add.slice(0, -1)
      this.heldNewline = true
    }
    let i = 0
    while (i < add.length) {
      const blank = add.indexOf('\n\n', i)
      const end = blank < 0 ? add.length : blank
      this.write(add.slice(i, end))
      if (blank < 0) break
      this.last = null // the next text starts a new paragraph
      i = blank + 2
      while (add[i] === '\n') i++
    }
  }

  private write(text: string): void {
    let rest = text
    while (rest) {
      if (!this.last || this.lastLength >= THINKING_PIECE) {
        if (!this.last) {
          rest = rest.replace(/^\n+/, '') // the rest of a blank line
          if (!rest.trim()) return
        }
        const p = document.createElement('p')
        p.className = 'thinking-piece'
        this.last = document.createTextNode('')
        p.appendChild(this.last)
        this.el.appendChild(p)
        this.lastLength = 0
      }
      const room = THINKING_PIECE - this.lastLength
      const part = rest.slice(0, room)
      this.last.appendData(part)
      this.lastLength += part.length
      rest = rest.slice(part.length)
    }
  }

  private reset(): void {
    this.el.replaceChildren()
    this.shown = 0
    this.last = null
    this.lastLength = 0
    this.heldNewline = false
  }
}
