// Updates (SPEC §13, Settings → About): the updater's state as Go reports
// it (GET /api/v1/update, then the update:state events), a check the user
// asks for, and "Restart to update". Automatic checks that cannot reach
// the feed say nothing; a check the user asked for says what came of it.
// A ready update is announced once per version (the notice), remembered
// across restarts.
import { defineStore } from 'pinia'
import type { UpdateStatus } from '../types'
import { useTransport } from '../transport'
import { t } from '../i18n'
import { attempt, loadInto } from './asyncState'

/** What About shows: the updater's state, read for a person. */
export type UpdatePhase =
  | 'unknown' // not read yet
  | 'unsupported' // a build that never updates itself (no install kind)
  | 'idle' // nothing to say (never checked, or offline on an automatic check)
  | 'checking'
  | 'upToDate'
  | 'available' // offered, not downloaded yet
  | 'downloading'
  | 'ready'
  | 'restarting'
  | 'error' // a check the user asked for could not reach the feed, or the download failed
  | 'refused' // the feed or the download was refused: nothing installed

/** The version whose notice was shown (or dismissed). */
export const NOTICE_KEY = 'parley.updateNoticeShown'
/** How often, and how long, "Restart to update" looks for the new version. */
export const RESTART_POLL_MS = 500
export const RESTART_WAIT_MS = 90_000

function noticeShown(): string | null {
  try {
    return localStorage.getItem(NOTICE_KEY)
  } catch {
    return null
  }
}

interface State {
  status: UpdateStatus | null
  loading: boolean
  loadError: string | null
  /** A check the user asked for is on its way. */
  checking: boolean
  /** The user asked for a check in this window: its outcome is said, errors included. */
  asked: boolean
  /** Why the check the user asked for failed (the call itself). */
  checkError: string | null
  applying: boolean
  applyError: string | null
  /** "Restart to update" was accepted: waiting for the new version. */
  restarting: string | null
  /** The ready version the notice shows now (null: none). */
  notice: string | null
}

/** The page is reloaded once the new version answers (tests replace it). */
let reload: () => void = () => location.reload()
export function setUpdateReload(fn: () => void): void {
  reload = fn
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

export const useUpdatesStore = defineStore('updates', {
  state: (): State => ({
    status: null,
    loading: false,
    loadError: null,
    checking: false,
    asked: false,
    checkError: null,
    applying: false,
    applyError: null,
    restarting: null,
    notice: null,
  }),

  getters: {
    phase(state): UpdatePhase {
      const s = state.status
      if (state.restarting) return 'restarting'
      if (state.checking) return 'checking'
      if (!s) return state.checkError ? 'error' : 'unknown'
      if (!s.kind) return 'unsupported'
      switch (s.state) {
        case 'checking':
          return 'checking'
        case 'downloading':
          return 'downloading'
        case 'ready':
          return 'ready'
        case 'refused':
          return 'refused'
        case 'error':
          // Offline on an automatic check: nothing is said. A download
          // that failed after an update was offered is said, as is any
          // failure of a check the user asked for.
          return state.asked || s.available ? 'error' : 'idle'
      }
      if (s.available) return 'available'
      return s.checked_at && state.asked ? 'upToDate' : 'idle'
    },
    /** The reason of an error or a refusal. */
    reason(state): string {
      return state.checkError ?? state.status?.error ?? ''
    },
  },

  actions: {
    /** Reads the updater's state (at start, on reconnecting, when About opens). */
    load(): Promise<void> {
      return loadInto(this, { loading: 'loading', error: 'loadError' }, async () => {
        this.onState(await useTransport().getUpdate())
      })
    },

    /** The update:state event, and every answer: the state, and the notice once per ready version. */
    onState(status: UpdateStatus | null | undefined): void {
      if (!status || typeof status !== 'object') return
      this.status = status
      const version = status.state === 'ready' ? status.available?.version : undefined
      if (version && !this.restarting && this.notice !== version && noticeShown() !== version) {
        this.notice = version
        try {
          localStorage.setItem(NOTICE_KEY, version)
        } catch {
          // shown once in this window at least
        }
      }
    },

    /** "Check for updates": the outcome is said, whatever it is. */
    async check(): Promise<void> {
      this.asked = true
      await attempt(this, { busy: 'checking', error: 'checkError' }, async () => {
        this.onState(await useTransport().checkUpdate())
      })
    },

    dismissNotice(): void {
      this.notice = null
    },

    /**
     * "Restart to update": Go installs the update and restarts into it. In
     * a browser the page reloads once the new version answers; the desktop
     * window closes and the new version opens its own.
     */
    async apply(): Promise<boolean> {
      const from = this.status?.current ?? ''
      const to = this.status?.available?.version ?? ''
      const done = await attempt(this, { busy: 'applying', error: 'applyError', failed: (err) => t('updates.applyFailed', { error: err.message }) }, () =>
        useTransport().applyUpdate(),
      )
      if (!done.ok) return false
      this.notice = null
      this.restarting = to || from
      void this.waitForRestart(from)
      return true
    },

    /** Polls the backend until another version answers, then reloads the page. */
    async waitForRestart(from: string): Promise<void> {
      const until = Date.now() + RESTART_WAIT_MS
      while (Date.now() < until) {
        await sleep(RESTART_POLL_MS)
        try {
          const h = await useTransport().health()
          if (h.version && h.version !== from) {
            reload()
            return
          }
        } catch {
          // restarting: not answering yet
        }
      }
      this.restarting = null
      this.applyError = t('updates.restartTimeout')
    },
  },
})
