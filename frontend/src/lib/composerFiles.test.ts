import { describe, expect, it } from 'vitest'
import { limitError, readAttachment, visionError } from './composerFiles'
import { groupByDate, snippetParts } from './dateGroups'
import { actionFor } from './shortcuts'
import { LIMITS } from '../api/wire.gen'
import type { Conversation } from '../types'

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0])

describe('composer files', () => {
  it('reads a text file as base64 with its name and size', async () => {
    const res = await readAttachment(new File(['id,name\n1,Ada\n'], 'people.csv', { type: 'text/csv' }))
    expect(res).toEqual({ ok: true, attachment: { name: 'people.csv', mime_type: 'text/csv', size: 14, data: btoa('id,name\n1,Ada\n') } })
  })
  it('reads an image by its bytes', async () => {
    const res = await readAttachment(new File([PNG], 'shot.png', { type: '' }))
    expect(res.ok && res.attachment.mime_type).toBe('image/png')
  })
  it('refuses a binary that is not an image, and files over the limit, naming them', async () => {
    const bin = await readAttachment(new File([new Uint8Array([1, 2, 0, 3])], 'app.exe'))
    expect(bin).toEqual({ ok: false, error: expect.stringContaining('app.exe is neither a text file nor an image') })
    const big = await readAttachment(new File([new Uint8Array(LIMITS.maxTextFileBytes + 1).fill(97)], 'big.log'))
    expect(big).toEqual({ ok: false, error: expect.stringMatching(/^big\.log is 1\.0 MB; a text file can be at most 1\.0 MB/) })
    const svg = await readAttachment(new File(['<svg/>'], 'x.svg', { type: 'image/svg+xml' }))
    expect(svg.ok).toBe(false)
  })
  it('caps the number of files of a message', () => {
    const a = { name: 'a', mime_type: 'text/plain', size: 1 }
    expect(limitError(Array(LIMITS.maxAttachments).fill(a), a)).toMatch(/at most 8 files/)
    expect(limitError([a], a)).toBeNull()
  })
  it('refuses images for a model the server lists without vision', () => {
    const models = [{ name: 'qwen3:latest', supports_tools: true }, { name: 'llava', supports_tools: false, supports_vision: true }]
    expect(visionError('qwen3', models)).toMatch(/The model qwen3 cannot read images/)
    expect(visionError('llava', models)).toBeNull()
    expect(visionError('unknown', models)).toBeNull() // the server decides
  })
})

describe('sidebar helpers', () => {
  it('groups conversations by the day of their last activity', () => {
    const now = new Date(2026, 4, 20, 12, 0)
    const at = (d: number, h = 10) => new Date(2026, 4, d, h).toISOString()
    const c = (id: string, updated: string) => ({ id, title: id, assistant: '', pinned: false, created_at: updated, updated_at: updated }) as Conversation
    const groups = groupByDate([c('a', at(20, 1)), c('b', at(19, 23)), c('c', at(14)), c('d', at(2))], now)
    expect(groups.map((g) => [g.label, g.items.map((x) => x.id)])).toEqual([
      ['Today', ['a']],
      ['Yesterday', ['b']],
      ['Previous 7 days', ['c']],
      ['Older', ['d']],
    ])
  })
  it('splits a snippet at its marks, leaving markup as text', () => {
    expect(snippetParts('…the [[hydrogen]] cell <b>x</b> [[hydrogen]]')).toEqual([
      { text: '…the ', mark: false },
      { text: 'hydrogen', mark: true },
      { text: ' cell <b>x</b> ', mark: false },
      { text: 'hydrogen', mark: true },
    ])
    expect(snippetParts('unclosed [[mark')).toEqual([{ text: 'unclosed [[mark', mark: false }])
  })
})

describe('shortcut keys', () => {
  const key = (k: string, o: KeyboardEventInit = {}, target?: HTMLElement) => {
    const e = new KeyboardEvent('keydown', { key: k, ...o })
    if (target) Object.defineProperty(e, 'target', { value: target })
    return e
  }
  it('maps Ctrl (Cmd on a Mac) combinations and ? outside text fields', () => {
    expect(actionFor(key('n', { ctrlKey: true }), false)).toBe('new-chat')
    expect(actionFor(key('k', { metaKey: true }), true)).toBe('search')
    expect(actionFor(key('k', { ctrlKey: true }), true)).toBeNull()
    expect(actionFor(key(',', { ctrlKey: true }), false)).toBe('settings')
    expect(actionFor(key('R', { ctrlKey: true, shiftKey: true }), false)).toBe('regenerate')
    expect(actionFor(key('?', { shiftKey: true }, document.body), false)).toBe('help')
    expect(actionFor(key('?', { shiftKey: true }, document.createElement('textarea')), false)).toBeNull()
    expect(actionFor(key('n'), false)).toBeNull()
  })
})
