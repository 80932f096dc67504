// Compile-time check that the window methods the Wails transport and
// lib/attention call exist in Wails' generated bindings (frontend/wailsjs,
// written by `wails build` or `wails generate module`) with the same
// parameters. The calls themselves (window.go.desktop.Calls) are generated
// from backend/calls on both sides: a Go test checks the bound methods
// against the declarations, and wails.test.ts that every CALLS binding is in
// wailsjs/go/desktop/Calls.js. Wails types results as its own classes, so
// results are typed by the wire types (../api/wire.gen.ts) instead.
import type * as App from '../../wailsjs/go/main/App'
import type * as DesktopService from '../../wailsjs/go/desktop/DesktopService'
import type { WailsApp, WailsDesktopService } from './wails'

type Shape<T> = [T] extends [string] ? 'string' : [T] extends [number] ? 'number' : [T] extends [boolean] ? 'boolean' : 'object'
type ParamShapes<F> = F extends (...args: infer A) => unknown ? { [K in keyof A]: Shape<A[K]> } : 'not a function'
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false

/** For each method of either side: true when both have it with the same parameter kinds. */
type Matches<Generated, Used> = {
  [M in keyof Generated | keyof Used]: M extends keyof Generated
    ? M extends keyof Used
      ? Same<ParamShapes<Generated[M]>, ParamShapes<Used[M]>>
      : 'not called by the frontend'
    : 'not bound in Go'
}
type Mismatches<Generated, Used> = { [M in keyof Matches<Generated, Used>]: Matches<Generated, Used>[M] extends true ? never : M }[keyof Matches<Generated, Used>]
type Check<Generated, U> = [Mismatches<Generated, U>] extends [never] ? true : Mismatches<Generated, U>

/** What lib/attention calls on DesktopService (it keeps its own optional type of them). */
interface AttentionDesktopService {
  Notify(title: string, body: string): Promise<unknown>
  RequestAttention(): Promise<unknown>
  ClearAttention(): Promise<unknown>
}

// A method name here (a type error) is missing on one side or takes other arguments.
export const appMatches: Check<typeof App, WailsApp> = true
export const desktopServiceMatches: Check<typeof DesktopService, WailsDesktopService & AttentionDesktopService> = true
