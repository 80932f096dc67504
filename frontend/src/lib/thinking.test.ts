import { describe, expect, it } from 'vitest'
import { setLanguage } from '../i18n'
import { THINKING_PIECE, ThinkingAppender, thinkingPieces, thoughtFor, thoughtLabel } from './thinking'

describe('thinking', () => {
  it('says a thinking time with Intl units, in the interface language', async () => {
    expect(thoughtFor(0)).toBe('less than a second')
    expect(thoughtFor(499)).toBe('less than a second')
    expect(thoughtFor(12_400)).toBe('12 sec')
    expect(thoughtFor(59_600)).toBe('1 min')
    expect(thoughtFor(125_000)).toBe('2 min 5 sec')
    expect(thoughtLabel(undefined)).toBe('Thought for less than a second')
    expect(thoughtLabel(1800)).toBe('Thought for 2 sec')
    await setLanguage('de')
    try {
      expect(thoughtLabel(12_400)).toBe('12 Sek. nachgedacht')
      expect(thoughtFor(125_000)).toBe('2 Min. 5 Sek.')
      expect(thoughtFor(300)).toBe('weniger als eine Sekunde')
      await setLanguage('ja')
      expect(thoughtLabel(12_400)).toBe('12 秒考えました')
    } finally {
      await setLanguage('en')
    }
  })

  it('cuts thinking into paragraphs, and long paragraphs into pieces', () => {
    expect(thinkingPieces('First.\n\n\nSecond line\nstill second.\n\n  \n\nThird.')).toEqual(['First.', 'Second line\nstill second.', 'Third.'])
    const long = 'x'.repeat(THINKING_PIECE * 2 + 5)
    expect(thinkingPieces(long).map((p) => p.length)).toEqual([THINKING_PIECE, THINKING_PIECE, 5])
  })

  it('appends growing thinking as the pieces of the whole, however it is cut, as text only', () => {
    const words = ['Let', ' me', ' think', '.\n', '\nFirst', '\n\n', '\nThen', ' <b>bold?</b>', '\n', 'same para', '\n\n\n', 'x'.repeat(THINKING_PIECE + 10), ' end']
    let seed = 7
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed % n
    }
    for (let round = 0; round < 50; round++) {
      const el = document.createElement('div')
      const a = new ThinkingAppender(el)
      let text = ''
      const before: Element[] = []
      for (const w of words) {
        // cut each word once more at a random place
        const at = round < 8 ? round % (w.length + 1) : rand(w.length + 1)
        for (const part of [w.slice(0, at), w.slice(at)]) {
          text += part
          a.show(text)
          // blocks already there are never replaced
          for (const b of before) expect(el.contains(b)).toBe(true)
          before.splice(0, before.length, ...Array.from(el.children).slice(0, -1))
        }
      }
      expect(Array.from(el.children).map((p) => p.textContent)).toEqual(thinkingPieces(text))
      expect(el.querySelector('b')).toBeNull()
    }
  })

  it('starts again when the thinking is replaced by a shorter one', () => {
    const el = document.createElement('div')
    const a = new ThinkingAppender(el)
    a.show('one\n\ntwo')
    a.show('new')
    expect(Array.from(el.children).map((p) => p.textContent)).toEqual(['new'])
  })
})
