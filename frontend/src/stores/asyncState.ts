// The two shapes every store repeats, written once, and so the one way a
// store hears of a failed call: as the error's text (`toError(err).message`,
// or what `failed` makes of it).
// - `loadInto` reads something into the store: `loading` while on its way,
//   then `loaded` and `error` (null once a load worked).
// - `attempt` runs an action and resolves with its Outcome, the value or the
//   error's text; with `busy` and `error` it also keeps those fields.
// The fields are named, and type-checked against the store's state; with a
// `key` they are records (per item) and the helper sets their `key` entry.
import { toError, type TransportError } from '../transport'

/** The names of S's fields that hold exactly a V. */
type FieldOf<S, V> = { [F in keyof S]-?: [S[F]] extends [V] ? ([V] extends [S[F]] ? F : never) : never }[keyof S]

/** A field of S holding a V; with a `key`, a field holding a record of them. */
type Slot<S, V, K> = K extends string ? FieldOf<S, Record<string, V>> : FieldOf<S, V>

/** What an action came to: its value, or the text of its error. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: string }

export interface LoadFields<S, K extends string | undefined> {
  /** The entry of the record fields to set (none: the fields are plain). */
  key?: K
  /** True while the load is on its way. */
  loading?: Slot<S, boolean, K>
  /** Set true once a load worked. */
  loaded?: Slot<S, boolean, K>
  /** The error's text; null once a load worked (kept while a new one is on its way). */
  error: Slot<S, string | null, K>
  /** True when the answer came too late (a newer load is on its way): the fields are left to that one. */
  stale?: () => boolean
}

export interface AttemptFields<S, K extends string | undefined> {
  key?: K
  /** True while the action is on its way. */
  busy?: Slot<S, boolean, K>
  /** Null when the action starts, the error's text when it failed. */
  error?: Slot<S, string | null, K>
  /** The text to show for a failure (default: its message); the place to undo what the action showed early. */
  failed?: (err: TransportError) => string
}

/** Sets `state[field]`, or `state[field][key]` with a key; nothing when no field is named. */
function put(state: unknown, field: PropertyKey | undefined, key: string | undefined, value: unknown): void {
  if (field === undefined) return
  const fields = state as Record<PropertyKey, unknown>
  if (key === undefined) fields[field] = value
  else (fields[field] as Record<string, unknown>)[key] = value
}

/** Runs the load `fn`, keeping the store's loading, loaded and error fields. A failure resolves too. */
export async function loadInto<S, K extends string | undefined = undefined>(state: S, fields: LoadFields<S, K>, fn: () => Promise<unknown>): Promise<void> {
  const { key, loading, loaded, error, stale } = fields
  put(state, loading, key, true)
  try {
    await fn()
    if (stale?.()) return
    put(state, loaded, key, true)
    put(state, error, key, null)
  } catch (err) {
    if (!stale?.()) put(state, error, key, toError(err).message)
  } finally {
    if (!stale?.()) put(state, loading, key, false)
  }
}

/** Runs the action `fn`, keeping the store's busy and error fields (when named). A failure resolves too. */
export async function attempt<S, T, K extends string | undefined = undefined>(state: S, fields: AttemptFields<S, K>, fn: () => Promise<T>): Promise<Outcome<T>> {
  const { key, busy, error, failed } = fields
  put(state, busy, key, true)
  put(state, error, key, null)
  try {
    return { ok: true, value: await fn() }
  } catch (err) {
    const text = failed ? failed(toError(err)) : toError(err).message
    put(state, error, key, text)
    return { ok: false, error: text }
  } finally {
    put(state, busy, key, false)
  }
}
