import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { byTest, mountSettingsPanel } from './settingsPanel.harness'
import { resetDom, setupEnv, settle, type TestEnv } from '../../test-utils'
import { setEngineClock } from '../../stores/engine'

let env: TestEnv
let now = 0

beforeEach(() => {
  env = setupEnv()
  now = 5_000_000
  setEngineClock(() => now)
})
afterEach(() => {
  setEngineClock(() => Date.now())
  resetDom()
})

const mountPanel = () => mountSettingsPanel(env)

describe('Settings → Models: the built-in engine and its model library', () => {
  it('offers the two engines with a sentence each; the library shows only with the built-in one', async () => {
    const v = await mountPanel()
    const section = byTest(v, 'engine-section')
    expect(section.text()).toContain("Parley's built-in engine")
    expect(section.text()).toContain('Runs models on this computer inside Parley')
    expect(section.text()).toContain('A model server')
    expect(byTest(v, 'model-library').exists()).toBe(false)
    expect(byTest(v, 'model-picker').exists()).toBe(true)
    await byTest(v, 'engine-builtin').setValue(true)
    await settle()
    expect(byTest(v, 'model-library').exists()).toBe(true)
    expect(byTest(v, 'model-picker').exists()).toBe(false)
    expect(byTest(v, 'no-engine-models').text()).toContain('No models yet')
    expect(byTest(v, 'models-dir').text()).toBe('Models are kept in /home/me/.local/share/parley/models')
    const entries = v.findAll('[data-testid="catalog-entry"]')
    expect(entries.map((e) => e.attributes('data-entry'))).toEqual(['qwen3-1.7b', 'nomic-embed-text-v1.5'])
    expect(entries[0]!.text()).toContain('needs about 1.9 GB of memory')
    expect(entries[0]!.text()).toContain('1 GB download')
    expect(entries[0]!.text()).toContain('tools · thinks')
    expect(entries[0]!.text()).toContain('Suggested')
    // The machine's memory as Go reads it (the engine's status; the fake's 16 GB).
    expect(byTest(v, 'machine-memory').text()).toBe('This computer has 16 GB of memory.')
    expect(byTest(v, 'too-big').exists()).toBe(false)
  })

  it("marks what needs more memory than the machine has (Go's figure); Load anyway lets an installed one be chosen, remembered", async () => {
    env.fake.settings.engine = 'builtin'
    env.fake.settings.model = ''
    env.fake.engineLibrary.memory = { total: 4 * 2 ** 30, available: 2 * 2 ** 30 }
    env.fake.engineLibrary.catalog.push({
      id: 'big', name: 'Big 8B', repo: 'acme/Big-GGUF', file: 'big.gguf', size: 5_000_000_000, ram: 6_500_000_000,
      capabilities: ['tools'], description: 'Large.', installed: false,
    })
    for (const [path, ram] of [['/models/huge.gguf', 6 * 2 ** 30], ['/models/small.gguf', 2 ** 30]] as const) {
      env.fake.engineLibrary.files.set(path, true)
      env.fake.engineLibrary.import(path)
      env.fake.engineLibrary.models.find((m) => m.source.path === path)!.ram = ram
    }
    const v = await mountPanel()
    expect(byTest(v, 'machine-memory').text()).toBe('This computer has 4 GB of memory.')
    expect(v.find('[data-entry="big"] [data-testid="too-big"]').text()).toBe('Needs more memory than this computer has.')
    expect(v.find('[data-entry="qwen3-1.7b"] [data-testid="too-big"]').exists()).toBe(false)
    expect(v.find('[data-entry="big"]').text()).not.toContain('Suggested')

    const huge = () => v.find('[data-model="huge"]')
    const small = () => v.find('[data-model="small"]')
    expect(huge().text()).toContain('needs about 6 GB of memory')
    expect(byTest(huge(), 'engine-model-too-big').text()).toBe("Needs about 6 GB of memory; this computer has 4 GB. Parley won't load it unless you allow it.")
    expect(huge().find('input[type="radio"]').attributes('disabled')).toBeDefined()
    expect(huge().find('input[type="radio"]').attributes('aria-describedby')).toBe(byTest(huge(), 'engine-model-too-big').attributes('id'))
    expect(small().find('input[type="radio"]').attributes('disabled')).toBeUndefined()
    expect(byTest(small(), 'engine-model-too-big').exists()).toBe(false)
    expect(byTest(small(), 'engine-model-load-anyway').exists()).toBe(false)
    const anyway = () => byTest(huge(), 'engine-model-load-anyway')
    expect((anyway().element as HTMLInputElement).checked).toBe(false)
    expect(anyway().element.closest('label')!.textContent!.trim()).toBe('Load anyway')

    await anyway().setValue(true)
    await settle()
    expect(env.fake.callsOf('updateEngineModel').at(-1)).toEqual([{ id: 'huge', allow_large: true }])
    expect(env.fake.engineLibrary.models.find((m) => m.id === 'huge')!.allow_large).toBe(true)
    expect((anyway().element as HTMLInputElement).checked).toBe(true)
    expect(huge().find('input[type="radio"]').attributes('disabled')).toBeUndefined()
    await huge().find('input[type="radio"]').setValue(true)
    await byTest(v, 'settings-save').trigger('click')
    await settle()
    expect(env.fake.settings).toMatchObject({ engine: 'builtin', model: 'huge' })

    await anyway().setValue(false)
    await settle()
    expect(env.fake.engineLibrary.models.find((m) => m.id === 'huge')!.allow_large).toBe(false)
    expect(huge().find('input[type="radio"]').attributes('disabled')).toBeDefined()
  })

  it('downloads from the catalogue with progress, speed and time left; pauses, resumes; installs; the model is chosen and saved', async () => {
    env.fake.settings.engine = 'builtin'
    env.fake.settings.model = ''
    const v = await mountPanel()
    await v.find('[data-entry="qwen3-1.7b"] [data-testid="catalog-download"]').trigger('click')
    await settle()
    const id = env.fake.engineLibrary.downloads[0]!.id
    const row = () => byTest(v, 'engine-download')
    expect(row().text()).toContain('Qwen3-1.7B-Q4_K_M.gguf')
    expect(row().find('[role="progressbar"]').attributes('aria-valuenow')).toBe('0')
    expect(v.find('[data-entry="qwen3-1.7b"]').text()).toContain('Downloading')
    now += 1000
    env.fake.engineLibrary.progress(id, 111_000_000)
    now += 1000
    env.fake.engineLibrary.progress(id, 222_000_000)
    await settle()
    expect(row().find('[role="progressbar"]').attributes('aria-valuenow')).toBe('20')
    expect(byTest(v, 'engine-download-progress').text()).toContain('212 MB of 1 GB (20%)')
    // 222 MB in 2 s: 111 MB/s, 888 MB left: 8 s.
    expect(byTest(v, 'engine-download-speed').text()).toContain('106 MB/s, about 8 sec left')

    await byTest(v, 'engine-download-pause').trigger('click')
    await settle()
    expect(byTest(v, 'engine-download-state').text()).toBe('Paused.')
    expect(byTest(v, 'engine-download-speed').exists()).toBe(false)
    await byTest(v, 'engine-download-resume').trigger('click')
    await settle()
    expect(env.fake.engineLibrary.downloads[0]!.state).toBe('downloading')

    env.fake.engineLibrary.complete(id)
    await settle()
    expect(byTest(v, 'engine-download').exists()).toBe(false)
    const model = v.find('[data-model="Qwen3-1.7B-Q4_K_M"]')
    expect(model.text()).toContain('Qwen3 1.7B')
    expect(model.text()).toContain('tools · thinks')
    expect(v.find('[data-entry="qwen3-1.7b"] [data-testid="catalog-installed"]').text()).toBe('Installed')
    await model.find('input[type="radio"]').setValue(true)
    await byTest(v, 'settings-save').trigger('click')
    await settle()
    expect(env.fake.settings).toMatchObject({ engine: 'builtin', model: 'Qwen3-1.7B-Q4_K_M' })
  })

  it('cancels a download, and says a failed one in words with Resume', async () => {
    env.fake.settings.engine = 'builtin'
    env.fake.engineLibrary.hub.set('acme/tiny-GGUF/tiny.gguf', 2048)
    const v = await mountPanel()
    await byTest(v, 'hub-repo').setValue('acme/tiny-GGUF')
    await byTest(v, 'hub-file').setValue('README.md')
    await byTest(v, 'hub-download').trigger('click')
    await settle()
    // The hub is asked first (issue #40): its refusal is said under the form.
    expect(byTest(v, 'hub-check-error').text()).toContain('Only GGUF model files')
    await byTest(v, 'hub-file').setValue('tiny.gguf')
    await byTest(v, 'hub-download').trigger('click')
    await settle()
    expect(byTest(v, 'hub-check-error').exists()).toBe(false)
    expect(byTest(v, 'engine-start-error').exists()).toBe(false)
    const id = env.fake.engineLibrary.downloads[0]!.id
    env.fake.engineLibrary.fail(id, 'The downloaded tiny.gguf does not match the sha256 checksum.')
    await settle()
    const state = byTest(v, 'engine-download-state')
    expect(state.attributes('role')).toBe('alert')
    expect(state.text()).toBe('Stopped: The downloaded tiny.gguf does not match the sha256 checksum.')
    expect(byTest(v, 'engine-download-resume').exists()).toBe(true)
    await byTest(v, 'engine-download-cancel').trigger('click')
    await settle()
    expect(env.fake.engineLibrary.downloads[0]!.state).toBe('cancelled')
    expect(byTest(v, 'engine-download').exists()).toBe(false)
  })

  it('shows a broken model as broken with its reason (not choosable), deletes after asking, imports by path', async () => {
    env.fake.settings.engine = 'builtin'
    env.fake.engineLibrary.files.set('/models/a.gguf', true)
    env.fake.engineLibrary.files.set('/models/b.gguf', true)
    env.fake.engineLibrary.import('/models/a.gguf')
    env.fake.engineLibrary.breakModel('a', 'its file is missing')
    const v = await mountPanel()
    const a = v.find('[data-model="a"]')
    expect(a.find('[data-testid="engine-model-broken"]').text()).toBe('Broken: its file is missing')
    expect((a.find('input[type="radio"]').element as HTMLInputElement).disabled).toBe(true)
    expect(a.text()).toContain('imported from /models/a.gguf')

    await byTest(v, 'import-path').setValue('/models/b.gguf')
    await byTest(v, 'import-model').trigger('click')
    await settle()
    expect(v.findAll('[data-testid="engine-model"]').map((m) => m.attributes('data-model'))).toEqual(['a', 'b'])
    await byTest(v, 'import-path').setValue('/nowhere.gguf')
    await byTest(v, 'import-model').trigger('click')
    await settle()
    expect(byTest(v, 'import-error').text()).toBe('There is no file at /nowhere.gguf.')

    const del = v.find('[data-model="a"] [data-testid="engine-model-delete"]')
    expect(del.attributes('aria-label')).toBe('Delete a')
    await del.trigger('click')
    expect(v.find('[data-model="a"]').text()).toContain('Delete a?')
    await v.find('[data-model="a"] [data-testid="engine-model-delete-yes"]').trigger('click')
    await settle()
    expect(v.findAll('[data-testid="engine-model"]').map((m) => m.attributes('data-model'))).toEqual(['b'])
    expect(env.fake.callsOf('deleteEngineModel')).toHaveLength(1)
  })

  it('sets the engine\'s threads (0 = automatic) with the built-in engine; a number out of range is said and not saved', async () => {
    const v = await mountPanel()
    expect(byTest(v, 'engine-threads').exists()).toBe(false)
    await byTest(v, 'engine-builtin').setValue(true)
    await settle()
    const threads = byTest(v, 'engine-threads')
    expect((threads.element as HTMLInputElement).value).toBe('0')
    expect(byTest(v, 'engine-section').text()).toContain('0 = automatic (one per core)')
    await threads.setValue('300')
    await byTest(v, 'settings-save').trigger('click')
    await settle()
    expect(byTest(v, 'settings-error').text()).toBe('Threads must be a whole number from 0 (automatic) to 256.')
    expect(env.fake.callsOf('saveSettings')).toHaveLength(0)
    await threads.setValue('2')
    await byTest(v, 'settings-save').trigger('click')
    await settle()
    expect(env.fake.callsOf('saveSettings')).toHaveLength(1)
    expect((env.fake.callsOf('saveSettings')[0]![0] as { engine_threads: number }).engine_threads).toBe(2)
  })
})
