// The fixed texts (no values) come from a cache per language: translated
// once, and again after a switch; templates' $t shows the new language.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { defineComponent, nextTick } from 'vue'
import { mount } from '@vue/test-utils'
import { i18n, setLanguage, t } from './index'

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

  it('texts with values are formatted each time, with those values', () => {
    const translate = vi.spyOn(i18n.global, 't')
    expect(t('chat.list.showEarlier', { n: 3, total: 7 })).not.toBe(t('chat.list.showEarlier', { n: 5, total: 7 }))
    expect(translate).toHaveBeenCalledTimes(2)
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
