import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mount, type VueWrapper } from '@vue/test-utils'
import SettingsPanel from './SettingsPanel.vue'
import ChatShell from '../layout/ChatShell.vue'
import { setupEnv, settle, type TestEnv } from '../../test-utils'
import { connectEvents } from '../../stores/events'
import { useSettingsStore } from '../../stores/settings'
import { useAppStore } from '../../stores/app'

let env: TestEnv
let w: VueWrapper | null = null
let off: (() => void) | null = null

beforeEach(() => {
  env = setupEnv()
})
afterEach(() => {
  w?.unmount()
  w = null
  off?.()
  off = null
  document.body.innerHTML = ''
  document.documentElement.removeAttribute('data-theme')
  localStorage.clear()
})

async function mountPanel() {
  off = connectEvents()
  const settings = useSettingsStore()
  await settings.init()
  settings.openPanel()
  w = mount(SettingsPanel, { global: { plugins: [env.pinia] }, attachTo: document.body })
  await settle()
  return w
}

const url = (v: VueWrapper) => (v.find('[data-testid="base-url"]').element as HTMLInputElement).value
const checked = (v: VueWrapper, id: string) => (v.find(`[data-testid="${id}"]`).element as HTMLInputElement).checked

describe('SettingsPanel', () => {
  it('is a modal dialog showing the saved settings, models with a tools mark, version and data folder', async () => {
    const v = await mountPanel()
    const dialog = v.find('[role="dialog"]')
    expect(dialog.attributes('aria-modal')).toBe('true')
    expect(document.getElementById(dialog.attributes('aria-labelledby')!)!.textContent).toBe('Settings')
    expect(url(v)).toBe('http://127.0.0.1:11434/v1')
    expect(checked(v, 'preset-ollama')).toBe(true)
    const options = v.findAll('[data-testid="model-option"]')
    expect(options.map((o) => o.find('.model-name').text())).toEqual(['qwen3', 'llama3.2', 'gemma2'])
    expect(options.map((o) => o.find('[data-testid="supports-tools"]').exists())).toEqual([true, true, false])
    expect((options[0]!.find('input').element as HTMLInputElement).checked).toBe(true)
    expect((v.find('[data-testid="question-timeout"]').element as HTMLInputElement).value).toBe('300')
    const dataDir = v.find('[data-testid="data-dir"]')
    expect((dataDir.element as HTMLInputElement).value).toBe('/home/user/.config/parley')
    expect(dataDir.attributes('readonly')).toBeDefined()
    expect(v.find('[data-testid="version"]').text()).toBe('Parley fake')
    expect(v.find('[data-testid="api-enabled"]').exists()).toBe(true)
    expect(dialog.element.contains(document.activeElement)).toBe(true)
  })

  it('presets fill the server URL; editing the URL selects Custom', async () => {
    const v = await mountPanel()
    await v.find('[data-testid="preset-llamacpp"]').setValue(true)
    expect(url(v)).toBe('http://127.0.0.1:8080/v1')
    await v.find('[data-testid="preset-lmstudio"]').setValue(true)
    expect(url(v)).toBe('http://127.0.0.1:1234/v1')
    expect(checked(v, 'preset-lmstudio')).toBe(true)
    await v.find('[data-testid="preset-ollama"]').setValue(true)
    expect(url(v)).toBe('http://127.0.0.1:11434/v1')
    await v.find('[data-testid="base-url"]').setValue('http://192.168.1.20:8000/v1')
    expect(checked(v, 'preset-custom')).toBe(true)
    await v.find('[data-testid="api-key"]').setValue('sk-local')
    await v.find('[data-testid="preset-custom"]').setValue(true)
    expect(url(v)).toBe('http://192.168.1.20:8000/v1')

    await v.find('form').trigger('submit')
    await settle()
    const [sent] = env.fake.callsOf('saveSettings')[0] as [Record<string, unknown>]
    expect(Object.keys(sent).sort()).toEqual(
      [
        'agents_addr',
        'agents_enabled',
        'api_enabled',
        'api_key',
        'base_url',
        'language',

        'demo_mode',
        'embedding_model',
        'engine',
        'engine_models_dir',
        'engine_threads',
        'max_pending_questions',
        'memory',
        'model',
        'onboarded',
        'question_timeout_seconds',
        'rate_limit_seconds',
        'theme',
        'update_checks',
      ].sort(),
    )
    expect(sent).toMatchObject({ base_url: 'http://192.168.1.20:8000/v1', api_key: 'sk-local', model: 'qwen3', onboarded: true })
    expect(useSettingsStore().panelOpen).toBe(false)
  })

  it('shows the message of a rejected save inline and stays open', async () => {
    const v = await mountPanel()
    env.fake.failNext('saveSettings', 'model "qwen9" is not available on the server', 400)
    await v.find('[data-testid="model-name"]').setValue('qwen9')
    await v.find('[data-testid="settings-save"]').trigger('click')
    await settle()
    expect(env.fake.callsOf('saveSettings')).toHaveLength(1)
    const err = v.find('[data-testid="settings-error"]')
    expect(err.attributes('role')).toBe('alert')
    expect(err.text()).toBe('model "qwen9" is not available on the server')
    expect(useSettingsStore().panelOpen).toBe(true)
    expect(useSettingsStore().settings!.model).toBe('qwen3')
  })

  it('checks fields before saving and shows the Go validation message', async () => {
    const v = await mountPanel()
    await v.find('[data-testid="question-timeout"]').setValue('')
    await v.find('form').trigger('submit')
    await settle()
    expect(v.find('[data-testid="settings-error"]').text()).toContain('Question timeout must be a whole number')
    expect(env.fake.callsOf('saveSettings')).toHaveLength(0)
    await v.find('[data-testid="question-timeout"]').setValue('0')
    await v.find('form').trigger('submit')
    await settle()
    expect(env.fake.callsOf('saveSettings')[0]![0]).toMatchObject({ question_timeout_seconds: 0 })
  })

  it('applies the theme at once, reverts it on Cancel and keeps it on Save', async () => {
    const v = await mountPanel()
    const app = useAppStore()
    await v.find('[data-testid="theme-dark"]').setValue(true)
    expect(document.documentElement.getAttribute('data-theme')).toBe('dark')
    expect(app.theme).toBe('dark')
    await v.find('[data-testid="settings-cancel"]').trigger('click')
    expect(document.documentElement.hasAttribute('data-theme')).toBe(false)
    expect(app.theme).toBe('system')
    w!.unmount()

    useSettingsStore().openPanel()
    w = mount(SettingsPanel, { global: { plugins: [env.pinia] }, attachTo: document.body })
    await settle()
    await w.find('[data-testid="theme-light"]').setValue(true)
    expect(document.documentElement.getAttribute('data-theme')).toBe('light')
    await w.find('form').trigger('submit')
    await settle()
    expect(env.fake.settings.theme).toBe('light')
    expect(document.documentElement.getAttribute('data-theme')).toBe('light')
    expect(localStorage.getItem('parley.theme')).toBe('light')
  })

  it('pulls an Ollama model with a progress bar fed by model:pull events', async () => {
    const v = await mountPanel()
    await v.find('[data-testid="pull-name"]').setValue('llama3.2:1b')
    await v.find('[data-testid="pull"]').trigger('click')
    await settle()
    expect(env.fake.callsOf('pullModel')).toEqual([[{ model: 'llama3.2:1b' }]])
    expect(env.fake.pulls).toHaveLength(1)
    const bar = () => v.find('[role="progressbar"]')
    expect(v.find('[data-testid="pull"]').attributes('disabled')).toBeDefined()

    env.fake.pulls[0]!.progress('pulling manifest')
    await settle()
    expect(bar().attributes('aria-valuenow')).toBeUndefined()
    expect(v.find('[data-testid="pull-status"]').text()).toContain('pulling manifest')

    env.fake.pulls[0]!.progress('pulling 6a0746a1ec1a', 1000, 250)
    await settle()
    expect(bar().attributes('aria-valuenow')).toBe('25')
    expect(v.find('[data-testid="pull-bar"]').attributes('style')).toContain('width: 25%')

    // another model's progress is not ours
    env.fake.emit('model:pull', { conversationId: '', model: 'other', status: 'downloading', total: 10, completed: 9 })
    await settle()
    expect(bar().attributes('aria-valuenow')).toBe('25')
    env.fake.pulls[0]!.progress('pulling 6a0746a1ec1a', 1000, 800)
    await settle()
    expect(bar().attributes('aria-valuenow')).toBe('80')
    expect(v.find('[data-testid="pull-status"]').text()).toBe('llama3.2:1b: pulling 6a0746a1ec1a (80%)')

    const checksBefore = env.fake.callsOf('checkModelServer').length
    env.fake.pulls[0]!.resolve()
    await settle()
    expect(bar().attributes('aria-valuenow')).toBe('100')
    expect(v.find('[data-testid="pull-status"]').text()).toBe('Downloaded llama3.2:1b.')
    expect(env.fake.callsOf('checkModelServer').length).toBe(checksBefore + 1)
    const picked = v.findAll('[data-testid="model-option"]').find((o) => o.text().includes('llama3.2:1b'))!
    expect((picked.find('input').element as HTMLInputElement).checked).toBe(true)
  })

  it('shows a failed pull in words', async () => {
    const v = await mountPanel()
    await v.find('[data-testid="pull-name"]').setValue('nope')
    await v.find('[data-testid="pull"]').trigger('click')
    await settle()
    env.fake.pulls[0]!.reject('pull model manifest: file does not exist', 502)
    await settle()
    const status = v.find('[data-testid="pull-status"]')
    expect(status.attributes('role')).toBe('alert')
    expect(status.text()).toBe("Couldn't download nope: pull model manifest: file does not exist")
    expect(v.find('[data-testid="pull"]').attributes('disabled')).toBeUndefined()
  })

  it('opens from the gear button, keeps Tab inside, and Esc closes it and returns focus', async () => {
    off = connectEvents()
    await useSettingsStore().init()
    w = mount(ChatShell, { global: { plugins: [env.pinia] }, attachTo: document.body })
    await settle()
    const gear = w.find('[data-testid="settings-button"]')
    expect(gear.attributes('aria-label')).toBe('Settings')
    ;(gear.element as HTMLElement).focus()
    await gear.trigger('click')
    await settle()
    const panel = w.find('[data-testid="settings-panel"]')
    expect(panel.exists()).toBe(true)
    expect(panel.element.contains(document.activeElement)).toBe(true)

    const focusable = [...panel.element.querySelectorAll<HTMLElement>('button, input, [href]')].filter((el) => !(el as HTMLButtonElement).disabled)
    focusable.at(-1)!.focus()
    await w.find('[role="dialog"]').trigger('keydown', { key: 'Tab' })
    expect(document.activeElement).toBe(focusable[0])
    await w.find('[role="dialog"]').trigger('keydown', { key: 'Tab', shiftKey: true })
    expect(document.activeElement).toBe(focusable.at(-1))
    // focus that escapes the dialog is pulled back
    ;(w.find('textarea[aria-label="Message"]').element as HTMLElement).focus()
    expect(panel.element.contains(document.activeElement)).toBe(true)

    await w.find('[role="dialog"]').trigger('keydown', { key: 'Escape' })
    await settle()
    expect(w.find('[data-testid="settings-panel"]').exists()).toBe(false)
    expect(document.activeElement).toBe(gear.element)
    expect(w.find('[data-testid="chat-shell"]').exists()).toBe(true)
  })

  it('Esc closes it even when focus is on the page body', async () => {
    const v = await mountPanel()
    ;(document.activeElement as HTMLElement | null)?.blur()
    document.body.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }))
    await settle()
    expect(useSettingsStore().panelOpen).toBe(false)
    expect(v.exists()).toBe(true)
  })

  it('Connect saves a new server address and lists its models', async () => {
    const v = await mountPanel()
    env.fake.models = [{ name: 'Qwen3-8B-Q4_K_M.gguf', supports_tools: true }]
    await v.find('[data-testid="preset-llamacpp"]').setValue(true)
    expect(v.find('[data-testid="connect"]').exists()).toBe(true)
    await v.find('[data-testid="connect"]').trigger('click')
    await settle()
    expect(env.fake.settings.base_url).toBe('http://127.0.0.1:8080/v1')
    expect(v.find('[data-testid="connect"]').exists()).toBe(false)
    expect(v.findAll('[data-testid="model-option"]').map((o) => o.find('.model-name').text())).toContain('Qwen3-8B-Q4_K_M.gguf')
    expect(v.find('[data-testid="pull"]').exists()).toBe(false)
  })
})
