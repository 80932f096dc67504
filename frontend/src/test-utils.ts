// Shared helpers for the unit tests (not a test file itself).
import { createPinia, setActivePinia, type Pinia } from 'pinia'
import { flushPromises, mount, type VueWrapper } from '@vue/test-utils'
import type { Component } from 'vue'
import { FakeTransport } from './transport/fake'
import { setTransport } from './transport'
import { flushAfterPaint } from './lib/frame'
import type { Card, Question } from './types'

export interface TestEnv {
  pinia: Pinia
  fake: FakeTransport
}

/** A fresh Pinia and FakeTransport, injected as the transport in use. */
export function setupEnv(): TestEnv {
  const pinia = createPinia()
  setActivePinia(pinia)
  const fake = new FakeTransport()
  setTransport(fake)
  return { pinia, fake }
}

const mounted: VueWrapper[] = []
const resets: (() => void)[] = []

/** Mounts a component into document.body with the env's Pinia and lets it settle; resetDom unmounts it. */
export async function mountInBody(component: Component, env: TestEnv): Promise<VueWrapper> {
  const w = mount(component, { global: { plugins: [env.pinia] }, attachTo: document.body })
  mounted.push(w)
  await settle()
  return w
}

/** Runs fn at the next resetDom (an event subscription's unsubscribe, say). */
export function onReset(fn: () => void): void {
  resets.push(fn)
}

/** Unmounts what mountInBody mounted, runs the onReset callbacks, and clears the page, the theme and localStorage. */
export function resetDom(): void {
  for (const w of mounted.splice(0)) w.unmount()
  for (const fn of resets.splice(0)) fn()
  document.body.innerHTML = ''
  document.documentElement.removeAttribute('data-theme')
  localStorage.clear()
}

export function q(partial: Partial<Question> & Pick<Question, 'question'>): Question {
  return { options: [], multiSelect: false, allowCustom: true, ...partial }
}

export function makeCard(partial: Partial<Card> = {}): Card {
  return {
    question_id: 'card-1',
    conversationId: 'conv-1',
    status: 'pending',
    questions: [
      q({
        question: 'Which database?',
        header: 'Database',
        options: [
          { label: 'Postgres', description: 'Relational, battle-tested' },
          { label: 'SQLite', description: 'A single file' },
          { label: 'MongoDB' },
        ],
      }),
    ],
    created_at: '2026-01-01T10:00:00.000Z',
    expires_at: null,
    kind: 'question',
    source: { type: 'model' },
    ...partial,
  }
}

export async function settle(): Promise<void> {
  await flushPromises()
  flushAfterPaint()
  await flushPromises()
}

/**
 * A scroller with a fake layout (jsdom lays nothing out): reads of its
 * layout (scrollHeight, clientHeight, scrollTop) and writes of scrollTop are
 * logged in `ops`, in order.
 */
export function fakeScrollLayout(el: HTMLElement) {
  const ops: string[] = []
  let top = 0
  const height = { scroll: 1000, client: 200 }
  Object.defineProperty(el, 'scrollHeight', { configurable: true, get: () => (ops.push('read'), height.scroll) })
  Object.defineProperty(el, 'clientHeight', { configurable: true, get: () => (ops.push('read'), height.client) })
  Object.defineProperty(el, 'scrollTop', {
    configurable: true,
    get: () => (ops.push('read'), top),
    set: (v: number) => {
      ops.push('write')
      top = Math.min(v, height.scroll - height.client)
    },
  })
  return {
    ops,
    height,
    /** Where the list is scrolled to (not logged). */
    top: () => top,
    userScrollsTo(v: number) {
      top = v
      el.dispatchEvent(new Event('scroll'))
    },
  }
}

// ---- a fake page for lib/attention (focus, title, notifications) -------------

class FakeListeners {
  private listeners = new Map<string, Set<() => void>>()
  addEventListener(type: string, fn: () => void): void {
    if (!this.listeners.has(type)) this.listeners.set(type, new Set())
    this.listeners.get(type)!.add(fn)
  }
  removeEventListener(type: string, fn: () => void): void {
    this.listeners.get(type)?.delete(fn)
  }
  fire(type: string): void {
    for (const fn of [...(this.listeners.get(type) ?? [])]) fn()
  }
  count(): number {
    let n = 0
    for (const set of this.listeners.values()) n += set.size
    return n
  }
}

export class FakeDocument extends FakeListeners {
  title = 'Parley'
  focused = true
  visibilityState: DocumentVisibilityState = 'visible'
  hasFocus(): boolean {
    return this.focused
  }
  /** The user switched to another window (the tab stays visible). */
  blur(): void {
    this.focused = false
  }
}

export class FakeWindow extends FakeListeners {
  focusCalls = 0
  runtime?: { WindowSetTitle(title: string): void }
  nativeTitles: string[] = []
  constructor(private readonly doc: FakeDocument, wails = false) {
    super()
    if (wails) this.runtime = { WindowSetTitle: (t: string) => void this.nativeTitles.push(t) }
  }
  focus(): void {
    this.focusCalls++
  }
  /** The user came back to the window. */
  userFocus(): void {
    this.doc.focused = true
    this.doc.visibilityState = 'visible'
    this.fire('focus')
  }
}

export interface FakeNotificationInstance {
  title: string
  options?: NotificationOptions
  closed: boolean
  onclick: ((ev: Event) => unknown) | null
  close(): void
  click(): void
}

/** A fake `Notification` constructor; `answer` is what the permission prompt returns. */
export function fakeNotificationApi(permission: NotificationPermission = 'granted', answer: NotificationPermission = 'granted') {
  const created: FakeNotificationInstance[] = []
  class FakeNotification implements FakeNotificationInstance {
    static current: NotificationPermission = permission
    /** How often the page read `permission` (in Chromium each read is a synchronous call to the browser). */
    static reads = 0
    static get permission(): NotificationPermission {
      FakeNotification.reads++
      return FakeNotification.current
    }
    static set permission(p: NotificationPermission) {
      FakeNotification.current = p
    }
    static requests = 0
    static created = created
    onclick: ((ev: Event) => unknown) | null = null
    closed = false
    constructor(
      public title: string,
      public options?: NotificationOptions,
    ) {
      created.push(this)
    }
    close(): void {
      this.closed = true
    }
    click(): void {
      this.onclick?.(new Event('click'))
    }
    static requestPermission(): Promise<NotificationPermission> {
      FakeNotification.requests++
      FakeNotification.permission = answer
      return Promise.resolve(answer)
    }
  }
  return FakeNotification
}

export interface FakePage {
  document: FakeDocument
  window: FakeWindow
  Notification: ReturnType<typeof fakeNotificationApi>
}

export function fakePage(opts: { permission?: NotificationPermission; answer?: NotificationPermission; wails?: boolean } = {}): FakePage {
  const document = new FakeDocument()
  return { document, window: new FakeWindow(document, opts.wails), Notification: fakeNotificationApi(opts.permission, opts.answer) }
}
