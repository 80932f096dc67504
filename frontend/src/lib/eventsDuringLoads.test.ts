// What events brought while a load was on its way reaches that load's
// answer, and only that load's: overlapping loads, failing loads, one
// record per store.
import { describe, expect, it } from 'vitest'
import { EventsDuringLoads, eventsDuringLoadsPerStore } from './eventsDuringLoads'

/** A fetch the test answers (or fails) when it likes. */
function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: Error) => void } {
  let resolve!: (v: T) => void
  let reject!: (e: Error) => void
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)))
  return { promise, resolve, reject }
}

/** The answer with what events brought meanwhile, as the stores merge them. */
const merged = (answer: Record<string, string>, newer: ReadonlyMap<string, string>) => ({ ...answer, ...Object.fromEntries(newer) })

describe('EventsDuringLoads', () => {
  it('hands a load what events brought while it was on its way, the last per key, and nothing from before', async () => {
    const events = new EventsDuringLoads<string, string>()
    events.record('a', 'before the load')
    const list = deferred<Record<string, string>>()
    const loading = events.load(() => list.promise, merged)
    events.record('a', 'connecting')
    events.record('a', 'connected')
    events.record('c', 'added')
    list.resolve({ a: 'stopped', b: 'stopped' })
    expect(await loading).toEqual({ a: 'connected', b: 'stopped', c: 'added' })

    // The next load, with no event meanwhile, takes its answer as it is.
    events.record('a', 'after the load')
    expect(await events.load(async () => ({ a: 'stopped' }), merged)).toEqual({ a: 'stopped' })
  })

  it('gives overlapping loads each what came after its own start', async () => {
    const events = new EventsDuringLoads<string, string>()
    const first = deferred<Record<string, string>>()
    const second = deferred<Record<string, string>>()
    const firstLoading = events.load(() => first.promise, merged)
    events.record('a', 'one')
    const secondLoading = events.load(() => second.promise, merged)
    events.record('b', 'two')
    second.resolve({})
    expect(await secondLoading).toEqual({ b: 'two' })
    events.record('c', 'three') // the first is still on its way
    first.resolve({ a: 'old', b: 'old', c: 'old', d: 'old' })
    expect(await firstLoading).toEqual({ a: 'one', b: 'two', c: 'three', d: 'old' })
  })

  it('a failing load rejects without applying and stops collecting', async () => {
    const events = new EventsDuringLoads<string, string>()
    const list = deferred<Record<string, string>>()
    let applied = false
    const loading = events.load(() => list.promise, () => (applied = true))
    events.record('a', 'connected')
    list.reject(new Error('connection refused'))
    await expect(loading).rejects.toThrow('connection refused')
    expect(applied).toBe(false)

    // An apply that throws lets go of its record too.
    let seen: ReadonlyMap<string, string> | undefined
    const failing = events.load(async () => ({}), (_answer, newer) => {
      seen = newer
      throw new Error('bad answer')
    })
    await expect(failing).rejects.toThrow('bad answer')
    events.record('b', 'later')
    expect(seen?.size).toBe(0)
    expect(await events.load(async () => ({}), merged)).toEqual({})
  })

  it("records a store's own answer only into the loads that were on their way when it was asked", async () => {
    const events = new EventsDuringLoads<string, string>()
    const earlier = deferred<Record<string, string>>()
    const earlierLoad = events.load(() => earlier.promise, merged)
    const intoEarlier = events.recordIntoLoadsOpenNow()
    const later = deferred<Record<string, string>>()
    const laterLoad = events.load(() => later.promise, merged)
    intoEarlier('a', 'refreshed')
    earlier.resolve({ a: 'old' })
    later.resolve({ a: 'newer' })
    expect(await earlierLoad).toEqual({ a: 'refreshed' })
    expect(await laterLoad).toEqual({ a: 'newer' })
    // Once the earlier load is done, nothing more goes into its record.
    const next = deferred<Record<string, string>>()
    const nextLoad = events.load(() => next.promise, merged)
    intoEarlier('a', 'late')
    next.resolve({ a: 'current' })
    expect(await nextLoad).toEqual({ a: 'current' })
  })

  it('keeps one record per store', async () => {
    const perStore = eventsDuringLoadsPerStore<string, string>()
    const storeA = {}
    const storeB = {}
    expect(perStore(storeA)).toBe(perStore(storeA))
    const list = deferred<Record<string, string>>()
    const loading = perStore(storeA).load(() => list.promise, merged)
    perStore(storeB).record('a', "another store's event")
    perStore(storeA).record('b', 'this store’s event')
    list.resolve({ a: 'stopped' })
    expect(await loading).toEqual({ a: 'stopped', b: 'this store’s event' })
  })
})
