import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mount, type VueWrapper } from '@vue/test-utils'
import App from '../../App.vue'
import { setupEnv, settle, type TestEnv } from '../../test-utils'
import { useSettingsStore } from '../../stores/settings'
import { useConversationsStore } from '../../stores/conversations'
import { useEngineStore } from '../../stores/engine'

let env: TestEnv
let w: VueWrapper | null = null
beforeEach(() => {
  env = setupEnv()
})
afterEach(() => {
  w?.unmount()
  w = null
  document.body.innerHTML = ''
  document.documentElement.removeAttribute('data-theme')
  localStorage.clear()
})

async function mountApp() {
  w = mount(App, { global: { plugins: [env.pinia] }, attachTo: document.body })
  await settle()
  return w
}

const onboarding = (v: VueWrapper) => v.find('[data-testid="onboarding"]')

describe('Onboarding (first run / no model server)', () => {
  it('is shown inside the chat shell when the model server is unreachable, without a raw error', async () => {
    env.fake.reachable = false
    env.fake.unreachableMessage = 'Cannot reach the model server at http://127.0.0.1:11434/v1: dial tcp 127.0.0.1:11434: connect: connection refused'
    const v = await mountApp()
    expect(v.find('[data-testid="chat-shell"]').exists()).toBe(true)
    expect(v.find('textarea[aria-label="Message"]').exists()).toBe(true)
    const o = onboarding(v)
    expect(o.exists()).toBe(true)
    expect(v.find('[data-testid="chat-shell"]').element.contains(o.element)).toBe(true)
    expect(o.text()).toContain('Connect Parley to a local model')
    expect(o.find('[data-testid="pull-command"]').text()).toBe('ollama pull qwen3')
    expect(o.text()).toContain('LM Studio')
    expect(o.text()).not.toContain('dial tcp')
    expect(o.text()).not.toContain('connection refused')
    expect(o.find('[data-testid="try-demo"]').text()).toBe('Try the demo')
  })

  it('is not shown when the model server answers and a model is chosen', async () => {
    const v = await mountApp()
    expect(env.fake.callsOf('checkModelServer')).toHaveLength(1)
    expect(onboarding(v).exists()).toBe(false)
    expect(v.find('[data-testid="demo-badge"]').exists()).toBe(false)
  })

  it('is not shown when the status call itself fails (not a model server problem)', async () => {
    env.fake.failNext('checkModelServer', 'no such endpoint', 404)
    const v = await mountApp()
    expect(onboarding(v).exists()).toBe(false)
    expect(v.text()).not.toContain('no such endpoint')
  })

  it('Retry checks again, says so while still unreachable, and disappears once the server answers', async () => {
    env.fake.reachable = false
    const v = await mountApp()
    expect(env.fake.callsOf('checkModelServer')).toHaveLength(1)
    await onboarding(v).find('[data-testid="onboarding-retry"]').trigger('click')
    await settle()
    expect(env.fake.callsOf('checkModelServer')).toHaveLength(2)
    expect(v.find('[data-testid="still-unreachable"]').text()).toContain('http://127.0.0.1:11434/v1')

    env.fake.reachable = true
    await onboarding(v).find('[data-testid="onboarding-retry"]').trigger('click')
    await settle()
    expect(env.fake.callsOf('checkModelServer')).toHaveLength(3)
    expect(onboarding(v).exists()).toBe(false)
    expect(v.find('.empty h2').text()).toContain('Ask anything')
  })

  it('"Try the demo" saves demo_mode (and onboarded), hides it and shows the Demo mode badge', async () => {
    env.fake.reachable = false
    env.fake.settings.onboarded = false
    const v = await mountApp()
    expect(v.find('[data-testid="demo-badge"]').exists()).toBe(false)
    await onboarding(v).find('[data-testid="try-demo"]').trigger('click')
    await settle()
    const saves = env.fake.callsOf('saveSettings')
    expect(saves).toHaveLength(1)
    expect(saves[0]![0]).toMatchObject({ demo_mode: true, onboarded: true, base_url: 'http://127.0.0.1:11434/v1', model: 'qwen3' })
    expect(onboarding(v).exists()).toBe(false)
    expect(v.find('[data-testid="demo-badge"] .demo-badge-more').text()).toBe('Demo mode')
    expect(v.find('textarea[aria-label="Message"]').exists()).toBe(true)
  })

  it('asks to choose a model when the server answers but none is chosen', async () => {
    env.fake.settings.model = ''
    const v = await mountApp()
    const o = onboarding(v)
    expect(o.text()).toContain('Choose a model')
    const buttons = o.findAll('[data-testid="onboarding-models"] button')
    expect(buttons.map((b) => b.find('.model-name').text())).toEqual(['qwen3', 'llama3.2', 'gemma2'])
    expect(buttons[0]!.text()).toContain('supports tools')
    expect(buttons[2]!.text()).not.toContain('supports tools')
    await buttons[1]!.trigger('click')
    await settle()
    expect(env.fake.callsOf('saveSettings')[0]![0]).toMatchObject({ model: 'llama3.2', onboarded: true })
    expect(onboarding(v).exists()).toBe(false)
  })

  it('opens Settings; saving a reachable server there makes it disappear', async () => {
    env.fake.reachable = false
    const v = await mountApp()
    await onboarding(v).find('[data-testid="onboarding-settings"]').trigger('click')
    await settle()
    expect(v.find('[data-testid="settings-panel"]').exists()).toBe(true)
    await v.find('[data-testid="preset-lmstudio"]').setValue(true)
    env.fake.reachable = true // LM Studio is running at that address
    await v.find('[data-testid="settings-save"]').trigger('click')
    await settle()
    expect(env.fake.settings.base_url).toBe('http://127.0.0.1:1234/v1')
    expect(v.find('[data-testid="settings-panel"]').exists()).toBe(false)
    expect(onboarding(v).exists()).toBe(false)
  })

  it('is a compact banner above an open conversation instead of hiding it', async () => {
    env.fake.reachable = false
    env.fake.addConversation({ id: 'c1', title: 'Trip' })
    env.fake.addMessage('c1', { role: 'user', content: 'Plan Lisbon' })
    const v = await mountApp()
    await useConversationsStore().select('c1')
    await settle()
    const o = onboarding(v)
    expect(o.attributes('data-compact')).toBe('true')
    expect(v.find('[data-testid="user-message"]').text()).toBe('Plan Lisbon')
    await o.find('[data-testid="try-demo"]').trigger('click')
    await settle()
    expect(useSettingsStore().settings!.demo_mode).toBe(true)
    expect(onboarding(v).exists()).toBe(false)
  })

  it('offers the built-in engine first: downloads the suggested model with progress here, then uses it and continues', async () => {
    env.fake.reachable = false
    env.fake.settings.onboarded = false
    const v = await mountApp()
    const o = onboarding(v)
    const builtin = o.find('[data-testid="onboarding-builtin"]')
    const server = o.find('[data-testid="onboarding-server"]')
    // The built-in engine comes first, the model server second (as it was).
    expect(builtin.element.compareDocumentPosition(server.element) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy()
    expect(builtin.find('h3').text()).toBe("Use Parley's built-in engine")
    expect(server.find('h3').text()).toBe('I already run a model server')
    expect(server.text()).toContain('Connect Parley to a local model')
    expect(o.find('[data-testid="onboarding-suggestion"]').attributes('data-entry')).toBe('qwen3-1.7b')
    const button = o.find('[data-testid="onboarding-download"]')
    expect(button.text()).toBe('Download Qwen3 1.7B (1 GB)')
    await button.trigger('click')
    await settle()
    const id = env.fake.engineLibrary.downloads[0]!.id
    env.fake.engineLibrary.progress(id, 555_000_000)
    await settle()
    const row = onboarding(v).find('[data-testid="engine-download"]')
    expect(row.find('[role="progressbar"]').attributes('aria-valuenow')).toBe('50')
    expect(row.find('[data-testid="engine-download-pause"]').exists()).toBe(true)
    expect(env.fake.callsOf('saveSettings')).toHaveLength(0)

    env.fake.engineLibrary.complete(id)
    await settle()
    const saves = env.fake.callsOf('saveSettings')
    expect(saves).toHaveLength(1)
    expect(saves[0]![0]).toMatchObject({ engine: 'builtin', model: 'Qwen3-1.7B-Q4_K_M', onboarded: true })
    expect(onboarding(v).exists()).toBe(false)
    expect(v.find('textarea[aria-label="Message"]').exists()).toBe(true)
  })

  it('with the built-in engine and no model: uses an installed one, or goes back to a model server', async () => {
    env.fake.settings.engine = 'builtin'
    env.fake.settings.model = ''
    env.fake.engineLibrary.files.set('/models/mine.gguf', true)
    env.fake.engineLibrary.import('/models/mine.gguf')
    const v = await mountApp()
    const o = onboarding(v)
    expect(o.find('[data-testid="onboarding-server"]').text()).not.toContain('Parley found your model server')
    const installed = o.findAll('[data-testid="onboarding-installed"] button')
    expect(installed.map((b) => b.text())).toEqual(['mine'])
    await o.find('[data-testid="onboarding-use-server"]').trigger('click')
    await settle()
    expect(env.fake.settings.engine).toBe('server')
    // Back on the model server's path: its models to choose from.
    expect(onboarding(v).find('[data-testid="onboarding-models"]').exists()).toBe(true)
    expect(onboarding(v).text()).toContain('Choose a model')
    env.fake.settings.engine = 'builtin'
    await useSettingsStore().load()
    await useSettingsStore().check()
    await settle()
    await onboarding(v).findAll('[data-testid="onboarding-installed"] button')[0]!.trigger('click')
    await settle()
    expect(env.fake.settings).toMatchObject({ engine: 'builtin', model: 'mine' })
    expect(onboarding(v).exists()).toBe(false)
  })

  it('suggests no model that needs more memory than the machine has (as Go reads it), nor offers such an installed one', async () => {
    env.fake.settings.engine = 'builtin'
    env.fake.settings.model = ''
    env.fake.settings.onboarded = false
    // 1 GB: the catalogue's chat model needs about 1.9 GB.
    env.fake.engineLibrary.memory = { total: 2 ** 30, available: 2 ** 29 }
    for (const [path, ram] of [['/models/small.gguf', 0.5 * 2 ** 30], ['/models/huge.gguf', 3 * 2 ** 30]] as const) {
      env.fake.engineLibrary.files.set(path, true)
      env.fake.engineLibrary.import(path)
      env.fake.engineLibrary.models.find((m) => m.source.path === path)!.ram = ram
    }
    const v = await mountApp()
    expect(onboarding(v).find('[data-testid="onboarding-suggestion"]').exists()).toBe(false)
    expect(onboarding(v).findAll('[data-testid="onboarding-installed"] button').map((b) => b.text())).toEqual(['small'])

    // Allowed in Settings → Models ("Load anyway"): offered; a machine
    // with more memory gets the catalogue's suggestion.
    env.fake.engineLibrary.setAllowLarge('huge', true)
    await useEngineStore().load()
    await settle()
    expect(onboarding(v).findAll('[data-testid="onboarding-installed"] button').map((b) => b.text())).toEqual(['small', 'huge'])
    expect(onboarding(v).find('[data-testid="onboarding-suggestion"]').exists()).toBe(false)
    env.fake.engineLibrary.memory = { total: 64 * 2 ** 30, available: 32 * 2 ** 30 }
    await useEngineStore().load()
    await settle()
    expect(onboarding(v).find('[data-testid="onboarding-suggestion"]').attributes('data-entry')).toBe('qwen3-1.7b')
  })
})
