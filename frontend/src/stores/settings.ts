// The user's settings, the model server's status (for onboarding and the
// model picker), pulling an Ollama model, and whether the settings panel is
// open. Saving applies the theme at once through the app store.
import type { SettingsSectionKey } from '../lib/settingsRoute'
import { defineStore } from 'pinia'
import type { AppInfo, ModelPullEvent, ModelStatus, Profile, Settings, ThemeSetting, ToolInfo } from '../types'
import { DEFAULT_PROFILE } from '../types'
import { toError, useTransport } from '../transport'
import { normalizeSettings } from '../lib/settings'
import { useAppStore } from './app'
import { useChatStore } from './chat'
import { language, rememberLanguage, resolveLanguage, setLanguage, t } from '../i18n'

export interface PullState {
  model: string
  status: string
  total: number
  completed: number
  active: boolean
  done: boolean
  error: string | null
}

interface State {
  settings: Settings | null
  /** The saved settings are being read. */
  loading: boolean
  loadError: string | null
  status: ModelStatus | null
  checking: boolean
  /** The status call itself failed (old backend, no connection): not the model server's fault. */
  checkError: string | null
  info: AppInfo | null
  saving: boolean
  saveError: string | null
  pull: PullState | null
  panelOpen: boolean
  /** The section the panel shows first (a #settings/<section> link), null = the top. */
  panelSection: SettingsSectionKey | null
  /** Assistant profiles (the default one first) and the tools they may use. */
  profiles: Profile[]
  tools: ToolInfo[]
  profilesLoaded: boolean
  profilesLoading: boolean
  profilesError: string | null
}

/** Shows the interface in the Settings language ("" = the system's) and remembers it for the next start. */
export function applyLanguage(setting: string): void {
  rememberLanguage(setting)
  const lang = resolveLanguage(setting)
  if (lang !== language()) void setLanguage(lang)
}

let checkSeq = 0
/** The read of the saved settings under way, per store: callers share it. */
const loadRuns = new WeakMap<object, Promise<void>>()

export const useSettingsStore = defineStore('settings', {
  state: (): State => ({
    settings: null,
    loading: false,
    loadError: null,
    status: null,
    checking: false,
    checkError: null,
    info: null,
    saving: false,
    saveError: null,
    pull: null,
    panelOpen: false,
    panelSection: null,
    profiles: [],
    tools: [],
    profilesLoaded: false,
    profilesLoading: false,
    profilesError: null,
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
      this.loading = true
      // The body starts after the run is recorded, so its end always clears it.
      const run = Promise.resolve().then(async () => {
        try {
          this.settings = normalizeSettings(await useTransport().getSettings())
          this.loadError = null
          const app = useAppStore()
          if (this.settings.theme !== app.theme) app.setTheme(this.settings.theme)
          applyLanguage(this.settings.language)
        } catch (err) {
          this.loadError = toError(err).message
        } finally {
          this.loading = false
          loadRuns.delete(this)
        }
      })
      loadRuns.set(this, run)
      return run
    },

    /** Asks the backend whether the model server answers (Retry on onboarding). */
    async check(): Promise<void> {
      const seq = ++checkSeq
      this.checking = true
      try {
        const st = await useTransport().checkModelServer()
        if (seq !== checkSeq) return
        this.status = st
        this.checkError = null
      } catch (err) {
        if (seq !== checkSeq) return
        this.checkError = toError(err).message
      } finally {
        if (seq === checkSeq) this.checking = false
      }
    },

    async loadInfo(): Promise<void> {
      try {
        this.info = await useTransport().appInfo()
      } catch {
        this.info = null
      }
    },

    /**
     * Saves the whole settings object (the backend validates it). On success
     * the theme applies and the model server is checked again; on failure
     * `saveError` holds the backend's message.
     */
    async save(next: Settings): Promise<boolean> {
      this.saving = true
      this.saveError = null
      try {
        const before = this.settings?.language
        const saved = await useTransport().saveSettings(next)
        this.settings = normalizeSettings(saved && typeof saved === 'object' ? saved : next)
        useAppStore().setTheme(this.settings.theme)
        applyLanguage(this.settings.language)
        // A failed run's banner comes from the backend, which now speaks the new language.
        if (before !== undefined && before !== this.settings.language) void useChatStore().refreshErrors()
        await this.check()
        return true
      } catch (err) {
        this.saveError = toError(err).message
        return false
      } finally {
        this.saving = false
      }
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

    /** Downloads an Ollama model; `pull` follows the model:pull events. */
    async pullModel(name: string): Promise<boolean> {
      const model = name.trim()
      if (!model || this.pull?.active) return false
      this.pull = { model, status: t('settings.model.pullStarting'), total: 0, completed: 0, active: true, done: false, error: null }
      try {
        await useTransport().pullModel(model)
        this.pull = { ...this.pull, status: 'success', active: false, done: true, completed: this.pull.total }
        await this.check()
        return true
      } catch (err) {
        this.pull = { ...this.pull, active: false, error: toError(err).message }
        return false
      }
    },

    onPull(p: ModelPullEvent): void {
      const pull = this.pull
      if (!p || !pull || !pull.active || p.model !== pull.model) return
      if (p.status === 'error') {
        // The download failed on the server's side (also mid-stream).
        pull.active = false
        pull.error = p.error || t('settings.model.pullFailed')
        return
      }
      if (typeof p.status === 'string' && p.status) pull.status = p.status
      if (typeof p.total === 'number' && p.total > 0) {
        pull.total = p.total
        pull.completed = typeof p.completed === 'number' ? p.completed : 0
      } else if (!p.total) {
        pull.total = 0
        pull.completed = 0
      }
    },

    dismissPull(): void {
      if (!this.pull?.active) this.pull = null
    },

    // ---- assistant profiles ----------------------------------------------------

    /** Loads the profiles and the tools they can opt in to. */
    async loadProfiles(): Promise<void> {
      this.profilesLoading = true
      try {
        const t = useTransport()
        const [profiles, tools] = await Promise.all([t.listProfiles(), t.availableTools()])
        this.profiles = profiles
        this.tools = tools
        this.profilesLoaded = true
        this.profilesError = null
      } catch (err) {
        this.profilesError = toError(err).message
      } finally {
        this.profilesLoading = false
      }
    },

    /**
     * Creates or replaces a profile. Resolves with the backend's message when
     * it refuses (shown next to the form), null when saved.
     */
    async saveProfile(p: Profile): Promise<string | null> {
      try {
        const saved = await useTransport().saveProfile({ ...p, tools: [...p.tools] })
        const i = this.profiles.findIndex((x) => x.name === saved.name)
        if (i >= 0) this.profiles[i] = saved
        else this.profiles.push(saved)
        return null
      } catch (err) {
        return toError(err).message
      }
    },

    /** Deletes a profile (the default one resets); resolves with an error message or null. */
    async deleteProfile(name: string): Promise<string | null> {
      try {
        await useTransport().deleteProfile(name)
      } catch (err) {
        return toError(err).message
      }
      if (name === DEFAULT_PROFILE) {
        // It is back to its defaults: read them.
        await this.loadProfiles()
      } else {
        this.profiles = this.profiles.filter((p) => p.name !== name)
      }
      return null
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
  },
})
