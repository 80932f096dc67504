// Settings opens at once, whatever the backend is doing: the slow parts
// (saved settings, the model server's status and models, profiles, app info)
// fill in when they arrive. And in demo mode the panel says which model
// answers.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mount, type VueWrapper } from '@vue/test-utils'
import SettingsPanel from './SettingsPanel.vue'
import { setupEnv, settle, type TestEnv } from '../../test-utils'
import { useSettingsStore } from '../../stores/settings'
import type { Settings } from '../../types'

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
})

const never = <T>() => new Promise<T>(() => {})

async function open(): Promise<VueWrapper> {
  const settings = useSettingsStore()
  void settings.init() // as the app does at start; may never finish here
  settings.openPanel()
  w = mount(SettingsPanel, { global: { plugins: [env.pinia] }, attachTo: document.body })
  await settle()
  return w
}

const input = (v: VueWrapper, id: string) => v.find(`[data-testid="${id}"]`).element as HTMLInputElement
const legends = (v: VueWrapper) => v.findAll('legend').map((l) => l.text())

describe('SettingsPanel while the backend is slow', () => {
  it('renders every section at once with loading states when no backend call ever answers', async () => {
    env.fake.getSettings = () => never()
    env.fake.checkModelServer = () => never()
    env.fake.appInfo = () => never()
    env.fake.profiles = () => never()
    env.fake.availableTools = () => never()
    env.fake.mcpServers = () => never()
    env.fake.agentListener = () => never()
    env.fake.agentTokens = () => never()
    const v = await open()

    expect(v.find('[role="dialog"]').exists()).toBe(true)
    // In the order of the section list: server, models (the engine, then the server's model), assistants, tools, knowledge, memory, agents, appearance, data.
    expect(legends(v)).toEqual(['Model server', 'Modes', 'Engine', 'Model', 'How well each model asks', 'Assistant profiles', 'Questions', 'Tools', 'Knowledge', 'Memory', 'Agents', 'Language', 'Theme', 'Backup', 'About'])
    expect(v.find('[data-testid="mcp-section"]').text()).toContain('Loading MCP servers…')
    expect(v.find('[data-testid="agents-loading"]').text()).toBe('Loading agent tokens…')
    expect(v.find('[data-testid="settings-loading"]').text()).toBe('Loading your saved settings…')
    expect(v.find('[data-testid="server-status"]').text()).toBe('Checking the model server…')
    expect(v.find('[data-testid="models-loading"]').text()).toBe("Loading the server's models…")
    expect(v.find('[data-testid="profiles-section"]').text()).toContain('Loading profiles…')
    // The defaults are shown, but cannot be saved over settings not read yet.
    expect(input(v, 'base-url').value).toBe('http://127.0.0.1:11434/v1')
    expect(input(v, 'settings-save').disabled).toBe(true)
    expect(v.find('[role="dialog"]').element.contains(document.activeElement)).toBe(true)
  })

  it('fills in the saved settings when they arrive, keeping what the user changed meanwhile', async () => {
    let answer: (s: Settings) => void = () => {}
    const saved: Settings = { ...env.fake.settings, base_url: 'http://127.0.0.1:8080/v1', model: 'llama3.2', question_timeout_seconds: 90 }
    env.fake.getSettings = () => new Promise<Settings>((ok) => (answer = ok))
    const v = await open()
    await v.find('[data-testid="question-timeout"]').setValue('120')

    answer(saved)
    await settle()
    expect(v.find('[data-testid="settings-loading"]').exists()).toBe(false)
    expect(input(v, 'base-url').value).toBe('http://127.0.0.1:8080/v1')
    expect(input(v, 'preset-llamacpp').checked).toBe(true)
    expect(input(v, 'model-name').value).toBe('llama3.2')
    expect(input(v, 'question-timeout').value).toBe('120')
    expect(input(v, 'settings-save').disabled).toBe(false)
  })
})

describe('SettingsPanel in demo mode', () => {
  it('shows the demo model as the active one, selected, with a note; the real model stays for later', async () => {
    env.fake.settings = { ...env.fake.settings, demo_mode: true, model: 'qwen3' }
    const v = await open()

    const note = v.find('[data-testid="demo-model-note"]')
    expect(note.text()).toBe('Demo mode is on: the scripted demo model answers.')
    expect(note.attributes('role')).toBe('status')
    const options = v.findAll('[data-testid="model-option"]')
    expect(options.map((o) => o.find('.model-name').text())).toEqual(['parley-demo'])
    const radio = options[0]!.find('input').element as HTMLInputElement
    expect(radio.checked).toBe(true)
    expect(options[0]!.classes()).toContain('on')
    // The model for when demo mode is off is kept, and says so.
    expect(input(v, 'model-name').value).toBe('qwen3')
    expect(v.find('[data-testid="model-name"]').element.closest('label')!.textContent).toContain('Model when demo mode is off')

    // Choosing it again changes nothing.
    await options[0]!.find('input').setValue(true)
    expect(input(v, 'model-name').value).toBe('qwen3')

    await v.find('form').trigger('submit')
    await settle()
    const [sent] = env.fake.callsOf('saveSettings')[0] as [Settings]
    expect(sent.model).toBe('qwen3')
    expect(sent.demo_mode).toBe(true)
  })

  // Issue 23: the server's models at once, not an empty list until Save.
  it('lists the real server\'s models as soon as the switch is turned off, before Save', async () => {
    env.fake.settings = { ...env.fake.settings, demo_mode: true, model: 'qwen3' }
    const v = await open()
    await v.find('[data-testid="demo-mode"]').setValue(false)
    expect(v.find('[data-testid="demo-model-note"]').exists()).toBe(false)
    const options = v.findAll('[data-testid="model-option"]')
    expect(options.map((o) => o.find('.model-name').text())).toEqual(['qwen3', 'llama3.2', 'gemma2'])
    expect(options[0]!.find('input').element.checked).toBe(true)
    expect(input(v, 'model-name').value).toBe('qwen3')
    expect(env.fake.callsOf('saveSettings')).toEqual([])
  })

  it('lists no model when the switch is turned off and the real server does not answer', async () => {
    env.fake.settings = { ...env.fake.settings, demo_mode: true, model: 'qwen3' }
    env.fake.reachable = false
    const v = await open()
    await v.find('[data-testid="demo-mode"]').setValue(false)
    expect(v.findAll('[data-testid="model-option"]')).toHaveLength(0)
  })
})
