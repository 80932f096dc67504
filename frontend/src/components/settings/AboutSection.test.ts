// Settings → About (SPEC §13) against the fake transport: the version and
// how Parley was installed, automatic checks in the shared form, "Check
// for updates" and what came of it, an available update's notes in the
// user's language, "Restart to update"; and the notice atop the chat.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mount, type VueWrapper } from '@vue/test-utils'
import { defineComponent, h } from 'vue'
import AboutSection from './AboutSection.vue'
import UpdateNotice from '../chat/UpdateNotice.vue'
import { provideSettingsForm, type SettingsForm } from './settingsForm'
import { mountInBody, resetDom, settle, setupEnv, type TestEnv } from '../../test-utils'
import { useSettingsStore } from '../../stores/settings'
import { useUpdatesStore } from '../../stores/updates'
import { connectEvents } from '../../stores/events'
import { setLanguage } from '../../i18n'
import type { UpdateStatus } from '../../types'

let env: TestEnv
let w: VueWrapper | null = null
let form: SettingsForm['form']
beforeEach(() => {
  env = setupEnv()
})
afterEach(async () => {
  w?.unmount()
  w = null
  resetDom()
  await setLanguage('en')
})

const offered = { version: '1.1.0', notes: 'Faster answers.\nFewer questions.', published: '2026-11-28T10:00:00Z', size: 6_400_000 }
const status = (s: Partial<UpdateStatus>): UpdateStatus => ({ current: '1.0.0', kind: 'tar', auto: true, state: 'idle', available: null, ...s })

async function mountSection() {
  await useSettingsStore().loadInfo()
  const Host = defineComponent({
    setup() {
      form = provideSettingsForm().form
      return () => h(AboutSection)
    },
  })
  w = mount(Host, { global: { plugins: [env.pinia] }, attachTo: document.body })
  await settle()
  return w
}
const find = (id: string) => w!.find(`[data-testid="${id}"]`)

describe('Settings → About', () => {
  it('a build that never updates itself says so, and offers no check', async () => {
    await mountSection()
    expect(find('version').text()).toBe('Parley fake')
    expect(find('update-kind').text()).toBe('This build does not update itself: it was not installed from a Parley package.')
    expect(find('updates-section').exists()).toBe(false)
  })

  it('says how Parley was installed, and "Check for updates" says it is up to date', async () => {
    env.fake.updateStatus = status({ kind: 'deb' })
    await mountSection()
    expect(find('update-kind').text()).toBe('Installed as a Debian package (updates go through the package manager)')
    expect(find('update-state').text()).toBe('')
    expect(find('update-restart').exists()).toBe(false)

    await find('update-check').trigger('click')
    await settle()
    expect(env.fake.callsOf('checkUpdate')).toHaveLength(1)
    expect(find('update-state').text()).toBe('Parley fake is up to date.')
    expect(find('update-state').attributes('role')).toBe('status')
    expect(find('update-checked-at').text()).toMatch(/^Last checked /)
  })

  it('the automatic-checks switch edits the form (saved with Save)', async () => {
    env.fake.updateStatus = status({})
    await mountSection()
    const sw = find('update-auto')
    expect(sw.attributes('role')).toBe('switch')
    expect(sw.attributes('aria-describedby')).toBe('update-auto-hint')
    expect((sw.element as HTMLInputElement).checked).toBe(true)
    await sw.setValue(false)
    expect(form.update_checks).toBe('off')
    await sw.setValue(true)
    expect(form.update_checks).toBe('on')
  })

  it('a ready update shows its version, size and notes, and "Restart to update" installs it', async () => {
    env.fake.updateStatus = status({ state: 'ready', available: offered })
    await mountSection()
    expect(find('update-state').text()).toBe('Parley 1.1.0 is downloaded and verified, ready to install.')
    expect(find('update-available').find('h3').text()).toBe("What's new in Parley 1.1.0")
    expect(find('update-notes').text()).toBe('Faster answers.\nFewer questions.')
    expect(find('update-available').text()).toContain('· 6.1 MB')

    await find('update-restart').trigger('click')
    await settle()
    expect(env.fake.callsOf('applyUpdate')).toHaveLength(1)
    expect(find('update-state').text()).toBe('Installing Parley 1.1.0 and restarting…')
    expect((find('update-restart').element as HTMLButtonElement).disabled).toBe(true)
    expect((find('update-check').element as HTMLButtonElement).disabled).toBe(true)
    useUpdatesStore().restarting = null // stop waiting
  })

  it('follows the download through update:state', async () => {
    const off = connectEvents()
    try {
      env.fake.updateStatus = status({})
      await mountSection()
      env.fake.setUpdate({ state: 'downloading', available: offered })
      await settle()
      expect(find('update-state').text()).toBe('Downloading and verifying Parley 1.1.0…')
      expect((find('update-check').element as HTMLButtonElement).disabled).toBe(true)
      env.fake.setUpdate({ state: 'ready' })
      await settle()
      expect(find('update-restart').exists()).toBe(true)
    } finally {
      off()
    }
  })

  it('a refused feed is said with its reason, as an alert', async () => {
    env.fake.updateStatus = status({})
    env.fake.nextCheck = status({ state: 'refused', error: 'the feed expired on 2026-10-01T00:00:00Z' })
    await mountSection()
    await find('update-check').trigger('click')
    await settle()
    expect(find('update-refused').text()).toBe('Update refused, nothing was installed: the feed expired on 2026-10-01T00:00:00Z')
    expect(find('update-refused').attributes('role')).toBe('alert')
  })

  it('offline: nothing said after an automatic check, the reason after the user checks', async () => {
    env.fake.updateStatus = status({ state: 'error', error: 'cannot reach the update feed: dial tcp: connection refused' })
    await mountSection()
    expect(find('update-error').exists()).toBe(false)
    await find('update-check').trigger('click')
    await settle()
    expect(find('update-error').text()).toBe('Could not check for updates: cannot reach the update feed: dial tcp: connection refused')
  })

  it('a download that failed is said as such, after an automatic check too', async () => {
    env.fake.updateStatus = status({ state: 'error', error: 'cannot reach the update feed: download cut after 10 of 20 bytes', available: offered })
    await mountSection()
    expect(find('update-error').text()).toBe('The download of the update failed: cannot reach the update feed: download cut after 10 of 20 bytes')
  })

  it('speaks the user language (the notes come from Go in it)', async () => {
    await setLanguage('de')
    env.fake.updateStatus = status({ state: 'ready', available: { ...offered, notes: 'Schnellere Antworten.' } })
    await mountSection()
    expect(find('update-kind').text()).toBe('Aus dem Tarball installiert')
    expect(find('update-state').text()).toBe('Parley 1.1.0 ist heruntergeladen, geprüft und bereit zur Installation.')
    expect(find('update-notes').text()).toBe('Schnellere Antworten.')
    expect(find('update-restart').text()).toBe('Neu starten und aktualisieren')
  })
})

describe('the update notice', () => {
  it('shows once a version is ready; "What\'s new" opens Settings → About; × dismisses it', async () => {
    const off = connectEvents()
    try {
      env.fake.updateStatus = status({})
      const n = await mountInBody(UpdateNotice, env)
      expect(n.find('[data-testid="update-notice"]').exists()).toBe(false)
      expect(n.find('[role="status"]').exists()).toBe(true) // the live region waits in the page

      env.fake.setUpdate({ state: 'ready', available: offered })
      await settle()
      expect(n.find('[data-testid="update-notice"]').text()).toContain('Parley 1.1.0 is ready to install.')
      await n.find('[data-testid="update-notice-details"]').trigger('click')
      await settle()
      expect(useSettingsStore().panelOpen).toBe(true)
      expect(useSettingsStore().panelSection).toBe('about')
      expect(n.find('[data-testid="update-notice"]').exists()).toBe(false)

      // Ready again (another check): not announced twice.
      env.fake.setUpdate({ state: 'ready' })
      await settle()
      expect(n.find('[data-testid="update-notice"]').exists()).toBe(false)
    } finally {
      off()
    }
  })

  it('"Restart to update" from the notice installs it', async () => {
    env.fake.updateStatus = status({ state: 'ready', available: offered })
    await useUpdatesStore().load()
    const n = await mountInBody(UpdateNotice, env)
    await n.find('[data-testid="update-notice-restart"]').trigger('click')
    await settle()
    expect(env.fake.callsOf('applyUpdate')).toHaveLength(1)
    expect(n.find('[data-testid="update-notice"]').exists()).toBe(false)
    useUpdatesStore().restarting = null
  })

  it('× dismisses it', async () => {
    env.fake.updateStatus = status({ state: 'ready', available: offered })
    await useUpdatesStore().load()
    const n = await mountInBody(UpdateNotice, env)
    const dismiss = n.find('[data-testid="update-notice-dismiss"]')
    expect(dismiss.attributes('aria-label')).toBe('Dismiss')
    await dismiss.trigger('click')
    expect(n.find('[data-testid="update-notice"]').exists()).toBe(false)
  })
})
