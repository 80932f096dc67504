import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { VueWrapper } from '@vue/test-utils'
import ChatShell from './ChatShell.vue'
import { mountInBody, resetDom, setupEnv, settle, type TestEnv } from '../../test-utils'
import { connectEvents } from '../../stores/events'
import { useConversationsStore } from '../../stores/conversations'
import { useSettingsStore } from '../../stores/settings'
import { OPEN_WINDOW, useChatStore } from '../../stores/chat'

let env: TestEnv
beforeEach(() => {
  env = setupEnv()
})
afterEach(resetDom)

async function shell(): Promise<VueWrapper> {
  env.fake.models = [
    { name: 'qwen3', supports_tools: true, supports_thinking: true },
    { name: 'llava', supports_tools: false, supports_vision: true },
  ]
  env.fake.addConversation({ id: 'c1', title: 'Gears', updated_at: new Date().toISOString() })
  env.fake.addMessage('c1', { role: 'user', content: 'how many teeth?' })
  env.fake.addMessage('c1', { role: 'assistant', content: 'Twelve.' })
  connectEvents()
  await useSettingsStore().init()
  await useConversationsStore().load()
  await useConversationsStore().select('c1')
  return mountInBody(ChatShell, env)
}

function press(key: string, init: KeyboardEventInit = {}, target: EventTarget = document.body): KeyboardEvent {
  const e = new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true, ...init })
  target.dispatchEvent(e)
  return e
}

describe('keyboard shortcuts', () => {
  it('Ctrl+N starts a new chat, Ctrl+K focuses search, Ctrl+, opens settings', async () => {
    const w = await shell()
    expect(press('k', { ctrlKey: true }).defaultPrevented).toBe(true)
    await settle()
    expect(document.activeElement).toBe(w.find('[data-testid="search"]').element)
    press('n', { ctrlKey: true })
    await settle()
    expect(useConversationsStore().currentId).toBeNull()
    expect(document.activeElement?.id).toBe('composer-input')
    press(',', { ctrlKey: true })
    await settle()
    expect(useSettingsStore().panelOpen).toBe(true)
  })

  it('? opens the shortcuts dialog (not while typing); Escape closes it', async () => {
    const w = await shell()
    press('?', { shiftKey: true }, document.getElementById('composer-input')!)
    await settle()
    expect(w.find('[data-testid="shortcuts-help"]').exists()).toBe(false)
    press('?', { shiftKey: true })
    await settle()
    const dialog = w.find('[data-testid="shortcuts-help"]')
    expect(dialog.attributes('role')).toBe('dialog')
    expect(dialog.text()).toContain('New chat')
    expect(dialog.text()).toContain('Ctrl+N')
    expect(dialog.text()).toContain('Edit your last message')
    expect(document.activeElement).toBe(w.find('[data-testid="shortcuts-close"]').element)
    press('Escape', {}, document.activeElement!)
    await settle()
    expect(w.find('[data-testid="shortcuts-help"]').exists()).toBe(false)
  })

  it('Ctrl+Shift+R regenerates the last reply; Escape stops a running reply', async () => {
    await shell()
    const reply = useChatStore().messagesFor('c1').at(-1)!
    press('R', { ctrlKey: true, shiftKey: true })
    await settle()
    expect(env.fake.callsOf('regenerate')).toEqual([[{ id: 'c1', message_id: reply.id }]])
    expect(useChatStore().isBusy('c1')).toBe(true)
    press('Escape')
    await settle()
    expect(env.fake.callsOf('cancel')).toEqual([[{ id: 'c1' }]])
  })

  it('the desktop menu runs the same actions', async () => {
    const handlers: Record<string, (a: unknown) => void> = {}
    ;(window as unknown as { runtime: unknown }).runtime = { EventsOn: (n: string, cb: (a: unknown) => void) => ((handlers[n] = cb), () => delete handlers[n]) }
    try {
      const w = await shell()
      handlers['menu:shortcut']!('help')
      await settle()
      expect(w.find('[data-testid="shortcuts-help"]').exists()).toBe(true)
    } finally {
      delete (window as unknown as { runtime?: unknown }).runtime
    }
  })

  it('the header switches the conversation model, marking tools, vision and thinking', async () => {
    const w = await shell()
    const select = w.find('[data-testid="chat-model-select"]')
    expect(select.findAll('option').map((o) => o.text())).toEqual(['Default model (qwen3)', 'qwen3 (tools, thinking)', 'llava (vision)'])
    await select.setValue('llava')
    await settle()
    expect(env.fake.callsOf('updateConversation')).toEqual([[{ id: 'c1', model: 'llava' }]])
    expect(useConversationsStore().byId('c1')?.model).toBe('llava')
  })

  it('the sidebar groups by day and shows a search hit with marks, opening its branch', async () => {
    const old = new Date(Date.now() - 30 * 86400_000).toISOString()
    env.fake.addConversation({ id: 'c0', title: 'Old one', updated_at: old })
    const w = await shell()
    expect(w.findAll('[data-testid="date-group"] h2').map((h) => h.text())).toEqual(['Today', 'Older'])
    await useConversationsStore().search('teeth')
    await settle()
    const snippet = w.find('[data-testid="search-snippet"]')
    expect(snippet.find('mark').text()).toBe('teeth')
    expect(snippet.text()).toBe('how many teeth?')
    await w.find('[data-testid="conversation-open"]').trigger('click')
    await settle()
    const userMsg = useChatStore().messagesFor('c1')[0]!
    expect(env.fake.callsOf('selectBranch')).toEqual([[{ id: 'c1', message_id: userMsg.id, last: OPEN_WINDOW }]])
  })
})
