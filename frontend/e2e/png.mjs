// Reads the pixels of a PNG screenshot (8-bit RGB or RGBA, not interlaced:
// what Chromium and WebKitWebDriver produce), to check colours on screen.
import { inflateSync } from 'node:zlib'

export function decodePng(buf) {
  if (buf.readUInt32BE(0) !== 0x89504e47) throw new Error('not a PNG')
  let pos = 8
  let width, height, bitDepth, colorType, interlace
  const idat = []
  while (pos < buf.length) {
    const len = buf.readUInt32BE(pos)
    const type = buf.toString('latin1', pos + 4, pos + 8)
    const data = buf.subarray(pos + 8, pos + 8 + len)
    if (type === 'IHDR') {
      width = data.readUInt32BE(0)
      height = data.readUInt32BE(4)
      bitDepth = data[8]
      colorType = data[9]
      interlace = data[12]
    } else if (type === 'IDAT') idat.push(data)
    else if (type === 'IEND') break
    pos += 12 + len
  }
  const channels = { 2: 3, 6: 4 }[colorType]
  if (bitDepth !== 8 || !channels || interlace) throw new Error(`unsupported PNG: depth ${bitDepth}, colour type ${colorType}, interlace ${interlace}`)
  const raw = inflateSync(Buffer.concat(idat))
  const stride = width * channels
  const out = Buffer.alloc(height * stride)
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1))
    const row = out.subarray(y * stride, (y + 1) * stride)
    const prev = y ? out.subarray((y - 1) * stride, y * stride) : null
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? row[i - channels] : 0
      const b = prev ? prev[i] : 0
      const c = prev && i >= channels ? prev[i - channels] : 0
      let v = line[i]
      if (filter === 1) v += a
      else if (filter === 2) v += b
      else if (filter === 3) v += (a + b) >> 1
      else if (filter === 4) {
        const p = a + b - c
        const pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c)
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c
      }
      row[i] = v & 0xff
    }
  }
  return {
    width,
    height,
    /** [r, g, b] at (x, y) in image pixels. */
    pixel(x, y) {
      const i = Math.round(y) * stride + Math.round(x) * channels
      return [out[i], out[i + 1], out[i + 2]]
    },
  }
}

/** Relative luminance (WCAG) of an [r, g, b] colour. */
export function luminance([r, g, b]) {
  const lin = (v) => {
    const s = v / 255
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4
  }
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
}

/** WCAG contrast ratio of two colours. */
export function contrast(a, b) {
  const [l1, l2] = [luminance(a), luminance(b)].sort((x, y) => y - x)
  return (l1 + 0.05) / (l2 + 0.05)
}

/**
 * How a radio or checkbox at `rect` (CSS pixels; `scale` image pixels per CSS
 * pixel) looks in a screenshot: the colour it sits on (just left of it), the
 * colour inside it (its centre; for a checkbox a spot in its top-left part,
 * clear of the tick) and the strongest contrast any of its pixels has with
 * what it sits on (its ring or fill).
 */
export function controlLook(png, rect, { scale = 1, kind = 'radio' } = {}) {
  const px = (x, y) => png.pixel(x * scale, y * scale)
  const cy = rect.y + rect.height / 2
  const around = px(rect.x - 3, cy)
  let strongest = 1
  for (let y = rect.y; y < rect.y + rect.height; y += 1 / scale) {
    for (let x = rect.x; x < rect.x + rect.width; x += 1 / scale) strongest = Math.max(strongest, contrast(px(x, y), around))
  }
  const inside = kind === 'checkbox' ? px(rect.x + rect.width * 0.28, rect.y + rect.height * 0.28) : px(rect.x + rect.width / 2, cy)
  return { kind, around, inside, insideContrast: contrast(inside, around), strongest }
}

/**
 * Checks a control's look: its outline stands out (3:1); unchecked, its
 * inside is the colour it sits on (no light dot on the dark theme); checked,
 * its inside is filled and stands out.
 */
export function assertControlLook(assert, look, { checked, what }) {
  const info = `${what}: ${JSON.stringify(look)}`
  assert.ok(look.strongest >= 3, `the outline of ${info} stands out from what it sits on (3:1)`)
  if (checked) assert.ok(look.insideContrast >= 3, `the inside of checked ${info} is filled`)
  else assert.ok(look.insideContrast < 1.4, `the inside of unchecked ${info} is the colour it sits on, not a dot`)
}
