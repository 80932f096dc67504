// Attachments on messages (images an MCP tool returned, files a user
// attached): which may be shown inline and how. Only raster images of four
// types become data: URLs; SVG, HTML and anything else are never rendered,
// only named.
import type { Attachment } from '../types'
import { formatBytes } from '../i18n/format'

export const INLINE_IMAGE_TYPES: readonly string[] = ['image/png', 'image/jpeg', 'image/gif', 'image/webp']

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/

/** A data: URL for an attachment that may be shown as an image, else null. */
export function imageSrc(a: Attachment): string | null {
  const mime = (a.mime_type ?? '').toLowerCase().split(';')[0]!.trim()
  if (!INLINE_IMAGE_TYPES.includes(mime) || typeof a.data !== 'string') return null
  const data = a.data.replace(/\s+/g, '')
  if (!data || !BASE64.test(data)) return null
  return `data:${mime};base64,${data}`
}

/** "12 kB", "3.4 MB", "512 byte" in the current language's way (Intl). */
export function formatSize(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return ''
  return formatBytes(bytes)
}
