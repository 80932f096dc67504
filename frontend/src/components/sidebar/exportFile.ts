// Saving an exported conversation in a browser: a file name from the title
// and a Blob download. (The desktop app saves through Go's own dialog.)
import type { ExportFormat } from '../../types'

/** Characters file systems refuse or treat specially, and control characters. */
const UNSAFE = /[\\/:*?"<>|\u0000-\u001f\u007f]+/g

/** `<title>.md` or `<title>.json`, safe as a file name on every OS. */
export function exportFileName(title: string | undefined, format: ExportFormat): string {
  let base = (title ?? '').replace(UNSAFE, ' ').replace(/\s+/g, ' ').trim()
  base = base.replace(/^[.\s]+|[.\s]+$/g, '')
  if ([...base].length > 100) base = [...base].slice(0, 100).join('').trim()
  if (!base) base = 'conversation'
  return `${base}.${format === 'json' ? 'json' : 'md'}`
}

/** Starts a download of `content` named `fileName`. */
export function downloadText(content: string, fileName: string, mimeType: string, doc: Document = document): void {
  const blob = new Blob([content], { type: mimeType.includes('charset') ? mimeType : `${mimeType};charset=utf-8` })
  const url = URL.createObjectURL(blob)
  const a = doc.createElement('a')
  a.href = url
  a.download = fileName
  a.rel = 'noopener'
  a.style.display = 'none'
  doc.body.appendChild(a)
  a.click()
  a.remove()
  // Let the browser start reading the blob before it goes.
  setTimeout(() => URL.revokeObjectURL(url), 30_000)
}
