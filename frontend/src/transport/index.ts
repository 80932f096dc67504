// The single entry point the stores use to reach the Go side. The rest of the
// UI never imports an implementation: it calls `useTransport()`.
import type { Transport } from './transport'
import { WailsTransport } from './wails'
import { HttpTransport } from './http'

export type { Transport, Unsubscribe, EventHandler } from './transport'
export { TransportError, toError } from './transport'

let current: Transport | null = null

/**
 * Wails bindings when the page runs inside the desktop window (`window.go`
 * exists), else HTTP + SSE against `parley serve`. The demo is the Go side's
 * (Settings → demo mode, or `parley serve --demo`): nothing here is special to it.
 */
export function pickTransport(win: Window | undefined = typeof window === 'undefined' ? undefined : window): Transport {
  if (win?.go) return new WailsTransport(win)
  return new HttpTransport()
}

/** Injects the transport (tests pass a FakeTransport). */
export function setTransport(t: Transport | null): void {
  current = t
}

/** The transport in use; picks one on first use. */
export function useTransport(): Transport {
  if (!current) current = pickTransport()
  return current
}
