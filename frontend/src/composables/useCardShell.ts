// The lifecycle an approval or elicitation card shares with the question
// card (SPEC §6: one card for every decision): what was just sent until the
// store reflects it (or an error brings the form back, input kept), screen
// reader announcements, the countdown, the cancel confirmation, and taking
// focus when the card appears unless the user is typing elsewhere.
import { computed, nextTick, ref, watch, type Ref } from 'vue'
import type { Card, CardStatus, RespondRequest } from '../types'
import { isAnswerable } from '../lib/cards'
import { TIME_IS_UP, useCountdown } from './useCountdown'
import { useAppearFocus } from './useAppearFocus'
import { t } from '../i18n'

export interface CardShellOptions {
  card: () => Card
  readonly: () => boolean
  error: () => string | null
  busy: () => boolean
  autofocus: () => boolean
  root: Ref<HTMLElement | null>
  /** Focuses the card's first control (called when it appears). */
  focusFirst: (opts?: FocusOptions) => void
  emitRespond: (req: RespondRequest) => void
  emitAppear: (el: HTMLElement, focused: boolean) => void
  /** What the status of a card is once the user's response was taken. */
  statusAfter: (req: RespondRequest) => CardStatus
  /** Said when the response is sent. */
  sentText: (req: RespondRequest) => string
}

export function useCardShell(o: CardShellOptions) {
  const announcement = ref('')
  function announce(text: string): void {
    // Re-set so the same text is announced again.
    announcement.value = ''
    void nextTick(() => {
      announcement.value = text
    })
  }

  /** What this card sent, until the store reflects it (or it fails). */
  const submitted = ref<RespondRequest | null>(null)
  watch(o.error, (err) => {
    if (err) {
      submitted.value = null
      announce(err)
    }
  })

  const canEdit = computed(() => !o.readonly() && isAnswerable(o.card().status, o.card().kind))
  const isReadonly = computed(() => !canEdit.value || submitted.value !== null)

  const { remaining, urgent, text: countdownText } = useCountdown({
    expiresAt: () => o.card().expires_at,
    running: () => !isReadonly.value && o.card().status === 'pending',
    speaking: () => !isReadonly.value,
    // No late answers for these cards: the tool does not run, the server gets "cancel".
    announce: (text) => announce(text === t(TIME_IS_UP) ? t('questions.countdown.timeIsUpShort') : text),
  })
  const expired = computed(() => o.card().status === 'pending' && remaining.value !== null && remaining.value <= 0)
  const showForm = computed(() => !isReadonly.value && !expired.value)

  const shownStatus = computed<CardStatus | 'sending'>(() => {
    const s = submitted.value
    if (s && isAnswerable(o.card().status, o.card().kind)) return o.busy() ? 'sending' : o.statusAfter(s)
    if (expired.value) return 'timed_out'
    return o.card().status
  })

  const confirmingCancel = ref(false)
  function send(req: RespondRequest): void {
    if (o.busy()) return
    submitted.value = req
    confirmingCancel.value = false
    o.emitRespond(req)
    announce(o.sentText(req))
    void nextTick(() => o.root.value?.focus())
  }

  useAppearFocus({
    root: o.root,
    showForm: () => showForm.value,
    autofocus: o.autofocus,
    focusFirst: o.focusFirst,
    emitAppear: o.emitAppear,
  })

  return { announcement, announce, submitted, canEdit, isReadonly, countdownText, urgent, expired, showForm, shownStatus, confirmingCancel, send }
}
