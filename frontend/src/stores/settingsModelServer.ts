// The model server, as state and actions of the settings store (spread into
// it in ./settings.ts): whether it answers and its models (onboarding, the
// model pickers), the app's info, and pulling an Ollama model.
import type { AppInfo, ModelPullEvent, ModelStatus } from '../types'
import { useTransport } from '../transport'
import { t } from '../i18n'
import { attempt, loadInto } from './asyncState'

export interface PullState {
  model: string
  status: string
  total: number
  completed: number
  active: boolean
  done: boolean
  error: string | null
}

export interface ModelServerState {
  status: ModelStatus | null
  checking: boolean
  /** The status call itself failed (old backend, no connection): not the model server's fault. */
  checkError: string | null
  info: AppInfo | null
  pull: PullState | null
}

export function modelServerState(): ModelServerState {
  return { status: null, checking: false, checkError: null, info: null, pull: null }
}

/** What of the settings store the actions use. */
type Host = ModelServerState & { check(): Promise<void> }

/** The latest check: an older one's answer changes nothing. */
let checkSeq = 0

export const modelServerActions = {
  /** Asks the backend whether the model server answers (Retry on onboarding). */
  check(this: Host): Promise<void> {
    const seq = ++checkSeq
    return loadInto(this, { loading: 'checking', error: 'checkError', stale: () => seq !== checkSeq }, async () => {
      const st = await useTransport().checkModelServer()
      if (seq === checkSeq) this.status = st
    })
  },

  async loadInfo(this: Host): Promise<void> {
    const done = await attempt(this, {}, () => useTransport().appInfo())
    this.info = done.ok ? done.value : null
  },

  /** Downloads an Ollama model; `pull` follows the model:pull events. */
  async pullModel(this: Host, name: string): Promise<boolean> {
    const model = name.trim()
    if (!model || this.pull?.active) return false
    const pull: PullState = { model, status: t('settings.model.pullStarting'), total: 0, completed: 0, active: true, done: false, error: null }
    this.pull = pull
    const done = await attempt(this, {}, async () => {
      await useTransport().pullModel({ model })
      const now = this.pull ?? pull
      this.pull = { ...now, status: 'success', active: false, done: true, completed: now.total }
      await this.check()
    })
    if (!done.ok) this.pull = { ...(this.pull ?? pull), active: false, error: done.error }
    return done.ok
  },

  onPull(this: Host, p: ModelPullEvent): void {
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

  dismissPull(this: Host): void {
    if (!this.pull?.active) this.pull = null
  },
}
