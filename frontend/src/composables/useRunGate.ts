// The message actions that wait for the run to end: edit, regenerate,
// change answer. A long conversation has hundreds of them, and a run
// starting or ending must not touch each one: binding `disabled` to the run
// re-rendered and restyled every one of them on each send and each reply
// (2-3 ms of the page's work on the way to a card, with 150 messages shown),
// and so did one attribute on the list that CSS dimmed them by (the browser
// restyles every button a selector on that attribute reaches: 60-330 of
// them in the card bench, on each send). Instead only the button the user
// reaches follows the run: one pointed at or focused says aria-disabled
// while a run is going (dimmed, msg-actions.css; screen readers and the
// keyboard; `disabled` would drop the focus) with the reason as its title,
// and the action is refused while a run is going, the conversation's error
// banner saying why (a tap on a touch screen has no pointer that rests). The
// others read nothing of the run.
import { computed, ref } from 'vue'
import { useChatStore } from '../stores/chat'
import { t } from '../i18n'

export function useRunGate(conversationId: () => string) {
  const chat = useChatStore()
  const focused = ref(false)
  const pointed = ref(false)
  /** aria-disabled for the gated buttons; reads the run only while they are pointed at or have focus. */
  const ariaDisabled = computed(() => ((focused.value || pointed.value) && chat.isBusy(conversationId()) ? ('true' as const) : undefined))
  /** Why it is unavailable, while it says so. */
  const title = computed(() => (ariaDisabled.value ? t('chat.errors.busy') : undefined))
  const onFocusIn = () => (focused.value = true)
  const onFocusOut = () => (focused.value = false)
  const onPointerEnter = () => (pointed.value = true)
  const onPointerLeave = () => (pointed.value = false)
  return {
    ariaDisabled,
    title,
    onFocusIn,
    onFocusOut,
    onPointerEnter,
    onPointerLeave,
    /** Everything a single gated button binds: v-bind="gate.button.value". */
    button: computed(() => ({
      'data-run-gated': '',
      'aria-disabled': ariaDisabled.value,
      title: title.value,
      onFocus: onFocusIn,
      onBlur: onFocusOut,
      onPointerenter: onPointerEnter,
      onPointerleave: onPointerLeave,
    })),
    /**
     * Whether the action may run now (no run going in the conversation);
     * refused, the conversation's error banner says why (it clears when the
     * run ends).
     */
    open: () => {
      const id = conversationId()
      if (!chat.isBusy(id)) return true
      chat.errors[id] = t('chat.errors.busy')
      return false
    },
  }
}
