// Files the user adds to the composer (drop, paste, paperclip): read into
// attachments, with the limits and kinds the backend accepts (checked here
// so a clear message comes before sending; the backend checks again).
import type { Attachment, ModelInfo } from '../types'
import { LIMITS } from '../api/wire.gen'
import { formatSize, INLINE_IMAGE_TYPES } from './attachments'
import { t } from '../i18n'

/** A file read for sending, or why it cannot be sent. */
export type ReadResult = { ok: true; attachment: Attachment } | { ok: false; error: string }

function base64(bytes: Uint8Array): string {
  let s = ''
  const chunk = 0x8000
  for (let i = 0; i < bytes.length; i += chunk) s += String.fromCharCode(...bytes.subarray(i, i + chunk))
  return btoa(s)
}

async function bytesOf(file: Blob): Promise<Uint8Array> {
  if (typeof file.arrayBuffer === 'function') return new Uint8Array(await file.arrayBuffer())
  return new Promise((ok, fail) => {
    const r = new FileReader()
    r.onload = () => ok(new Uint8Array(r.result as ArrayBuffer))
    r.onerror = () => fail(r.error ?? new Error('could not read the file'))
    r.readAsArrayBuffer(file)
  })
}

/** UTF-8 text without NUL bytes (what the backend takes as a text file). */
export function isText(bytes: Uint8Array): boolean {
  if (bytes.includes(0)) return false
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes)
    return true
  } catch {
    return false
  }
}

/** The image type from the file's first bytes, or null. */
export function sniffImage(b: Uint8Array): string | null {
  const at = (i: number, ...v: number[]) => v.every((x, j) => b[i + j] === x)
  if (at(0, 0x89, 0x50, 0x4e, 0x47)) return 'image/png'
  if (at(0, 0xff, 0xd8, 0xff)) return 'image/jpeg'
  if (at(0, 0x47, 0x49, 0x46, 0x38)) return 'image/gif'
  if (at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50)) return 'image/webp'
  return null
}

/** Reads one file; an error names the file and says what is accepted. */
export async function readAttachment(file: File, name = file.name || t('chat.files.pasted')): Promise<ReadResult> {
  const declaredImage = (file.type || '').startsWith('image/')
  if (file.size > LIMITS.maxImageBytes || (!declaredImage && file.size > LIMITS.maxTextFileBytes)) {
    const max = declaredImage ? LIMITS.maxImageBytes : LIMITS.maxTextFileBytes
    return { ok: false, error: t(declaredImage ? 'chat.files.imageTooLarge' : 'chat.files.textTooLarge', { name, size: formatSize(file.size), max: formatSize(max) }) }
  }
  let bytes: Uint8Array
  try {
    bytes = await bytesOf(file)
  } catch (err) {
    return { ok: false, error: t('chat.files.readFailed', { name, error: err instanceof Error ? err.message : String(err) }) }
  }
  const image = sniffImage(bytes)
  if (image || declaredImage) {
    if (!image || !INLINE_IMAGE_TYPES.includes(image)) {
      return { ok: false, error: t('chat.files.badImage', { name }) }
    }
    return { ok: true, attachment: { name, mime_type: image, size: bytes.length, data: base64(bytes) } }
  }
  if (!isText(bytes)) {
    return {
      ok: false,
      error: t('chat.files.badType', { name }),
    }
  }
  if (bytes.length > LIMITS.maxTextFileBytes) {
    return { ok: false, error: t('chat.files.textTooLarge', { name, size: formatSize(bytes.length), max: formatSize(LIMITS.maxTextFileBytes) }) }
  }
  const mime = file.type && (file.type.startsWith('text/') || file.type.startsWith('application/')) ? file.type : 'text/plain'
  return { ok: true, attachment: { name, mime_type: mime, size: bytes.length, data: base64(bytes) } }
}

/** Why adding `next` to `current` would break a per-message limit, or null. */
export function limitError(current: Attachment[], next: Attachment): string | null {
  if (current.length >= LIMITS.maxAttachments) return t('chat.files.tooMany', { count: LIMITS.maxAttachments })
  const total = current.reduce((n, a) => n + a.size, 0) + next.size
  if (total > LIMITS.maxAttachmentsBytes) {
    return t('chat.files.tooLarge', { total: formatSize(total), max: formatSize(LIMITS.maxAttachmentsBytes) })
  }
  return null
}

export function isImage(a: Attachment): boolean {
  return INLINE_IMAGE_TYPES.includes(a.mime_type)
}

/** Why an image cannot go to `model` (null when it can, or when unknown). */
export function visionError(model: string, models: ModelInfo[]): string | null {
  if (!model) return null
  const strip = (n: string) => (n.includes(':', n.lastIndexOf('/') + 1) ? n : `${n}:latest`)
  const info = models.find((m) => m.name === model || strip(m.name) === strip(model))
  if (!info || info.supports_vision) return null
  return t('chat.files.noVision', { model })
}
