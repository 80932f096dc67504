// The one interface through which the UI talks to the Go side (SPEC §4 and
// §3): the generated calls (one declaration per call in backend/calls) and
// what differs per runtime. Components never see which implementation is in
// use: stores call it, and `pickTransport()` (./index.ts) chooses Wails
// bindings or HTTP + SSE.
import type { AppInfo, EventMap, ExportResult, EventName, AgentListener } from '../types'
import type { Calls } from '../api/calls.gen'
import type { ExportedFile } from '../api/wire.gen'
import { t } from '../i18n'

export type Unsubscribe = () => void
export type EventHandler<E extends EventName> = (payload: EventMap[E]) => void

/** What a file is saved as: an exported conversation, the settings or the full backup (the save dialog's title). */
export type SavedFileKind = 'conversation' | 'settings' | 'backup'

/**
 * The part of a transport that differs per runtime: events, the window's
 * own dialogs, links, the clipboard. The calls themselves are the generated
 * client (../api/calls.gen.ts).
 */
export interface Platform {
  readonly kind: 'wails' | 'http' | 'fake'
  /**
   * True when the Go side shows native file dialogs (the desktop app):
   * saveFile asks where to save and chooseConversationFile asks for the
   * file. Otherwise saveFile gives the text back for the page to download,
   * and the page reads an imported file itself.
   */
  readonly nativeFileDialogs: boolean
  /** Version and data folder (the data folder is empty over HTTP). */
  appInfo(): Promise<AppInfo>
  /**
   * Saves an exported file: the desktop app shows a save dialog ("saved" /
   * "cancelled"); otherwise the text comes back ("content") for the page to
   * download.
   */
  saveFile(file: ExportedFile, what: SavedFileKind): Promise<ExportResult>
  /**
   * The desktop app's open dialog for an exported conversation: the file's
   * text, null when cancelled. Rejects where there is none (the page reads
   * the file from an <input>).
   */
  chooseConversationFile(): Promise<string | null>
  /**
   * The desktop app's open dialog for a full backup (SPEC §14): the file's
   * text, null when cancelled. Rejects where there is none (the page reads
   * the file from an <input>).
   */
  chooseBackupFile(): Promise<string | null>
  /**
   * Native folder and file pickers (the desktop app): absolute paths, none
   * when cancelled. Null where there are none (the browser build takes
   * typed paths).
   */
  readonly choosePaths: ((kind: 'folder' | 'files') => Promise<string[]>) | null
  /** Opens a cited file with its application (the desktop app); false where the build cannot. */
  openSource(path: string): Promise<boolean>
  /** Agents on the machine (SPEC §10): where Parley listens for them. */
  agentListener(): Promise<AgentListener>

  /** Subscribes to a SPEC §3 event (or the local `transport:connection`). */
  on<E extends EventName>(event: E, handler: EventHandler<E>): Unsubscribe
  /**
   * Resolves once events flow to the subscribers (after a first `on`): at
   * once in the desktop app, when the event stream has opened over HTTP —
   * what the server sends before that is not seen.
   */
  eventsOpen(): Promise<void>

  /** Opens an http(s)/mailto link outside the app window. */
  openExternal(url: string): void
  /** Copies text to the system clipboard; resolves false when it could not. */
  copyText(text: string): Promise<boolean>
}

/**
 * The one interface through which the UI talks to the Go side: every call
 * declared in backend/calls (generated), and the platform part.
 */
export interface Transport extends Calls, Platform {}

/** A file for the page to download (no native save dialog): its text and type without parameters. */
export function contentResult(file: ExportedFile): ExportResult {
  const mimeType = (file.mime_type || 'application/octet-stream').split(';')[0]!.trim()
  return { kind: 'content', content: file.content, mimeType }
}

/** An error from the Go side; `status` is the HTTP status when there is one. */
export class TransportError extends Error {
  readonly status?: number
  constructor(message: string, status?: number) {
    super(message)
    this.name = 'TransportError'
    this.status = status
  }
}

/**
 * Turns anything thrown or rejected into an Error. The window rejects a
 * bound method's call with the HTTP API's error body and the HTTP status of
 * the error's kind (`{error, kind, status}`, the Go side's fault.Reply);
 * a string is an error without a status.
 */
export function toError(err: unknown): TransportError {
  if (err instanceof TransportError) return err
  if (err instanceof Error) return new TransportError(err.message || t('chat.runState.error'))
  if (typeof err === 'string') return new TransportError(err || t('chat.runState.error'))
  if (err && typeof err === 'object' && 'error' in err && typeof (err as { error: unknown }).error === 'string') {
    const { error, status } = err as { error: string; status?: unknown }
    return new TransportError(error || t('chat.runState.error'), typeof status === 'number' ? status : undefined)
  }
  return new TransportError(t('chat.runState.error'))
}

/** A small event hub the implementations share. */
export class Emitter {
  private handlers = new Map<string, Set<(payload: never) => void>>()

  on<E extends EventName>(event: E, handler: EventHandler<E>): Unsubscribe {
    let set = this.handlers.get(event)
    if (!set) {
      set = new Set()
      this.handlers.set(event, set)
    }
    set.add(handler as (payload: never) => void)
    return () => {
      set!.delete(handler as (payload: never) => void)
    }
  }

  emit<E extends EventName>(event: E, payload: EventMap[E]): void {
    const set = this.handlers.get(event)
    if (!set) return
    for (const h of [...set]) {
      try {
        ;(h as EventHandler<E>)(payload)
      } catch (err) {
        console.error(`parley: handler for ${event} failed`, err)
      }
    }
  }

  count(event?: EventName): number {
    if (event) return this.handlers.get(event)?.size ?? 0
    let n = 0
    for (const set of this.handlers.values()) n += set.size
    return n
  }
}

const SAFE_URL = /^(https?:|mailto:)/i

/** Whether a link may be opened outside the app. */
export function isSafeExternalUrl(url: string): boolean {
  return SAFE_URL.test(url.trim())
}

/** Clipboard through the browser, with the old execCommand fallback. */
export async function browserCopy(text: string): Promise<boolean> {
  try {
    if (typeof navigator !== 'undefined' && navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text)
      return true
    }
  } catch {
    // fall through to the fallback
  }
  try {
    const ta = document.createElement('textarea')
    ta.value = text
    ta.setAttribute('readonly', '')
    ta.style.position = 'fixed'
    ta.style.opacity = '0'
    document.body.appendChild(ta)
    ta.select()
    const ok = typeof document.execCommand === 'function' && document.execCommand('copy')
    ta.remove()
    return ok
  } catch {
    return false
  }
}
