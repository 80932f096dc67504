// The countdown of a question card (SPEC §1): seconds left until expires_at,
// ticking once a second while the card can be answered, with announcements
// for screen readers at one minute left and when time is up.
import { computed, onScopeDispose, ref, toValue, watch, type ComputedRef, type MaybeRefOrGetter } from 'vue'
import { t } from '../i18n'
import { formatClock } from '../i18n/format'

export interface CountdownOptions {
  /** When the card expires (an ISO time); no countdown without it. */
  expiresAt: MaybeRefOrGetter<string | null | undefined>
  /** Tick only while this holds (a pending card the user can answer). */
  running: MaybeRefOrGetter<boolean>
  /** Say the 60 s and 0 s points only while this holds (the card is not read-only). */
  speaking: MaybeRefOrGetter<boolean>
  announce: (text: string) => void
}

export interface Countdown {
  /** Whole seconds left (rounded up), or null without expires_at. */
  remaining: ComputedRef<number | null>
  /** One minute or less left. */
  urgent: ComputedRef<boolean>
  /** What the card shows, e.g. "2:59 left"; empty when not running or time is up. */
  text: ComputedRef<string>
}

/** What is said at one minute left and when time is up (catalogue keys). */
export const ONE_MINUTE_LEFT = 'questions.countdown.oneMinute'
export const TIME_IS_UP = 'questions.countdown.timeIsUp'

export function useCountdown(opts: CountdownOptions): Countdown {
  const now = ref(Date.now())
  let timer: ReturnType<typeof setInterval> | null = null
  const expiresAt = computed(() => {
    const at = toValue(opts.expiresAt)
    return at ? Date.parse(at) : NaN
  })
  const remaining = computed<number | null>(() =>
    Number.isFinite(expiresAt.value) ? Math.ceil((expiresAt.value - now.value) / 1000) : null,
  )
  const urgent = computed(() => remaining.value !== null && remaining.value <= 60)
  const text = computed(() => {
    if (!toValue(opts.running) || remaining.value === null || remaining.value <= 0) return ''
    return t('questions.countdown.left', { time: formatClock(remaining.value) })
  })

  function stop(): void {
    if (timer) clearInterval(timer)
    timer = null
  }
  function sync(): void {
    const needed = toValue(opts.running) && Number.isFinite(expiresAt.value)
    if (needed && !timer) {
      now.value = Date.now()
      timer = setInterval(() => {
        now.value = Date.now()
      }, 1000)
    } else if (!needed && timer) {
      stop()
    }
  }
  watch([() => toValue(opts.running), expiresAt], sync, { immediate: true })
  watch(remaining, (r, before) => {
    if (!toValue(opts.speaking) || r === null || before === null || before === undefined) return
    if (before > 60 && r <= 60 && r > 0) opts.announce(t(ONE_MINUTE_LEFT))
    if (before > 0 && r <= 0) opts.announce(t(TIME_IS_UP))
  })
  onScopeDispose(stop)

  return { remaining, urgent, text }
}
