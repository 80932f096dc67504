// Rendered Markdown blocks handed from a reply that stopped streaming to the
// message that replaces it (SPEC §5: the finished reply lands where the
// streamed one was). The streaming bubble and the stored message are two
// components, so without this the finished message parses and lays out the
// whole reply again (for a long reply, one task of tens of milliseconds when
// the stream ends). With it, the message takes the very elements the bubble
// showed: nothing is parsed again, and their remembered sizes (the blocks
// out of view are `content-visibility: auto`) spare the layout of the ones
// out of view.
//
// The bubble goes away and the message comes in the same Vue flush (one
// store change); elements left over are dropped once the flush is done.

const pool = new Map<string, HTMLElement[]>()
let dropScheduled = false

/** Offers a block element, showing `html`, to a MarkdownContent mounted in this flush. */
export function handOverBlock(html: string, el: HTMLElement): void {
  const list = pool.get(html)
  if (list) list.push(el)
  else pool.set(html, [el])
  if (!dropScheduled) {
    dropScheduled = true
    // Vue's flush (its post-mount hooks included) runs in one microtask: this one comes after it.
    queueMicrotask(() => {
      dropScheduled = false
      pool.clear()
    })
  }
}

/** A block element showing `html` handed over in this flush, if there is one. */
export function takeHandedBlock(html: string): HTMLElement | undefined {
  const list = pool.get(html)
  const el = list?.shift()
  if (list && !list.length) pool.delete(html)
  return el
}
