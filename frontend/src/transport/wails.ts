// Transport over the Wails v2 bindings. The calls are the generated client
// (../api/calls.gen.ts) sent to `window.go.desktop.Calls.<binding>` (Go's
// desktop/calls.gen.go); what only the window does goes to
// `window.go.desktop.DesktopService` and `window.go.main.App`; events come
// through `window.runtime.EventsOn`. Wails generates the bindings into
// frontend/wailsjs (checked in; `wails build` rewrites them and
// scripts/test.sh fails when they changed); ./wailsCheck.ts checks at compile
// time that what is called here exists there. The calls go through
// `window.go` so tests can hand in their own window. Go errors arrive as
// rejected promises carrying a string.
import type { AgentListener, AppInfo, EventName, ExportResult } from '../types'
import type { ExportedFile } from '../api/wire.gen'
import { CALLS, makeCalls, type CallName, type Calls } from '../api/calls.gen'
import {
  browserCopy,
  isSafeExternalUrl,
  toError,
  TransportError,
  type EventHandler,
  type Platform,
  type SavedFileKind,
  type Transport,
  type Unsubscribe,
} from './transport'
import { APPLIED_AT_ONCE, eventBatch } from './eventBatch'

/** `window.go.desktop.DesktopService`: what only the window does (desktop/desktop_service.go). */
export interface WailsDesktopService {
  /** Opens an http(s)/mailto link in the system browser (Go refuses other schemes). */
  OpenURL(url: string): Promise<void>
  /** Asks where to save the file and writes it; the path, or "" when cancelled. */
  SaveFile(file: ExportedFile, what: string): Promise<string>
  /** Asks for an exported conversation; its text, or "" when cancelled. */
  OpenConversationFile(): Promise<string>
  /** Asks for a full backup; its text, or "" when cancelled. */
  OpenBackupFile(): Promise<string>
  /** The system's folder dialog: the path, or "" when cancelled. */
  ChooseFolder(): Promise<string>
  /** The system's file dialog: the paths, none when cancelled. */
  ChooseFiles(): Promise<string[]>
  /** Opens a file a collection indexes with its application (Go checks it). */
  OpenSource(path: string): Promise<void>
  AgentListener(): Promise<AgentListener>
}

/** `window.go.main.App`: the window's own methods. */
export interface WailsApp {
  Info(): Promise<AppInfo>
}

export interface WailsRuntime {
  EventsOn(name: string, callback: (...data: unknown[]) => void): () => void
  BrowserOpenURL?(url: string): void
  ClipboardSetText?(text: string): Promise<boolean>
  /** The native window title (the "(N) " attention prefix follows it). */
  WindowSetTitle?(title: string): void
}

/** `window.go.desktop.Calls`: one bound method per call, named by CALLS[name].binding. */
export type WailsCalls = Record<string, ((req?: unknown) => Promise<unknown>) | undefined>

declare global {
  interface Window {
    go?: {
      main?: { App?: Partial<WailsApp> } & Record<string, unknown>
      desktop?: { Calls?: WailsCalls; DesktopService?: Partial<WailsDesktopService> } & Record<string, unknown>
    } & Record<string, unknown>
    runtime?: WailsRuntime
  }
}

/** The calls through the window's bound methods: Calls.<binding>(req), or Calls.<binding>() for a call without request. */
export function wailsCalls(win: Window): Calls {
  return makeCalls(async (name: CallName, req: unknown) => {
    const spec = CALLS[name]
    const calls = win.go?.desktop?.Calls
    const fn = calls?.[spec.binding]
    if (typeof fn !== 'function') throw new TransportError(`The app backend is not ready (Calls.${spec.binding} is missing)`)
    try {
      return await (spec.noRequest ? fn.call(calls) : fn.call(calls, req))
    } catch (err) {
      throw toError(err)
    }
  })
}

/** The window's platform part: DesktopService, App.Info, Wails' runtime. */
export class WailsPlatform implements Platform {
  readonly kind = 'wails' as const
  readonly nativeFileDialogs = true

  constructor(private readonly win: Window = window) {}

  private async desktop<M extends keyof WailsDesktopService>(
    method: M,
    ...args: Parameters<WailsDesktopService[M]>
  ): Promise<Awaited<ReturnType<WailsDesktopService[M]>>> {
    const svc = this.win.go?.desktop?.DesktopService
    const fn = svc?.[method] as ((...a: unknown[]) => Promise<unknown>) | undefined
    if (typeof fn !== 'function') throw new TransportError(`The app backend is not ready (DesktopService.${method} is missing)`)
    try {
      return (await fn.apply(svc, args)) as Awaited<ReturnType<WailsDesktopService[M]>>
    } catch (err) {
      throw toError(err)
    }
  }

  async appInfo(): Promise<AppInfo> {
    const app = this.win.go?.main?.App
    if (typeof app?.Info !== 'function') throw new TransportError('The app backend is not ready (App.Info is missing)')
    try {
      const info = await app.Info.call(app)
      return { version: info?.version ?? '', dataDir: info?.dataDir ?? '' }
    } catch (err) {
      throw toError(err)
    }
  }

  /** Go shows a save dialog and writes the file. */
  async saveFile(file: ExportedFile, what: SavedFileKind): Promise<ExportResult> {
    const path = await this.desktop('SaveFile', file, what)
    return path ? { kind: 'saved', path } : { kind: 'cancelled' }
  }

  /** Go shows an open dialog and reads the file. */
  async chooseConversationFile(): Promise<string | null> {
    return (await this.desktop('OpenConversationFile')) || null
  }

  /** Go shows an open dialog for a backup and reads the file. */
  async chooseBackupFile(): Promise<string | null> {
    return (await this.desktop('OpenBackupFile')) || null
  }

  /** The system's folder and file dialogs. */
  readonly choosePaths = async (kind: 'folder' | 'files'): Promise<string[]> => {
    if (kind === 'folder') {
      const dir = await this.desktop('ChooseFolder')
      return dir ? [dir] : []
    }
    return (await this.desktop('ChooseFiles')) ?? []
  }

  async openSource(path: string): Promise<boolean> {
    await this.desktop('OpenSource', path)
    return true
  }

  agentListener(): Promise<AgentListener> {
    return this.desktop('AgentListener')
  }

  on<E extends EventName>(event: E, handler: EventHandler<E>): Unsubscribe {
    const rt = this.win.runtime
    if (event === 'transport:connection' || typeof rt?.EventsOn !== 'function') return () => {}
    // Each Go event is its own task here; applied with the events that came with it (./eventBatch), a card at once.
    const now = APPLIED_AT_ONCE.has(event)
    const off = rt.EventsOn(event, (payload: unknown) => eventBatch().push(() => handler(payload as Parameters<EventHandler<E>>[0]), now))
    return typeof off === 'function' ? off : () => {}
  }

  /** Wails' events reach the page from its first subscription. */
  eventsOpen(): Promise<void> {
    return Promise.resolve()
  }

  /** Through DesktopService.OpenURL (Go checks the scheme again), else Wails' runtime. */
  openExternal(url: string): void {
    if (!isSafeExternalUrl(url)) return
    if (typeof this.win.go?.desktop?.DesktopService?.OpenURL === 'function') {
      this.desktop('OpenURL', url).catch((err: unknown) => console.warn('parley: open link', toError(err).message))
    } else if (typeof this.win.runtime?.BrowserOpenURL === 'function') this.win.runtime.BrowserOpenURL(url)
    else this.win.open(url, '_blank', 'noopener,noreferrer')
  }

  async copyText(text: string): Promise<boolean> {
    if (typeof this.win.runtime?.ClipboardSetText === 'function') {
      try {
        if (await this.win.runtime.ClipboardSetText(text)) return true
      } catch {
        // fall back to the browser clipboard
      }
    }
    return browserCopy(text)
  }
}

/** The transport of the desktop window: the generated calls and the window's platform part. */
export interface WailsTransport extends Calls {}
export class WailsTransport extends WailsPlatform implements Transport {
  constructor(win: Window = window) {
    super(win)
    Object.assign(this, wailsCalls(win))
  }
}
