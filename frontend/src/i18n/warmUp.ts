// The current language's texts translated ahead of use, while the page is
// idle. A text's first use compiles its message (ICU MessageFormat) and
// resolves its locale, ~0.1 ms each, and a view shows dozens at once: the
// first send of a new chat spent ~8 ms of its one task there (issue #42,
// bench (d)), a first card or a first open of Settings the same. Texts
// without values are kept translated (t's cache); the others compiled.
import { i18n, language, precompile, t } from './index'

/** Runs fn when the page is idle (requestIdleCallback, or a timer). */
export type IdleScheduler = (fn: (deadline: { timeRemaining(): number }) => void) => void

const byTimer: IdleScheduler = (fn) => setTimeout(() => fn({ timeRemaining: () => 5 }), 50)

/** The catalogue's keys and messages, flattened ("chat.list.showEarlier"). */
function entries(messages: unknown, prefix = '', out: [string, string][] = []): [string, string][] {
  if (messages && typeof messages === 'object') {
    for (const [k, v] of Object.entries(messages)) {
      if (typeof v === 'string') out.push([prefix + k, v])
      else entries(v, `${prefix}${k}.`, out)
    }
  }
  return out
}

let generation = 0
/** The longest a slice goes on. */
const SLICE_MS = 4

/**
 * Translates the current language's catalogue in idle slices. Called again
 * (or with the language switched meanwhile), it starts over in the current
 * language. Resolves when done (or left for a newer call).
 */
export function warmUpTexts(idle: IdleScheduler = window.requestIdleCallback?.bind(window) ?? byTimer): Promise<void> {
  const mine = ++generation
  const lang = language()
  const todo = entries(i18n.global.getLocaleMessage(lang))
  let next = 0
  return new Promise((resolve) => {
    const slice = (deadline: { timeRemaining(): number }): void => {
      if (mine !== generation || lang !== language()) return resolve()
      // Short slices even when idle for longer: an event that comes
      // meanwhile (a card) waits for the slice to end.
      const until = performance.now() + SLICE_MS
      do {
        const [key, message] = todo[next++]!
        try {
          if (message.includes('{')) precompile(message, lang)
          else t(key)
        } catch {
          // a message that does not compile fails where it is used, as before
        }
      } while (next < todo.length && deadline.timeRemaining() > 1 && performance.now() < until)
      if (next < todo.length) idle(slice)
      else resolve()
    }
    if (todo.length) idle(slice)
    else resolve()
  })
}
