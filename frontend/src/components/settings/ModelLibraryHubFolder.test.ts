// Settings → Models: a hub GGUF is judged before it downloads (size,
// memory need against this computer's, "Download anyway"), and the models
// folder is a setting changed in place (issue #40).
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { VueWrapper } from '@vue/test-utils'
import { byTest, mountSettingsPanel } from './settingsPanel.harness'
import { resetDom, setupEnv, settle, type TestEnv } from '../../test-utils'
import { useSettingsStore } from '../../stores/settings'
import type { EngineModel } from '../../types'

let env: TestEnv

beforeEach(() => {
  env = setupEnv()
  env.fake.settings.engine = 'builtin'
})
afterEach(() => {
  resetDom()
})

const mountPanel = () => mountSettingsPanel(env)

async function askHub(v: VueWrapper, repo: string, file: string) {
  await byTest(v, 'hub-repo').setValue(repo)
  await byTest(v, 'hub-file').setValue(file)
  await byTest(v, 'hub-download').trigger('click')
  await settle()
}

function model(id: string, path: string): EngineModel {
  return { id, name: id, file: `${id}.gguf`, size: 1_000_000, sha256: '', capabilities: ['tools'], source: { path }, state: 'ready', ram: 600_000_000, allow_large: false }
}

describe('Settings → Models: a hub file before it downloads', () => {
  it('marks a file too big for this computer before downloading; the button becomes Download anyway, which downloads', async () => {
    env.fake.engineLibrary.memory = { total: 4 * 2 ** 30, available: 2 * 2 ** 30 }
    env.fake.engineLibrary.hub.set('acme/Big-GGUF/big-Q4.gguf', 5 * 2 ** 30)
    const v = await mountPanel()
    await askHub(v, 'acme/Big-GGUF', 'big-Q4.gguf')
    expect(env.fake.callsOf('checkHubFile')).toEqual([[{ repo: 'acme/Big-GGUF', file: 'big-Q4.gguf', revision: undefined }]])
    expect(env.fake.callsOf('startEngineDownload')).toEqual([])
    expect(byTest(v, 'hub-figures').text()).toBe('big-Q4.gguf: 5 GB download · needs about 6.5 GB of memory')
    expect(byTest(v, 'hub-too-big').text()).toBe(
      "This model needs about 6.5 GB of memory and this computer has 4 GB: it can be downloaded, but Parley won't load it unless you tick Load anyway.",
    )
    const button = byTest(v, 'hub-download')
    expect(button.element.tagName).toBe('BUTTON')
    expect(button.text()).toBe('Download anyway')
    expect(button.attributes('aria-describedby')).toBe('hub-too-big')

    await button.trigger('click')
    await settle()
    expect(env.fake.callsOf('startEngineDownload')).toEqual([[{ repo: 'acme/Big-GGUF', file: 'big-Q4.gguf' }]])
    expect(env.fake.engineLibrary.downloads.map((d) => d.file)).toEqual(['big-Q4.gguf'])
    expect(byTest(v, 'hub-too-big').exists()).toBe(false) // the form is cleared for the next file
  })

  it('a file that fits downloads at once; another file in the form is asked about again', async () => {
    env.fake.engineLibrary.hub.set('acme/tiny-GGUF/tiny.gguf', 400_000_000)
    env.fake.engineLibrary.hub.set('acme/Big-GGUF/big.gguf', 40 * 2 ** 30)
    const v = await mountPanel()
    await askHub(v, 'acme/Big-GGUF', 'big.gguf')
    expect(byTest(v, 'hub-download').text()).toBe('Download anyway')
    await byTest(v, 'hub-repo').setValue('acme/tiny-GGUF')
    await byTest(v, 'hub-file').setValue('tiny.gguf')
    expect(byTest(v, 'hub-download').text()).toBe('Download')
    expect(byTest(v, 'hub-too-big').exists()).toBe(false)
    await byTest(v, 'hub-download').trigger('click')
    await settle()
    expect(env.fake.callsOf('checkHubFile')).toHaveLength(2)
    expect(env.fake.callsOf('startEngineDownload')).toEqual([[{ repo: 'acme/tiny-GGUF', file: 'tiny.gguf' }]])
  })

  it('says why a file cannot be had (not on the hub, not a GGUF, the hub down) and starts nothing', async () => {
    const v = await mountPanel()
    await askHub(v, 'acme/nothing-GGUF', 'x.gguf')
    expect(byTest(v, 'hub-check-error').text()).toBe('acme/nothing-GGUF has no file x.gguf on the Hugging Face hub.')
    await askHub(v, 'acme/nothing-GGUF', 'README.md')
    expect(byTest(v, 'hub-check-error').text()).toContain('Only GGUF model files')
    env.fake.engineLibrary.hub.set('acme/tiny-GGUF/tiny.gguf', 400_000_000)
    env.fake.engineLibrary.hubDown = true
    await askHub(v, 'acme/tiny-GGUF', 'tiny.gguf')
    expect(byTest(v, 'hub-check-error').text()).toContain('cannot be reached')
    expect(byTest(v, 'hub-download').text()).toBe('Download')
    expect(env.fake.callsOf('startEngineDownload')).toEqual([])
    expect(env.fake.engineLibrary.downloads).toEqual([])
  })
})

describe('Settings → Models: the models folder', () => {
  it('changes the folder in place: its models are listed, the old ones stay there, the chosen model missing is said', async () => {
    env.fake.engineLibrary.models = [model('old-one', '/home/me/.local/share/parley/models/old-one.gguf')]
    env.fake.settings.model = 'old-one'
    env.fake.engineLibrary.folders.set('/data/gguf', [model('other', '/data/gguf/other.gguf')])
    const v = await mountPanel()
    expect(v.findAll('[data-testid="engine-model"]').map((r) => r.attributes('data-model'))).toEqual(['old-one'])
    expect(byTest(v, 'models-dir-input').exists()).toBe(false)
    await byTest(v, 'models-dir-change').trigger('click')
    const input = byTest(v, 'models-dir-input')
    expect((input.element as HTMLInputElement).value).toBe('/home/me/.local/share/parley/models')
    expect(v.text()).toContain('The models in the current folder stay there: nothing is moved or deleted.')

    // A relative path: said inline, nothing changed.
    await input.setValue('gguf')
    await byTest(v, 'models-dir-apply').trigger('click')
    await settle()
    expect(byTest(v, 'models-dir-error').text()).toContain('must be an absolute path')
    expect(input.attributes('aria-invalid')).toBe('true')
    expect(env.fake.settings.engine_models_dir).toBe('')
    expect(useSettingsStore().saveError).toBeNull() // not said twice (the footer)
    expect(byTest(v, 'models-dir').text()).toBe('Models are kept in /home/me/.local/share/parley/models')

    await input.setValue('/data/gguf')
    await input.trigger('keydown', { key: 'Enter' })
    await settle()
    expect(env.fake.settings.engine_models_dir).toBe('/data/gguf')
    expect(byTest(v, 'models-dir').text()).toBe('Models are kept in /data/gguf')
    expect(v.findAll('[data-testid="engine-model"]').map((r) => r.attributes('data-model'))).toEqual(['other'])
    expect(byTest(v, 'models-dir-changed').text()).toBe(
      'Now using /data/gguf. The models of /home/me/.local/share/parley/models are still there. old-one is not in this folder: choose a model below, then Save.',
    )
    expect(env.fake.engineLibrary.folders.get('/home/me/.local/share/parley/models')!.map((m) => m.id)).toEqual(['old-one'])

    // The panel's Save keeps the new folder (the form has it).
    await v.find('[data-testid="engine-model"] input[type="radio"]').setValue(true)
    await v.find('[data-testid="settings-save"]').trigger('click')
    await settle()
    expect(env.fake.settings.engine_models_dir).toBe('/data/gguf')
    expect(env.fake.settings.model).toBe('other')
  })

  it('is refused while a download has work to do, with the reason inline', async () => {
    env.fake.engineLibrary.hub.set('acme/tiny-GGUF/tiny.gguf', 400_000_000)
    env.fake.engineLibrary.start({ repo: 'acme/tiny-GGUF', file: 'tiny.gguf' })
    const v = await mountPanel()
    await byTest(v, 'models-dir-change').trigger('click')
    await byTest(v, 'models-dir-input').setValue('/data/gguf')
    await byTest(v, 'models-dir-apply').trigger('click')
    await settle()
    expect(byTest(v, 'models-dir-error').text()).toContain('cannot change while 1 download(s) are in progress or paused')
    expect(env.fake.settings.engine_models_dir).toBe('')
  })

  it('is read-only when the command line sets it', async () => {
    env.fake.engineLibrary.dirByFlag = true
    const v = await mountPanel()
    expect(byTest(v, 'models-dir-change').exists()).toBe(false)
    expect(byTest(v, 'models-dir-flag').text()).toBe(
      'Set by the command line (--models-dir or PARLEY_MODELS_DIR). Start Parley without it to change the folder here.',
    )
  })

  it('has no Browse… in the browser build (no system dialog)', async () => {
    const v = await mountPanel()
    await byTest(v, 'models-dir-change').trigger('click')
    expect(byTest(v, 'models-dir-input').exists()).toBe(true)
    expect(byTest(v, 'models-dir-browse').exists()).toBe(false)
  })

  it('Browse… (in the window) fills the field from the system dialog', async () => {
    env.fake.choosePaths = async (kind) => (kind === 'folder' ? ['/picked/models'] : [])
    const v = await mountPanel()
    await byTest(v, 'models-dir-change').trigger('click')
    await byTest(v, 'models-dir-browse').trigger('click')
    await settle()
    expect((byTest(v, 'models-dir-input').element as HTMLInputElement).value).toBe('/picked/models')
  })
})
