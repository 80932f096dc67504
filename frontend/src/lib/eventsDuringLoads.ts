// The rule of stores that load from the server and are kept live by events:
// what an event brought while a load was on its way is newer than the load's
// answer (the server read that before), so the answer must not overwrite it.

/** What events brought, per key, while a store's loads were on their way. */
export class EventsDuringLoads<K, V> {
  /** One map per load on its way: what events brought since it started. */
  private readonly open = new Set<Map<K, V>>()

  /** Notes what an event brought for `key` (the last one wins) for every load now on its way. */
  record(key: K, value: V): void {
    for (const newer of this.open) newer.set(key, value)
  }

  /**
   * For an answer a store fetched itself (not an event): records into the
   * loads on their way now, which started before it and may answer older
   * data, and not into loads started after it, whose answers may be newer.
   */
  recordIntoLoadsOpenNow(): (key: K, value: V) => void {
    const earlier = [...this.open]
    return (key, value) => {
      for (const newer of earlier) if (this.open.has(newer)) newer.set(key, value)
    }
  }

  /**
   * Awaits `fetch` and hands its answer to `apply` with what events brought
   * meanwhile, in the same step, so no event falls between the two. When
   * `fetch` rejects, so does this, and `apply` is not called.
   */
  async load<T, R>(fetch: () => Promise<T>, apply: (answer: T, newer: ReadonlyMap<K, V>) => R): Promise<R> {
    const newer = new Map<K, V>()
    this.open.add(newer)
    try {
      return apply(await fetch(), newer)
    } finally {
      this.open.delete(newer)
    }
  }
}

/**
 * One EventsDuringLoads per store instance (a store's `this`): loads of one
 * store never see another's events, and each fresh Pinia starts clean.
 */
export function eventsDuringLoadsPerStore<K, V>(): (store: object) => EventsDuringLoads<K, V> {
  const byStore = new WeakMap<object, EventsDuringLoads<K, V>>()
  return (store) => {
    let events = byStore.get(store)
    if (!events) byStore.set(store, (events = new EventsDuringLoads<K, V>()))
    return events
  }
}
