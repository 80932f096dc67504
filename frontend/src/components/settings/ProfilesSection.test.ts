import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mount, type VueWrapper } from '@vue/test-utils'
import SettingsPanel from './SettingsPanel.vue'
import { setupEnv, settle, type TestEnv } from '../../test-utils'
import { useSettingsStore } from '../../stores/settings'
import { ASK_TOOL } from '../../types'

let env: TestEnv
let w: VueWrapper | null = null

beforeEach(() => {
  env = setupEnv()
})
afterEach(() => {
  w?.unmount()
  w = null
  document.body.innerHTML = ''
  localStorage.clear()
})

async function mountPanel() {
  const settings = useSettingsStore()
  await settings.init()
  settings.openPanel()
  w = mount(SettingsPanel, { global: { plugins: [env.pinia] }, attachTo: document.body })
  await settle()
  return w
}

const names = (v: VueWrapper) => v.findAll('[data-testid="profile-name"]').map((n) => n.text())
const editor = (v: VueWrapper) => v.find('[data-testid="profile-editor"]')
const tool = (v: VueWrapper, name: string) => v.find(`[data-testid="profile-tool-${name}"]`).element as HTMLInputElement
const item = (v: VueWrapper, name: string) => v.findAll('[data-testid="profile-item"]').find((li) => li.attributes('data-profile') === name)!

describe('Settings → Assistant profiles', () => {
  it('lists the profiles with their model and tools', async () => {
    env.fake.storedProfiles.set('Reviewer', { name: 'Reviewer', system_prompt: 'Review.', model: 'llama3.2', tools: [] })
    const v = await mountPanel()
    const section = v.find('[data-testid="profiles-section"]')
    expect(section.find('legend').text()).toBe('Assistant profiles')
    expect(section.find('ul').attributes('aria-label')).toBe('Assistant profiles')
    expect(names(v)).toEqual(['default', 'Reviewer'])
    expect(item(v, 'default').text()).toContain("the app's model · 4 tools, asks before guessing")
    expect(item(v, 'Reviewer').text()).toContain('llama3.2 · no tools')
    expect(item(v, 'Reviewer').find('[data-testid="profile-edit"]').attributes('aria-label')).toBe('Edit Reviewer')
  })

  it('creates a profile: name, system prompt, a model from the server, tools', async () => {
    const v = await mountPanel()
    await v.find('[data-testid="profile-new"]').trigger('click')
    const ed = editor(v)
    expect(ed.attributes('role')).toBe('group')
    expect(document.getElementById(ed.attributes('aria-labelledby')!)!.textContent).toBe('New profile')
    expect(document.activeElement).toBe(v.find('[data-testid="profile-name-input"]').element)
    // every tool of the server is offered, ask_user_question included, preset like the default profile
    expect(ed.findAll('input[type="checkbox"]').map((c) => (c.element as HTMLInputElement).value)).toEqual([
      ASK_TOOL,
      'spawn_agents',
      'current_time',
      'calculator',
    ])
    expect(tool(v, ASK_TOOL).checked).toBe(true)
    expect(ed.text()).toContain('Ask you questions')

    await v.find('[data-testid="profile-name-input"]').setValue('Code review')
    await v.find('[data-testid="profile-prompt"]').setValue('You review code. Point out risks first.')
    const select = v.find('[data-testid="profile-model-select"]')
    expect(select.findAll('option').map((o) => o.text())).toEqual(["The app's model (qwen3)", 'qwen3', 'llama3.2', 'gemma2', 'Another model…'])
    await select.setValue('llama3.2')
    await v.find(`[data-testid="profile-tool-spawn_agents"]`).setValue(false)
    await v.find(`[data-testid="profile-tool-current_time"]`).setValue(false)
    const toolCalling = v.find('[data-testid="profile-tool-calling"]')
    expect((toolCalling.element as HTMLSelectElement).value).toBe('auto')
    expect(toolCalling.findAll('option').map((o) => o.text())).toEqual(['Automatic', 'Native', 'In text', 'Off'])
    await toolCalling.setValue('text')
    const thinking = v.find('[data-testid="profile-thinking"]')
    expect((thinking.element as HTMLSelectElement).value).toBe('auto')
    expect(thinking.findAll('option').map((o) => o.text())).toEqual(['Automatic', 'Off', 'Low', 'Medium', 'High'])
    await thinking.setValue('off')
    await v.find('[data-testid="profile-save"]').trigger('click')
    await settle()

    expect(env.fake.callsOf('saveProfile')).toEqual([
      [{ name: 'Code review', system_prompt: 'You review code. Point out risks first.', model: 'llama3.2', tools: [ASK_TOOL, 'calculator'], tool_calling: 'text', thinking: 'off' }],
    ])
    expect(env.fake.callsOf('saveSettings')).toEqual([]) // the settings form was not submitted
    expect(editor(v).exists()).toBe(false)
    expect(names(v)).toEqual(['default', 'Code review'])
    expect(v.find('[data-testid="profile-status"]').text()).toBe('Saved the profile “Code review”.')
    expect(useSettingsStore().panelOpen).toBe(true)
  })

  it('takes a model name that the server does not list', async () => {
    const v = await mountPanel()
    await v.find('[data-testid="profile-new"]').trigger('click')
    await v.find('[data-testid="profile-name-input"]').setValue('Big')
    expect(v.find('[data-testid="profile-model"]').exists()).toBe(false)
    await v.find('[data-testid="profile-model-select"]').setValue('\u0000other')
    await v.find('[data-testid="profile-model"]').setValue('qwen3:32b')
    // Enter in a field saves the profile, not the whole settings form
    await v.find('[data-testid="profile-model"]').trigger('keydown', { key: 'Enter' })
    await settle()
    expect((env.fake.callsOf('saveProfile')[0]![0] as { model: string }).model).toBe('qwen3:32b')
    expect(env.fake.callsOf('saveSettings')).toEqual([])

    // editing it again shows the free-text model
    await item(v, 'Big').find('[data-testid="profile-edit"]').trigger('click')
    expect((v.find('[data-testid="profile-model-select"]').element as HTMLSelectElement).value).toBe('\u0000other')
    expect((v.find('[data-testid="profile-model"]').element as HTMLInputElement).value).toBe('qwen3:32b')
  })

  it('edits a profile: the fields are filled in and the changes saved', async () => {
    env.fake.storedProfiles.set('Reviewer', { name: 'Reviewer', system_prompt: 'Review.', model: 'gemma2', tools: ['calculator'], thinking: 'high' })
    const v = await mountPanel()
    await item(v, 'Reviewer').find('[data-testid="profile-edit"]').trigger('click')
    expect(document.getElementById(editor(v).attributes('aria-labelledby')!)!.textContent).toBe('Edit “Reviewer”')
    const name = v.find('[data-testid="profile-name-input"]')
    expect((name.element as HTMLInputElement).value).toBe('Reviewer')
    expect(name.attributes('readonly')).toBeDefined()
    expect((v.find('[data-testid="profile-prompt"]').element as HTMLTextAreaElement).value).toBe('Review.')
    expect((v.find('[data-testid="profile-model-select"]').element as HTMLSelectElement).value).toBe('gemma2')
    expect(tool(v, 'calculator').checked).toBe(true)
    expect(tool(v, ASK_TOOL).checked).toBe(false)
    expect((v.find('[data-testid="profile-thinking"]').element as HTMLSelectElement).value).toBe('high')

    await v.find('[data-testid="profile-prompt"]').setValue('Review, briefly.')
    await v.find('[data-testid="profile-model-select"]').setValue('')
    await v.find(`[data-testid="profile-tool-${ASK_TOOL}"]`).setValue(true)
    await v.find('[data-testid="profile-save"]').trigger('click')
    await settle()
    expect(env.fake.callsOf('saveProfile')).toEqual([[{ name: 'Reviewer', system_prompt: 'Review, briefly.', model: '', tools: ['calculator', ASK_TOOL], tool_calling: 'auto', thinking: 'high' }]])
    expect(env.fake.storedProfiles.get('Reviewer')).toEqual({ name: 'Reviewer', system_prompt: 'Review, briefly.', model: '', tools: ['calculator', ASK_TOOL], tool_calling: 'auto', thinking: 'high' })
    expect(item(v, 'Reviewer').text()).toContain("the app's model · 2 tools")
  })

  it('Cancel and Esc leave the profile as it was and keep the dialog open', async () => {
    const v = await mountPanel()
    await item(v, 'default').find('[data-testid="profile-edit"]').trigger('click')
    await v.find('[data-testid="profile-prompt"]').setValue('Changed')
    await v.find('[data-testid="profile-prompt"]').trigger('keydown', { key: 'Escape' })
    expect(editor(v).exists()).toBe(false)
    expect(useSettingsStore().panelOpen).toBe(true)
    await v.find('[data-testid="profile-new"]').trigger('click')
    await v.find('[data-testid="profile-cancel"]').trigger('click')
    expect(editor(v).exists()).toBe(false)
    expect(env.fake.callsOf('saveProfile')).toEqual([])
  })

  it('shows the backend validation error inline and keeps the form', async () => {
    const v = await mountPanel()
    await v.find('[data-testid="profile-new"]').trigger('click')
    await v.find('[data-testid="profile-name-input"]').setValue('bad/name')
    await v.find('[data-testid="profile-save"]').trigger('click')
    await settle()
    const err = v.find('[data-testid="profile-error"]')
    expect(err.attributes('role')).toBe('alert')
    expect(err.text()).toBe('profile name must be 1-40 letters, digits, spaces, dots, dashes or underscores')
    const name = v.find('[data-testid="profile-name-input"]')
    expect(name.attributes('aria-invalid')).toBe('true')
    expect(name.attributes('aria-describedby')).toContain(err.attributes('id'))
    expect(editor(v).exists()).toBe(true)
    expect(names(v)).toEqual(['default'])

    // fixed, it saves and the error goes
    await name.setValue('good name')
    await v.find('[data-testid="profile-save"]').trigger('click')
    await settle()
    expect(v.find('[data-testid="profile-error"]').exists()).toBe(false)
    expect(names(v)).toEqual(['default', 'good name'])
  })

  it('refuses an empty name or one already taken before asking the backend', async () => {
    const v = await mountPanel()
    await v.find('[data-testid="profile-new"]').trigger('click')
    await v.find('[data-testid="profile-save"]').trigger('click')
    expect(v.find('[data-testid="profile-error"]').text()).toBe('Give the profile a name.')
    await v.find('[data-testid="profile-name-input"]').setValue('default')
    await v.find('[data-testid="profile-save"]').trigger('click')
    expect(v.find('[data-testid="profile-error"]').text()).toContain('A profile named “default” already exists')
    expect(env.fake.callsOf('saveProfile')).toEqual([])
  })

  it('deletes a profile only after confirming; the default one resets', async () => {
    env.fake.storedProfiles.set('Reviewer', { name: 'Reviewer', system_prompt: 'Review.', model: '', tools: [] })
    const v = await mountPanel()
    await item(v, 'Reviewer').find('[data-testid="profile-delete"]').trigger('click')
    const confirm = item(v, 'Reviewer').find('[role="alertdialog"]')
    expect(confirm.text()).toContain('Delete “Reviewer”?')
    expect(document.activeElement).toBe(v.find('[data-testid="profile-cancel-delete"]').element)
    await v.find('[data-testid="profile-cancel-delete"]').trigger('click')
    expect(env.fake.callsOf('deleteProfile')).toEqual([])
    expect(names(v)).toEqual(['default', 'Reviewer'])

    await item(v, 'Reviewer').find('[data-testid="profile-delete"]').trigger('click')
    await v.find('[data-testid="profile-confirm-delete"]').trigger('click')
    await settle()
    expect(env.fake.callsOf('deleteProfile')).toEqual([[{ name: 'Reviewer' }]])
    expect(names(v)).toEqual(['default'])
    expect(v.find('[data-testid="profile-status"]').text()).toBe('Deleted the profile “Reviewer”.')

    const def = item(v, 'default').find('[data-testid="profile-delete"]')
    expect(def.text()).toBe('Reset')
    await def.trigger('click')
    expect(item(v, 'default').find('[role="alertdialog"]').text()).toContain('Reset the default profile')
  })

  it("the dialog's Save also saves a profile left open in the editor, and stays when it is refused", async () => {
    const v = await mountPanel()
    await v.find('[data-testid="profile-new"]').trigger('click')
    await v.find('[data-testid="profile-name-input"]').setValue('bad/name')
    await v.find('form').trigger('submit')
    await settle()
    expect(v.find('[data-testid="profile-error"]').text()).toContain('profile name must be')
    expect(env.fake.callsOf('saveSettings')).toEqual([])
    expect(useSettingsStore().panelOpen).toBe(true)

    await v.find('[data-testid="profile-name-input"]').setValue('Writer')
    await v.find('form').trigger('submit')
    await settle()
    expect(env.fake.callsOf('saveProfile').map((c) => (c[0] as { name: string }).name)).toEqual(['bad/name', 'Writer'])
    expect(env.fake.callsOf('saveSettings')).toHaveLength(1)
    expect(useSettingsStore().panelOpen).toBe(false)
  })

  it('shows a failed delete inline', async () => {
    env.fake.storedProfiles.set('Reviewer', { name: 'Reviewer', system_prompt: '', model: '', tools: [] })
    const v = await mountPanel()
    env.fake.failNext('deleteProfile', 'database is locked', 500)
    await item(v, 'Reviewer').find('[data-testid="profile-delete"]').trigger('click')
    await v.find('[data-testid="profile-confirm-delete"]').trigger('click')
    await settle()
    expect(v.find('[data-testid="profile-delete-error"]').text()).toBe('database is locked')
    await v.find('[data-testid="profile-cancel-delete"]').trigger('click')
    expect(names(v)).toEqual(['default', 'Reviewer'])
  })
})
