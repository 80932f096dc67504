import { describe, expect, it } from 'vitest'
import { mount } from '@vue/test-utils'
import { createPinia } from 'pinia'
import App from './App.vue'

describe('App', () => {
  it('shows the Parley chat shell with a disabled Send until text is typed', async () => {
    const wrapper = mount(App, { global: { plugins: [createPinia()] } })
    expect(wrapper.find('[data-testid="chat-shell"]').exists()).toBe(true)
    expect(wrapper.text()).toContain('Parley')
    const send = wrapper.find('button[type="submit"]')
    expect(send.attributes('disabled')).toBeDefined()
    await wrapper.find('textarea').setValue('hello')
    expect(send.attributes('disabled')).toBeUndefined()
  })
})
