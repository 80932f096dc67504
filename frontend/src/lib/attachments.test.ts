import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { formatSize, imageSrc } from './attachments'
import MessageAttachments from '../components/chat/MessageAttachments.vue'
import { mountInBody, resetDom, setupEnv, type TestEnv } from '../test-utils'

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='

describe('imageSrc', () => {
  it('makes data: URLs only for PNG, JPEG, GIF and WebP with base64 data', () => {
    expect(imageSrc({ name: 'a.png', mime_type: 'image/png', size: 68, data: PNG })).toBe(`data:image/png;base64,${PNG}`)
    expect(imageSrc({ name: 'a.jpg', mime_type: 'IMAGE/JPEG', size: 1, data: 'AAAA' })).toBe('data:image/jpeg;base64,AAAA')
    expect(imageSrc({ name: 'a.webp', mime_type: 'image/webp', size: 1, data: 'AA\nAA' })).toBe('data:image/webp;base64,AAAA')
    expect(imageSrc({ name: 'a.svg', mime_type: 'image/svg+xml', size: 1, data: 'PHN2Zz4=' })).toBeNull()
    expect(imageSrc({ name: 'a.html', mime_type: 'text/html', size: 1, data: 'PGI+' })).toBeNull()
    expect(imageSrc({ name: 'a.png', mime_type: 'image/png', size: 1 })).toBeNull()
    expect(imageSrc({ name: 'a.png', mime_type: 'image/png', size: 1, data: 'AA"><script>' })).toBeNull()
  })

  it('formats sizes', () => {
    expect(formatSize(1)).toBe('1 byte')
    expect(formatSize(2048)).toBe('2 kB')
    expect(formatSize(3.5 * 1024 * 1024)).toBe('3.5 MB')
  })
})

describe('MessageAttachments', () => {
  let env: TestEnv
  beforeEach(() => {
    env = setupEnv()
  })
  afterEach(resetDom)

  it('shows images as thumbnails and everything else (SVG too) as name + size chips', async () => {
    const w = await mountInBody(
      {
        components: { MessageAttachments },
        template: '<MessageAttachments :attachments="list" />',
        data: () => ({
          list: [
            { name: 'chart.png', mime_type: 'image/png', size: 68, data: PNG },
            { name: 'logo.svg', mime_type: 'image/svg+xml', size: 2048, data: 'PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+' },
            { name: 'notes.txt', mime_type: 'text/plain', size: 12 },
          ],
        }),
      },
      env,
    )
    const imgs = w.findAll('img')
    expect(imgs).toHaveLength(1)
    expect(imgs[0]!.attributes('src')).toBe(`data:image/png;base64,${PNG}`)
    expect(imgs[0]!.attributes('alt')).toBe('chart.png')
    expect(w.findAll('[data-testid="attachment-file"]').map((c) => c.text().replace(/\s+/g, ' '))).toEqual(['logo.svg image/svg+xml · 2 kB', 'notes.txt text/plain · 12 bytes'])
    expect(document.body.innerHTML).not.toContain('<svg')
    const thumb = w.find('[data-testid="attachment-image"]')
    await thumb.trigger('click')
    expect(thumb.attributes('aria-expanded')).toBe('true')
  })
})
