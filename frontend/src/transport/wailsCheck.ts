// Compile-time check that the methods the Wails transport calls exist in
// Wails' generated bindings (frontend/wailsjs, written by `wails build` or
// `wails generate module` from the bound Go services) with the same
// parameters. One line per bound service: point it at that service's file.
// Wails types results as its own classes (times as `any`), so results are
// typed by the wire types (../api/wire.gen.ts) instead.
import type * as App from '../../wailsjs/go/main/App'
import type * as ConversationService from '../../wailsjs/go/desktop/ConversationService'
import type * as QuestionService from '../../wailsjs/go/desktop/QuestionService'
import type * as ModelService from '../../wailsjs/go/desktop/ModelService'
import type * as SettingsService from '../../wailsjs/go/desktop/SettingsService'
import type * as MCPService from '../../wailsjs/go/desktop/MCPService'
import type * as AgentsService from '../../wailsjs/go/desktop/AgentsService'
import type * as DesktopService from '../../wailsjs/go/desktop/DesktopService'
import type * as DebugService from '../../wailsjs/go/desktop/DebugService'
import type * as KnowledgeService from '../../wailsjs/go/desktop/KnowledgeService'
import type { WAILS_SERVICE, WailsApp, WailsChatService, WailsServiceName } from './wails'

type Shape<T> = [T] extends [string] ? 'string' : [T] extends [number] ? 'number' : [T] extends [boolean] ? 'boolean' : 'object'
type ParamShapes<F> = F extends (...args: infer A) => unknown ? { [K in keyof A]: Shape<A[K]> } : 'not a function'
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false

/** For each method of either side: true when both have it with the same parameter kinds. */
type Matches<Generated, Used> = {
  [M in keyof Generated | keyof Used]: M extends keyof Generated
    ? M extends keyof Used
      ? Same<ParamShapes<Generated[M]>, ParamShapes<Used[M]>>
      : 'not called by the transport'
    : 'not bound in Go'
}
type Mismatches<Generated, Used> = { [M in keyof Matches<Generated, Used>]: Matches<Generated, Used>[M] extends true ? never : M }[keyof Matches<Generated, Used>]

/** The transport's methods that WAILS_SERVICE sends to service S. */
type MethodsOf<S extends WailsServiceName> = { [K in keyof typeof WAILS_SERVICE]: (typeof WAILS_SERVICE)[K] extends S ? K : never }[keyof typeof WAILS_SERVICE]
type Used<S extends WailsServiceName> = Pick<WailsChatService, MethodsOf<S>>
type Check<Generated, U> = [Mismatches<Generated, U>] extends [never] ? true : Mismatches<Generated, U>
/** One way only: every method the transport calls is bound (the service has others, e.g. lib/attention's). */
type CheckUsed<Generated, U> = [Exclude<Mismatches<Generated, U>, Exclude<keyof Generated, keyof U>>] extends [never]
  ? true
  : Exclude<Mismatches<Generated, U>, Exclude<keyof Generated, keyof U>>

// A method name here (a type error) is missing on one side or takes other arguments.
export const appMatches: Check<typeof App, Used<'App'> & WailsApp> = true
export const conversationServiceMatches: Check<typeof ConversationService, Used<'ConversationService'>> = true
export const questionServiceMatches: Check<typeof QuestionService, Used<'QuestionService'>> = true
export const modelServiceMatches: Check<typeof ModelService, Used<'ModelService'>> = true
export const settingsServiceMatches: Check<typeof SettingsService, Used<'SettingsService'>> = true
export const mcpServiceMatches: Check<typeof MCPService, Used<'MCPService'>> = true
export const agentsServiceMatches: Check<typeof AgentsService, Used<'AgentsService'>> = true
export const desktopServiceMatches: CheckUsed<typeof DesktopService, Used<'DesktopService'>> = true
export const debugServiceMatches: Check<typeof DebugService, Used<'DebugService'>> = true
export const knowledgeServiceMatches: Check<typeof KnowledgeService, Used<'KnowledgeService'>> = true
