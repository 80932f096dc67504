// Transport for a browser talking to `parley serve`: the generated calls
// (../api/calls.gen.ts) each sent by one generic request as CALLS says (path
// params, query, JSON or raw body, a file answer) with cookie auth on the
// same origin, and one EventSource on /api/v1/events with named events that
// reconnects after losses.
import { SERVER_EVENTS, type AgentListener, type AppInfo, type EventMap, type EventName, type ExportResult } from '../types'
import type { ExportedFile } from '../api/wire.gen'
import { CALLS, makeCalls, type CallName, type CallSpec, type Calls } from '../api/calls.gen'
import {
  browserCopy,
  contentResult,
  Emitter,
  isSafeExternalUrl,
  TransportError,
  type EventHandler,
  type SavedFileKind,
  type Transport,
  type Unsubscribe,
} from './transport'
import { t } from '../i18n'
import { APPLIED_AT_ONCE, eventBatch } from './eventBatch'

export interface HttpTransportOptions {
  /** Prefix of every API path (default "/api/v1"). */
  base?: string
  fetch?: typeof fetch
  EventSource?: typeof EventSource
  /** First reconnect delay in ms (doubles up to maxReconnectDelay). */
  reconnectDelay?: number
  maxReconnectDelay?: number
}

function parseJSON(text: string): unknown {
  if (!text) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** The path of a call with its {params} filled, and the request's fields left for the query and body. */
export function callPath(spec: CallSpec, req: unknown): { path: string; rest: Record<string, unknown> } {
  const rest: Record<string, unknown> = req && typeof req === 'object' && !Array.isArray(req) ? { ...(req as Record<string, unknown>) } : {}
  const path = spec.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = rest[name]
    delete rest[name]
    return encodeURIComponent(v === undefined || v === null ? '' : String(v))
  })
  const qs = new URLSearchParams()
  for (const name of spec.query) {
    const v = rest[name]
    delete rest[name]
    if (v !== undefined && v !== null && v !== '') qs.set(name, String(v))
  }
  const query = qs.toString()
  return { path: query ? `${path}?${query}` : path, rest }
}

/** The file name of a Content-Disposition header (filename* first), or "". */
export function dispositionName(header: string | null): string {
  if (!header) return ''
  const star = /filename\*\s*=\s*([^;]+)/i.exec(header)
  if (star) {
    const v = star[1]!.trim().replace(/^"(.*)"$/, '$1')
    const at = v.indexOf("''")
    try {
      return decodeURIComponent(at >= 0 ? v.slice(at + 2) : v)
    } catch {
      // fall through to filename=
    }
  }
  const plain = /filename\s*=\s*("((?:[^"\\]|\\.)*)"|[^;]+)/i.exec(header)
  if (!plain) return ''
  return plain[2] !== undefined ? plain[2].replace(/\\(.)/g, '$1') : plain[1]!.trim()
}

export interface HttpTransport extends Calls {}
export class HttpTransport implements Transport {
  readonly kind = 'http' as const
  readonly nativeFileDialogs = false
  private readonly base: string
  private readonly fetchFn: typeof fetch
  private readonly ES: typeof EventSource | undefined
  private readonly emitter = new Emitter()
  private source: EventSource | null = null
  private reconnectTimer: ReturnType<typeof setTimeout> | null = null
  private attempts = 0
  private lostConnection = false
  private markOpen: () => void = () => {}
  /** Resolved when the event stream first opens (the server subscribed it). */
  private readonly firstOpen = new Promise<void>((resolve) => (this.markOpen = resolve))
  private readonly firstDelay: number
  private readonly maxDelay: number

  constructor(opts: HttpTransportOptions = {}) {
    this.base = (opts.base ?? '/api/v1').replace(/\/$/, '')
    this.fetchFn = opts.fetch ?? ((input, init) => fetch(input, init))
    this.ES = opts.EventSource ?? (typeof EventSource === 'undefined' ? undefined : EventSource)
    this.firstDelay = opts.reconnectDelay ?? 1000
    this.maxDelay = opts.maxReconnectDelay ?? 30000
    Object.assign(this, makeCalls((name, req) => this.invoke(name, req)))
  }

  // ---- requests --------------------------------------------------------------

  /**
   * Sends a request and returns the response text; non-2xx responses become
   * a TransportError with the server's `{"error"}` message and the status.
   * A body is sent as JSON (Go refuses other content types).
   */
  private async request(method: CallSpec['method'], path: string, body?: string): Promise<{ text: string; res: Response }> {
    const headers: Record<string, string> = { Accept: 'application/json' }
    const init: RequestInit = { method, headers, credentials: 'same-origin' }
    if (body !== undefined) {
      headers['Content-Type'] = 'application/json'
      init.body = body
    }
    let res: Response
    try {
      res = await this.fetchFn(this.base + path, init)
    } catch (err) {
      throw new TransportError(t('transport.unreachable', { error: err instanceof Error ? err.message : String(err) }), 0)
    }
    const text = await res.text().catch(() => '')
    if (!res.ok) {
      const data = parseJSON(text)
      const msg =
        data && typeof data === 'object' && typeof (data as { error?: unknown }).error === 'string'
          ? (data as { error: string }).error
          : t('transport.failed', { status: `${res.status}${res.statusText ? ' ' + res.statusText : ''}` })
      throw new TransportError(msg, res.status)
    }
    return { text, res }
  }

  /**
   * One call as CALLS says: {params} in the path, query fields in the URL,
   * the other fields as the JSON body (or one field's text as the body
   * itself), and the answer as JSON, a file, or nothing.
   */
  private async invoke(name: CallName, req: unknown): Promise<unknown> {
    const spec = CALLS[name]
    const { path, rest } = callPath(spec, req)
    let body: string | undefined
    if (spec.body === 'raw') {
      const v = rest[spec.raw ?? '']
      body = typeof v === 'string' ? v : ''
    } else if (spec.body === 'json') body = JSON.stringify(Array.isArray(req) ? req : rest)
    const { text, res } = await this.request(spec.method, path.replace(/^\/api\/v1/, ''), body)
    if (spec.file) {
      const file: ExportedFile = { name: dispositionName(res.headers.get('Content-Disposition')), mime_type: res.headers.get('Content-Type') ?? '', content: text }
      return file
    }
    if (res.status === 204 || spec.noResponse) return undefined
    return parseJSON(text)
  }

  /** GET /health: the version; the data folder is not shown to browsers. */
  async appInfo(): Promise<AppInfo> {
    const h = await this.health()
    return { version: h?.version ?? '', dataDir: '' }
  }

  /** The file's text, for the page to download. */
  async saveFile(file: ExportedFile, _what?: SavedFileKind): Promise<ExportResult> {
    return contentResult(file)
  }

  /** The page reads an imported file from an <input> itself. */
  async chooseConversationFile(): Promise<string | null> {
    throw new TransportError(t('transport.chooseFile'), 400)
  }

  /** The page reads a backup from an <input> itself. */
  async chooseBackupFile(): Promise<string | null> {
    throw new TransportError(t('transport.chooseFile'), 400)
  }

  /** In a browser the page is served by the listener agents use (`parley serve`). */
  async agentListener(): Promise<AgentListener> {
    const origin = typeof location === 'undefined' ? '' : location.origin
    return { enabled: true, addr: origin.replace(/^https?:\/\//, ''), running: true, url: origin + '/mcp', local_api: true }
  }

  // ---- events ----------------------------------------------------------------

  eventsOpen(): Promise<void> {
    return this.firstOpen
  }

  on<E extends EventName>(event: E, handler: EventHandler<E>): Unsubscribe {
    const off = this.emitter.on(event, handler)
    this.ensureStream()
    return () => {
      off()
      if (this.emitter.count() === 0) this.close()
    }
  }

  /** Closes the event stream (it reopens on the next `on`). */
  close(): void {
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer)
    this.reconnectTimer = null
    this.source?.close()
    this.source = null
  }

  private ensureStream(): void {
    if (this.source || this.reconnectTimer || !this.ES) return
    this.connect()
  }

  private connect(): void {
    if (!this.ES) return
    let es: EventSource
    try {
      es = new this.ES(this.base + '/events', { withCredentials: false })
    } catch {
      this.scheduleReconnect()
      return
    }
    this.source = es
    for (const name of SERVER_EVENTS) {
      es.addEventListener(name, (ev: Event) => {
        const data = (ev as MessageEvent).data
        if (typeof data !== 'string') return
        let payload: unknown
        try {
          payload = JSON.parse(data)
        } catch {
          console.warn('parley: ignoring malformed event', name)
          return
        }
        if (!payload || typeof payload !== 'object') return
        // Applied with the events that came with it (./eventBatch); a card at once.
        eventBatch().push(() => this.emitter.emit(name, payload as EventMap[typeof name]), APPLIED_AT_ONCE.has(name))
      })
    }
    es.onopen = () => {
      this.markOpen()
      this.attempts = 0
      const reconnected = this.lostConnection
      this.lostConnection = false
      eventBatch().push(() => this.emitter.emit('transport:connection', { connected: true, reconnected }))
    }
    es.onerror = () => {
      if (this.source !== es) return
      if (!this.lostConnection) {
        this.lostConnection = true
        eventBatch().push(() => this.emitter.emit('transport:connection', { connected: false }))
      }
      // CONNECTING: the browser retries by itself. CLOSED (e.g. 401/404/5xx):
      // it gave up, so we reconnect with backoff.
      if (es.readyState === 2) {
        es.close()
        this.source = null
        this.scheduleReconnect()
      }
    }
  }

  private scheduleReconnect(): void {
    if (this.reconnectTimer || this.emitter.count() === 0) return
    const delay = Math.min(this.maxDelay, this.firstDelay * 2 ** this.attempts)
    this.attempts++
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null
      if (this.emitter.count() > 0 && !this.source) this.connect()
    }, delay)
  }

  /** A browser cannot show the machine's folder dialog with real paths: paths are typed. */
  readonly choosePaths = null

  /** A page cannot open files on the machine. */
  async openSource(): Promise<boolean> {
    return false
  }

  openExternal(url: string): void {
    if (!isSafeExternalUrl(url)) return
    window.open(url, '_blank', 'noopener,noreferrer')
  }

  copyText(text: string): Promise<boolean> {
    return browserCopy(text)
  }
}
