// The fixed texts (no values) come from a cache per language: translated
// once, and again after a switch; templates' $t shows the new language.
// Texts with plain values likewise, per language, key and values.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { defineComponent, nextTick } from 'vue'
import { mount } from '@vue/test-utils'
import { i18n, setLanguage, t, VALUE_TEXTS_MAX } from './index'

afterEach(async () => {
  vi.restoreAllMocks()
  await setLanguage('en')
})

describe('fixed texts', () => {
  it('are translated once per language, and again in a new one', async () => {
    const translate = vi.spyOn(i18n.global, 't')
    const calls = () => translate.mock.calls.length
    expect(t('common.send')).toBe('Send')
    const once = calls()
    expect(t('common.send')).toBe('Send')
    expect(calls()).toBe(once)
    await setLanguage('de')
    expect(t('common.send')).toBe('Senden')
    expect(calls()).toBe(once + 1)
    expect(t('common.send')).toBe('Senden')
    expect(calls()).toBe(once + 1)
  })

  it('texts with values are formatted once per language and values', async () => {
    const translate = vi.spyOn(i18n.global, 't')
    const three = t('chat.list.showEarlier', { n: 3, total: 7 })
    expect(three).not.toBe(t('chat.list.showEarlier', { n: 5, total: 7 }))
    expect(translate).toHaveBeenCalledTimes(2)
    expect(t('chat.list.showEarlier', { n: 3, total: 7 })).toBe(three)
    expect(translate).toHaveBeenCalledTimes(2)
    // Another value, or the same digits as text, is another text.
    expect(t('chat.list.showEarlier', { n: 3, total: 8 })).not.toBe(three)
    expect(translate).toHaveBeenCalledTimes(3)
    t('chat.list.showEarlier', { n: '3', total: 7 })
    expect(translate).toHaveBeenCalledTimes(4)
    await setLanguage('de')
    const de = t('chat.list.showEarlier', { n: 3, total: 7 })
    expect(de).not.toBe(three)
    expect(translate).toHaveBeenCalledTimes(5)
  })

  it('a value that is not plain text, a number or true/false is formatted each time', () => {
    const translate = vi.spyOn(i18n.global, 't')
    expect(t('chat.list.showEarlier', { n: 3n, total: 71 })).toBe(t('chat.list.showEarlier', { n: 3, total: 71 }))
    expect(translate).toHaveBeenCalledTimes(2)
    t('chat.list.showEarlier', { n: 3n, total: 71 })
    t('chat.list.showEarlier', { n: 3, total: 71 })
    expect(translate).toHaveBeenCalledTimes(3)
  })

  it('the cache of texts with values starts again when full', () => {
    const translate = vi.spyOn(i18n.global, 't')
    for (let i = 0; i <= VALUE_TEXTS_MAX; i++) t('chat.list.showEarlier', { n: i, total: 99999 })
    expect(translate).toHaveBeenCalledTimes(VALUE_TEXTS_MAX + 1)
    // The first was dropped when the cache filled; the last is kept.
    t('chat.list.showEarlier', { n: VALUE_TEXTS_MAX, total: 99999 })
    expect(translate).toHaveBeenCalledTimes(VALUE_TEXTS_MAX + 1)
    t('chat.list.showEarlier', { n: 0, total: 99999 })
    expect(translate).toHaveBeenCalledTimes(VALUE_TEXTS_MAX + 2)
  })

  it('a template shows the new language after a switch', async () => {
    const Label = defineComponent({ template: '<p>{{ $t("common.send") }} · {{ $t("chat.list.showEarlier", { n: 2, total: 9 }) }}</p>' })
    const w = mount(Label)
    expect(w.text()).toMatch(/^Send · .*2/)
    await setLanguage('de')
    await nextTick()
    expect(w.text()).toMatch(/^Senden · .*2/)
    w.unmount()
  })
})
