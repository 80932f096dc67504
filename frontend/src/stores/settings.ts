// The settings store: the user's settings (saving applies the theme and the
// language at once) and whether the settings panel is open. The model
// server's status and pulls (./settingsModelServer.ts) and the assistant
// profiles (./settingsProfiles.ts) are state and actions of their own,
// spread into this store.
import type { SettingsSectionKey } from '../lib/settingsRoute'
import { defineStore } from 'pinia'
import type { Settings, ThemeSetting } from '../types'
import { useTransport } from '../transport'
import { normalizeSettings } from '../lib/settings'
import { useAppStore } from './app'
import { useChatStore } from './chat'
import { language, rememberLanguage, resolveLanguage, setLanguage } from '../i18n'
import { attempt, loadInto } from './asyncState'
import { modelServerActions, modelServerState, type ModelServerState } from './settingsModelServer'
import { profilesActions, profilesState, type ProfilesState } from './settingsProfiles'

export type { PullState } from './settingsModelServer'

interface State extends ModelServerState, ProfilesState {
  settings: Settings | null
  /** The saved settings are being read. */
  loading: boolean
  loadError: string | null
  saving: boolean
  saveError: string | null
  panelOpen: boolean
  /** The section the panel shows first (a #settings/<section> link), null = the top. */
  panelSection: SettingsSectionKey | null
}

/** Shows the interface in the Settings language ("" = the system's) and remembers it for the next start. */
export function applyLanguage(setting: string): void {
  rememberLanguage(setting)
  const lang = resolveLanguage(setting)
  if (lang !== language()) void setLanguage(lang)
}

/** The read of the saved settings under way, per store: callers share it. */
const loadRuns = new WeakMap<object, Promise<void>>()

export const useSettingsStore = defineStore('settings', {
  state: (): State => ({
    settings: null,
    loading: false,
    loadError: null,
    saving: false,
    saveError: null,
    panelOpen: false,
    panelSection: null,
    ...modelServerState(),
    ...profilesState(),
  }),

  getters: {
    demoMode(state): boolean {
      return !!(state.settings?.demo_mode || state.status?.demo)
    },
    /**
     * Show the first-run / no-model-server screen: the server does not answer
     * (and demo mode is off), or no model is chosen. Unknown until checked.
     */
    needsOnboarding(state): boolean {
      const st = state.status
      if (!st || st.demo || state.settings?.demo_mode) return false
      return !st.reachable || !(st.model || state.settings?.model)
    },
  },

  actions: {
    /** Loads settings, the model server's status and the app info. */
    async init(): Promise<void> {
      await Promise.all([this.load(), this.check(), this.loadInfo()])
    },

    load(): Promise<void> {
      const running = loadRuns.get(this)
      if (running) return running
      const run = loadInto(this, { loading: 'loading', error: 'loadError' }, async () => {
        const settings = normalizeSettings(await useTransport().getSettings())
        this.settings = settings
        const app = useAppStore()
        if (settings.theme !== app.theme) app.setTheme(settings.theme)
        applyLanguage(settings.language)
      }).finally(() => loadRuns.delete(this)) // later, so always after the set below
      loadRuns.set(this, run)
      return run
    },

    /**
     * Saves the whole settings object (the backend validates it). On success
     * the theme applies and the model server is checked again; on failure
     * `saveError` holds the backend's message.
     */
    async save(next: Settings): Promise<boolean> {
      const done = await attempt(this, { busy: 'saving', error: 'saveError' }, async () => {
        const before = this.settings?.language
        const saved = await useTransport().saveSettings(next)
        const settings = normalizeSettings(saved && typeof saved === 'object' ? saved : next)
        this.settings = settings
        useAppStore().setTheme(settings.theme)
        applyLanguage(settings.language)
        // A failed run's banner comes from the backend, which now speaks the new language.
        if (before !== undefined && before !== settings.language) void useChatStore().refreshErrors()
        await this.check()
      })
      return done.ok
    },

    /** Saves a few fields on top of the current settings. */
    async update(patch: Partial<Settings>): Promise<boolean> {
      const base = this.settings ?? (await this.load(), this.settings)
      return this.save({ ...normalizeSettings(base), ...patch })
    },

    /** "Try the demo": scripted assistant, no model server needed. */
    tryDemo(): Promise<boolean> {
      return this.update({ demo_mode: true, onboarded: true })
    },

    /** The header's theme button: applies at once and saves when settings are known. */
    setTheme(theme: ThemeSetting): void {
      useAppStore().setTheme(theme)
      if (this.settings && this.settings.theme !== theme) {
        const next = { ...this.settings, theme }
        void useTransport()
          .saveSettings(next)
          .then((saved) => {
            this.settings = normalizeSettings(saved && typeof saved === 'object' ? saved : next)
          })
          .catch(() => {
            // the theme still applies to this window
          })
      }
    },

    openPanel(section: SettingsSectionKey | null = null): void {
      this.saveError = null
      this.panelSection = section
      this.panelOpen = true
    },

    closePanel(): void {
      this.panelOpen = false
      this.panelSection = null
      this.saveError = null
    },

    ...modelServerActions,
    ...profilesActions,
  },
})
