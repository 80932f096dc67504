// Attention requests while Parley is in the background. When a card arrives
// and the window (or tab) is not focused: a desktop notification through the
// Web Notifications API, and a "(N) " prefix on the title with the number of
// pending cards, removed when the window gets focus again. Over Wails the
// native window title follows (runtime.WindowSetTitle); the window is never
// raised or focused on its own (no WindowShow): only a click on the
// notification brings it forward.
import type { Card } from '../types'
import { agentHeading, cardAgent, cardSummary } from './cards'
import { t } from '../i18n'

/**
 * The notification's title (in the current language): who asks. An agent's
 * card (SPEC §10) names the agent ("claude-code has a question"); the
 * assistant's own cards are Parley's ("Parley has a question").
 */
export function notificationTitle(card?: Card): string {
  const agent = card ? cardAgent(card) : ''
  if (agent) return agentHeading(agent, card?.kind === 'question' ? card.questions.length : 1)
  return t('questions.notification.title')
}
/** The title of an agent's notice (SPEC §10): it asks nothing. */
export function noticeTitle(): string {
  return t('questions.notification.notice')
}
/** Longest notification body; longer questions are cut with an ellipsis. */
export const BODY_MAX = 200
const PREFIX = /^\(\d+\) /

export interface NotificationLike {
  onclick: ((this: never, ev: Event) => unknown) | null
  close(): void
}

/** The part of the `Notification` constructor this module uses. */
export interface NotificationApi {
  new (title: string, options?: NotificationOptions): NotificationLike
  readonly permission: NotificationPermission
  requestPermission(callback?: (permission: NotificationPermission) => void): Promise<NotificationPermission> | void
}

interface Listenable {
  addEventListener(type: string, listener: () => void): void
  removeEventListener(type: string, listener: () => void): void
}

export interface AttentionDocument extends Listenable {
  hasFocus(): boolean
  readonly visibilityState: string
  title: string
}

export interface AttentionWindow extends Listenable {
  focus(): void
  runtime?: { WindowSetTitle?(title: string): void }
}

/** A native desktop notification (the Go side, in the Wails app). */
export interface NativeNotifier {
  notify(title: string, body: string): Promise<unknown>
  /** Asks the window manager to draw attention to the window (or stops). */
  attention(on: boolean): Promise<unknown>
}

interface WailsDesktopWindow {
  go?: {
    desktop?: {
      DesktopService?: {
        Notify?(title: string, body: string): Promise<unknown>
        RequestAttention?(): Promise<unknown>
        ClearAttention?(): Promise<unknown>
      }
    }
  }
}

/** The Go DesktopService binding when running in the Wails app, else null. */
export function nativeNotifier(win: unknown): NativeNotifier | null {
  const svc = (win as WailsDesktopWindow | null)?.go?.desktop?.DesktopService
  if (!svc || typeof svc.Notify !== 'function') return null
  return {
    notify: (title, body) => svc.Notify!(title, body),
    attention: (on) => {
      const call = on ? svc.RequestAttention : svc.ClearAttention
      return typeof call === 'function' ? call() : Promise.resolve()
    },
  }
}

/** What the module reaches in the page; tests pass fakes. */
export interface AttentionEnv {
  document: AttentionDocument | null
  window: AttentionWindow | null
  /** null: notifications are not available. */
  Notification: NotificationApi | null
  /** Native notifications (Wails app); preferred over Web Notifications. */
  native: NativeNotifier | null
}

export interface AttentionOptions {
  /** Number of pending cards, read whenever the title is drawn. */
  pendingCount(): number
  /** Shows the card (its conversation); the user clicked its notification. */
  openCard(card: Card): void
  /** Replaces parts of the page environment (tests). */
  env?: Partial<AttentionEnv>
}

export interface Attention {
  /** A card arrived (question:ask). Notifies once per card, only while unfocused. */
  cardArrived(card: Card): void
  /** An agent's notice (SPEC §10): notifies while unfocused, as a card does. */
  noticeArrived(agent: string, message: string): void
  /** A card was answered or closed: its notification goes away. */
  cardResolved(card: Card): void
  /** Redraws the title (the number of pending cards changed). */
  refresh(): void
  /** The window has focus and is visible. */
  isFocused(): boolean
  /** Removes listeners and the title prefix. */
  dispose(): void
}

function defaultEnv(): AttentionEnv {
  return {
    document: typeof document === 'undefined' ? null : document,
    window: typeof window === 'undefined' ? null : window,
    Notification: typeof Notification === 'undefined' ? null : (Notification as unknown as NotificationApi),
    native: typeof window === 'undefined' ? null : nativeNotifier(window),
  }
}

/** What the card asks (the first question) as a short plain-text notification body. */
export function notificationBody(card: Card): string {
  const agent = card.source?.type === 'agent' && card.source.agent ? `${card.source.agent}: ` : ''
  const text = (agent + cardSummary(card)).replace(/\s+/g, ' ').trim()
  if (!text) return t('questions.notification.waiting')
  return text.length > BODY_MAX ? text.slice(0, BODY_MAX - 1).trimEnd() + '…' : text
}

export function createAttention(opts: AttentionOptions): Attention {
  const env: AttentionEnv = { ...defaultEnv(), ...opts.env }
  const doc = env.document
  const win = env.window
  const Api = env.Notification

  /** Cards already seen by cardArrived (each notifies at most once). */
  const seen = new Set<string>()
  /** Cards resolved: a notification waiting for permission is not shown. */
  const resolved = new Set<string>()
  const shown = new Map<string, NotificationLike>()
  /** A card arrived while unfocused and the user has not come back yet. */
  let requested = false
  let permissionAsk: Promise<NotificationPermission> | null = null
  let disposed = false
  /** The native window attention request is on. */
  let attentionOn = false

  function isFocused(): boolean {
    if (!doc) return true
    return doc.visibilityState !== 'hidden' && doc.hasFocus()
  }

  function setTitle(next: string): void {
    if (!doc || doc.title === next) return
    doc.title = next
    try {
      win?.runtime?.WindowSetTitle?.(next)
    } catch {
      // the native title is a nicety
    }
  }

  function render(): void {
    if (!doc) return
    const base = doc.title.replace(PREFIX, '')
    const n = requested && !isFocused() ? opts.pendingCount() : 0
    setTitle(n > 0 ? `(${n}) ${base}` : base)
  }

  function closeNotification(id: string): void {
    const n = shown.get(id)
    if (!n) return
    shown.delete(id)
    try {
      n.close()
    } catch {
      // already gone
    }
  }

  /** The user is back: drop the prefix; the inbox shows what the notifications said. */
  function onWindowFocus(): void {
    // A window 'focus' event means focus even if hasFocus() lags behind.
    if (disposed) return
    requested = false
    render()
    for (const id of [...shown.keys()]) closeNotification(id)
    if (attentionOn) {
      attentionOn = false
      env.native?.attention(false).catch(() => undefined)
    }
  }
  function onVisibility(): void {
    if (isFocused()) onWindowFocus()
  }

  win?.addEventListener('focus', onWindowFocus)
  doc?.addEventListener('visibilitychange', onVisibility)

  /**
   * Asks once per session, and never when the user has said no. The first
   * call reads the permission (and asks if need be); later calls return its
   * answer without reading it again.
   */
  function askPermission(): Promise<NotificationPermission> {
    if (!Api) return Promise.resolve('denied')
    if (permissionAsk) return permissionAsk
    const now = Api.permission
    if (now !== 'default') return (permissionAsk = Promise.resolve(now))
    return (permissionAsk = new Promise<NotificationPermission>((resolve) => {
      try {
        // Old Safari takes a callback and returns nothing.
        const res = Api.requestPermission(resolve)
        if (res && typeof res.then === 'function') res.then(resolve, () => resolve('denied'))
      } catch {
        resolve('denied')
      }
    }))
  }

  function show(card: Card): void {
    const id = card.question_id
    if (!Api || disposed || resolved.has(id) || shown.has(id) || isFocused()) return
    try {
      const n = new Api(notificationTitle(card), { body: notificationBody(card), tag: `parley-question-${id}` })
      n.onclick = () => {
        shown.delete(id)
        try {
          n.close()
        } catch {
          // already gone
        }
        if (disposed) return
        win?.focus()
        requested = false
        render()
        opts.openCard(card)
      }
      shown.set(id, n)
    } catch {
      // e.g. a browser that only allows notifications from a service worker
    }
  }

  return {
    cardArrived(card: Card): void {
      if (disposed || !card?.question_id || card.status !== 'pending' || seen.has(card.question_id)) return
      seen.add(card.question_id)
      const focused = isFocused()
      if (!focused) {
        requested = true
        render()
      }
      if (env.native) {
        // In the desktop app: the OS notification (a click on it cannot be
        // handled; the title prefix and the inbox lead to the card).
        if (!focused) {
          env.native.notify(notificationTitle(card), notificationBody(card)).catch(() => undefined)
          attentionOn = true
          env.native.attention(true).catch(() => undefined)
        }
        return
      }
      if (!Api) return
      if (focused) {
        // Nothing to show. The first card asks for permission (so that a
        // card arriving while the user is away can notify); after it, a
        // focused page reads nothing: in Chromium each read of
        // Notification.permission is a synchronous call to the browser
        // process, which held the task after the card's paint for
        // milliseconds (three reads a card; issue #42).
        void askPermission()
        return
      }
      const permission = Api.permission
      if (permission === 'granted') show(card)
      else if (permission === 'default') {
        // Asked on the first card only (askPermission remembers the answer).
        void askPermission().then((p) => {
          if (p === 'granted') show(card)
        })
      }
    },

    noticeArrived(agent: string, message: string): void {
      if (disposed || isFocused()) return
      const body = `${agent}: ${message}`.replace(/\s+/g, ' ').trim().slice(0, BODY_MAX)
      if (env.native) {
        env.native.notify(noticeTitle(), body).catch(() => undefined)
        return
      }
      if (Api?.permission === 'granted') {
        try {
          new Api(noticeTitle(), { body })
        } catch {
          // notifications only from a service worker
        }
      }
    },

    cardResolved(card: Card): void {
      if (!card?.question_id) return
      resolved.add(card.question_id)
      closeNotification(card.question_id)
      render()
    },

    refresh(): void {
      if (!disposed) render()
    },

    isFocused,

    dispose(): void {
      if (disposed) return
      requested = false
      render()
      disposed = true
      win?.removeEventListener('focus', onWindowFocus)
      doc?.removeEventListener('visibilitychange', onVisibility)
      for (const id of [...shown.keys()]) closeNotification(id)
    },
  }
}
