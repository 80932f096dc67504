// The settings model picker with the names real servers list: Ollama's
// "name:latest" for a name given without a tag, llama.cpp's file paths, and
// servers that do not say whether a model calls tools.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { VueWrapper } from '@vue/test-utils'
import SettingsPanel from './SettingsPanel.vue'
import { mountInBody, onReset, resetDom, setupEnv, settle, type TestEnv } from '../../test-utils'
import { connectEvents } from '../../stores/events'
import { useSettingsStore } from '../../stores/settings'
import { modelChoices, sameModel } from '../../lib/settings'

let env: TestEnv

beforeEach(() => {
  env = setupEnv()
})
afterEach(resetDom)

async function mountPanel() {
  onReset(connectEvents())
  const settings = useSettingsStore()
  await settings.init()
  settings.openPanel()
  return mountInBody(SettingsPanel, env)
}

const options = (v: VueWrapper) => v.findAll('[data-testid="model-option"]')
const optionNames = (v: VueWrapper) => options(v).map((o) => o.find('.model-name').text())
const isChecked = (o: ReturnType<typeof options>[number]) => (o.find('input').element as HTMLInputElement).checked

describe('model names', () => {
  it('a name without a tag is its :latest; paths and other tags are compared whole', () => {
    expect(sameModel('qwen3', 'qwen3:latest')).toBe(true)
    expect(sameModel('qwen3:latest', 'qwen3')).toBe(true)
    expect(sameModel('user/model', 'user/model:latest')).toBe(true)
    expect(sameModel('localhost:5000/m', 'localhost:5000/m:latest')).toBe(true)
    expect(sameModel('org/model.gguf', 'org/model.gguf')).toBe(true)
    expect(sameModel('qwen3', 'qwen3:8b')).toBe(false)
    expect(sameModel('org/model.gguf', 'org/model')).toBe(false)
    expect(sameModel('localhost:5000/m', 'localhost:5001/m')).toBe(false)
    expect(sameModel('', ':latest')).toBe(false)
    expect(modelChoices([{ name: 'parley-fixture:latest', supports_tools: true }], 'parley-fixture')).toEqual([
      { name: 'parley-fixture:latest', supports_tools: true },
    ])
  })
})

describe('Settings model picker', () => {
  it('marks a model that reads images and one that thinks', async () => {
    env.fake.models = [
      { name: 'gemma3', supports_tools: false, supports_vision: true },
      { name: 'qwen3', supports_tools: true, supports_thinking: true },
    ]
    const v = await mountPanel()
    const [gemma, qwen] = options(v)
    expect(gemma!.find('[data-testid="supports-vision"]').text()).toBe('· sees images')
    expect(qwen!.find('[data-testid="supports-vision"]').exists()).toBe(false)
    expect(qwen!.find('[data-testid="supports-thinking"]').text()).toBe('· thinks')
    expect(gemma!.find('[data-testid="supports-thinking"]').exists()).toBe(false)
  })

  it('shows a model chosen without a tag once, as the server lists it, checked and with its tools mark', async () => {
    env.fake.settings = { ...env.fake.settings, model: 'parley-fixture' }
    env.fake.models = [
      { name: 'parley-fixture:latest', supports_tools: true },
      { name: 'gemma2', supports_tools: false },
    ]
    const v = await mountPanel()
    expect(optionNames(v)).toEqual(['parley-fixture:latest', 'gemma2'])
    expect(v.text()).not.toContain('not on this server')
    const [fixture, gemma] = options(v)
    expect(isChecked(fixture!)).toBe(true)
    expect(fixture!.find('[data-testid="supports-tools"]').exists()).toBe(true)
    expect(isChecked(gemma!)).toBe(false)

    // Saving keeps the name as given (it works with Ollama as it is).
    await v.find('[data-testid="settings-save"]').trigger('click')
    await settle()
    expect(env.fake.settings.model).toBe('parley-fixture')
  })

  it('switches between models by the names the server lists', async () => {
    env.fake.settings = { ...env.fake.settings, model: 'parley-fixture' }
    env.fake.models = [
      { name: 'parley-fixture:latest', supports_tools: true },
      { name: 'gemma2', supports_tools: false },
    ]
    const v = await mountPanel()
    await options(v)[1]!.find('input').setValue(true)
    expect(options(v).map(isChecked)).toEqual([false, true])
    expect((v.find('[data-testid="model-name"]').element as HTMLInputElement).value).toBe('gemma2')
    await options(v)[0]!.find('input').setValue(true)
    expect(options(v).map(isChecked)).toEqual([true, false])
    expect((v.find('[data-testid="model-name"]').element as HTMLInputElement).value).toBe('parley-fixture:latest')
  })

  it('keeps a llama.cpp model path whole, and marks no tool support the server does not report', async () => {
    env.fake.settings = { ...env.fake.settings, base_url: 'http://127.0.0.1:8080/v1', model: 'org/model' }
    env.fake.ollama = false
    env.fake.models = [{ name: 'org/model.gguf', supports_tools: false, tools_unknown: true }]
    const v = await mountPanel()
    // "org/model" is not "org/model.gguf": the chosen name is shown as missing.
    expect(optionNames(v)).toEqual(['org/model', 'org/model.gguf'])
    expect(options(v)[0]!.text()).toContain('not on this server')
    const gguf = options(v)[1]!
    expect(gguf.find('[data-testid="supports-tools"]').exists()).toBe(false)
    expect(gguf.text()).not.toContain('no tools')
    await gguf.find('input').setValue(true)
    expect(optionNames(v)).toEqual(['org/model.gguf'])
    expect(isChecked(options(v)[0]!)).toBe(true)
    // Not Ollama: nothing to download here.
    expect(v.find('[data-testid="pull"]').exists()).toBe(false)
  })

  it('offers downloads where the server says it is Ollama, whatever its address', async () => {
    env.fake.settings = { ...env.fake.settings, base_url: 'http://gpu-box:8000/v1' }
    env.fake.ollama = true
    const v = await mountPanel()
    expect(v.find('[data-testid="pull"]').exists()).toBe(true)
  })

  it('a model pulled without a tag is listed once, as name:latest, and chosen', async () => {
    const v = await mountPanel()
    await v.find('[data-testid="pull-name"]').setValue('mistral')
    await v.find('[data-testid="pull"]').trigger('click')
    await settle()
    env.fake.pulls[0]!.resolve()
    await settle()
    expect(optionNames(v).filter((n) => n.startsWith('mistral'))).toEqual(['mistral:latest'])
    const mistral = options(v).find((o) => o.text().includes('mistral'))!
    expect(isChecked(mistral)).toBe(true)
    expect(mistral.text()).not.toContain('not on this server')
  })

  it('a pull that fails on the server says why as soon as the model:pull events say so', async () => {
    const v = await mountPanel()
    await v.find('[data-testid="pull-name"]').setValue('qwen3:8b')
    await v.find('[data-testid="pull"]').trigger('click')
    await settle()
    env.fake.pulls[0]!.progress('downloading', 1000, 500)
    env.fake.emit('model:pull', { conversationId: '', model: 'qwen3:8b', status: 'error', error: 'Downloading qwen3:8b failed: max retries exceeded' })
    await settle()
    const status = v.find('[data-testid="pull-status"]')
    expect(status.attributes('role')).toBe('alert')
    expect(status.text()).toBe("Couldn't download qwen3:8b: Downloading qwen3:8b failed: max retries exceeded")
    expect(v.find('[data-testid="pull"]').attributes('disabled')).toBeUndefined()
  })

  it("an assistant profile's model named without a tag is picked from the server's list", async () => {
    env.fake.storedProfiles.set('Reviewer', { name: 'Reviewer', system_prompt: 'Review.', model: 'parley-fixture', tools: [] })
    env.fake.models = [{ name: 'parley-fixture:latest', supports_tools: true }]
    const v = await mountPanel()
    const reviewer = v.findAll('[data-testid="profile-item"]').find((li) => li.attributes('data-profile') === 'Reviewer')!
    await reviewer.find('[data-testid="profile-edit"]').trigger('click')
    expect((v.find('[data-testid="profile-model-select"]').element as HTMLSelectElement).value).toBe('parley-fixture:latest')
    expect(v.find('[data-testid="profile-model"]').exists()).toBe(false)
    await v.find('[data-testid="profile-save"]').trigger('click')
    await settle()
    expect((env.fake.callsOf('saveProfile')[0]![0] as { model: string }).model).toBe('parley-fixture')
  })
})
