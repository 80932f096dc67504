// The stores' load and action helper: which fields it sets while a call is on
// its way, after it worked and after it failed.
import { describe, expect, it } from 'vitest'
import { reactive } from 'vue'
import { TransportError } from '../transport'
import { attempt, loadInto } from './asyncState'

/** A promise settled from outside, to look at the fields while it is on its way. */
function deferred<T = void>() {
  let resolve!: (v: T) => void
  let reject!: (err: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

interface State {
  loading: boolean
  loaded: boolean
  loadError: string | null
  saving: boolean
  saveError: string | null
  busy: Record<string, boolean>
  errors: Record<string, string | null>
}

function store(): State {
  return reactive({ loading: false, loaded: false, loadError: null, saving: false, saveError: null, busy: {}, errors: {} })
}

const FIELDS = { loading: 'loading', loaded: 'loaded', error: 'loadError' } as const

describe('loadInto', () => {
  it('sets loading while on its way, then loaded and no error', async () => {
    const s = store()
    const call = deferred()
    const done = loadInto(s, FIELDS, () => call.promise)
    expect(s).toMatchObject({ loading: true, loaded: false, loadError: null })
    call.resolve()
    await done
    expect(s).toMatchObject({ loading: false, loaded: true, loadError: null })
  })

  it('keeps the error text of a failed load, not loaded; the next load that works clears it', async () => {
    const s = store()
    await loadInto(s, FIELDS, () => Promise.reject(new TransportError('connection refused', 503)))
    expect(s).toMatchObject({ loading: false, loaded: false, loadError: 'connection refused' })

    // The error stays while the next load is on its way.
    const call = deferred()
    const done = loadInto(s, FIELDS, () => call.promise)
    expect(s).toMatchObject({ loading: true, loadError: 'connection refused' })
    call.resolve()
    await done
    expect(s).toMatchObject({ loading: false, loaded: true, loadError: null })
  })

  it('turns a rejection that is not an Error into its text (Wails rejects with a string)', async () => {
    const s = store()
    await loadInto(s, FIELDS, () => Promise.reject('database is locked'))
    expect(s.loadError).toBe('database is locked')
    await loadInto(s, FIELDS, async () => {
      throw { error: 'no such table' }
    })
    expect(s.loadError).toBe('no such table')
  })

  it('leaves every field to the newer load when the answer came too late', async () => {
    const s = store()
    let stale = true
    await loadInto(s, { ...FIELDS, stale: () => stale }, () => Promise.reject(new Error('late failure')))
    expect(s).toMatchObject({ loading: true, loaded: false, loadError: null })
    await loadInto(s, { ...FIELDS, stale: () => stale }, () => Promise.resolve())
    expect(s).toMatchObject({ loading: true, loaded: false, loadError: null })
    stale = false
    await loadInto(s, { ...FIELDS, stale: () => stale }, () => Promise.resolve())
    expect(s).toMatchObject({ loading: false, loaded: true })
  })

  it('sets only the fields it is given, and one entry of record fields with a key', async () => {
    const s = store()
    await loadInto(s, { error: 'loadError' }, () => Promise.reject(new Error('nope')))
    expect(s).toMatchObject({ loading: false, loaded: false, loadError: 'nope' })

    const call = deferred()
    const done = loadInto(s, { key: 'c1', loading: 'busy', error: 'errors' }, () => call.promise)
    expect(s.busy).toEqual({ c1: true })
    call.reject(new Error('gone'))
    await done
    expect(s.busy).toEqual({ c1: false })
    expect(s.errors).toEqual({ c1: 'gone' })
  })
})

describe('attempt', () => {
  it('is busy while on its way with no error, then resolves with the value', async () => {
    const s = store()
    s.errors.a = 'the last failure'
    const call = deferred<number>()
    const done = attempt(s, { key: 'a', busy: 'busy', error: 'errors' }, () => call.promise)
    expect(s.busy.a).toBe(true)
    expect(s.errors.a).toBeNull()
    call.resolve(42)
    expect(await done).toEqual({ ok: true, value: 42 })
    expect(s.busy.a).toBe(false)
    expect(s.errors.a).toBeNull()
  })

  it('a failed action leaves its error text and is no longer busy', async () => {
    const s = store()
    const outcome = await attempt(s, { key: 'a', busy: 'busy', error: 'errors' }, () => Promise.reject(new TransportError('name taken', 409)))
    expect(outcome).toEqual({ ok: false, error: 'name taken' })
    expect(s.busy).toEqual({ a: false })
    expect(s.errors).toEqual({ a: 'name taken' })
    // Other entries are untouched.
    expect(s.busy.b).toBeUndefined()
  })

  it('sets plain fields without a key', async () => {
    const s = store()
    const call = deferred()
    const done = attempt(s, { busy: 'saving', error: 'saveError' }, () => call.promise)
    expect(s).toMatchObject({ saving: true, saveError: null })
    call.reject('invalid endpoint')
    expect(await done).toEqual({ ok: false, error: 'invalid endpoint' })
    expect(s).toMatchObject({ saving: false, saveError: 'invalid endpoint' })
  })

  it('shows the text `failed` gives (it sees the status) after `failed` undid what was shown early', async () => {
    const s = store()
    const item = { title: 'New' }
    const failed = (e: TransportError) => {
      item.title = 'Old'
      return e.status === 404 ? 'It is gone.' : `Could not rename: ${e.message}`
    }
    const gone = await attempt(s, { error: 'saveError', failed }, () => Promise.reject(new TransportError('not found', 404)))
    expect(gone).toEqual({ ok: false, error: 'It is gone.' })
    expect(s.saveError).toBe('It is gone.')
    expect(item.title).toBe('Old')

    const other = await attempt(s, { error: 'saveError', failed }, () => Promise.reject(new Error('disk full')))
    expect(other).toEqual({ ok: false, error: 'Could not rename: disk full' })
  })

  it('without fields only resolves with the outcome', async () => {
    const s = store()
    const before = JSON.stringify(s)
    expect(await attempt(s, {}, () => Promise.resolve('saved'))).toEqual({ ok: true, value: 'saved' })
    expect(await attempt(s, {}, () => Promise.reject(new Error('refused')))).toEqual({ ok: false, error: 'refused' })
    expect(JSON.stringify(s)).toBe(before)
  })

  it('takes only field names of the state that hold the right values (checked by the type check, never run)', () => {
    const wrongFields = (s: State, ok: () => Promise<void>) => {
      // @ts-expect-error no such field
      void attempt(s, { error: 'saveErrors' }, ok)
      // @ts-expect-error a flag is not an error field
      void attempt(s, { error: 'saving' }, ok)
      // @ts-expect-error with a key, the fields are records
      void attempt(s, { key: 'a', busy: 'saving' }, ok)
      // @ts-expect-error without a key, they are plain
      void loadInto(s, { loading: 'busy', error: 'loadError' }, ok)
    }
    expect(wrongFields).toBeTypeOf('function')
  })
})
