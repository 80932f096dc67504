// The message actions that wait for the run to end: edit, regenerate,
// change answer. A long conversation has hundreds of them, and a run
// starting or ending must not touch each one: binding `disabled` to the run
// re-rendered and restyled every one of them on each send and each reply
// (2-3 ms of the page's work on the way to a card, with 150 messages shown).
// Instead the message list marks itself busy once (data-busy: CSS dims
// these buttons and they take no clicks, msg-actions.css), a button says
// aria-disabled only while it has focus (screen readers and the keyboard;
// `disabled` would drop the focus), and the action is refused while a run
// is going. Only what the user can reach follows the run.
import { computed, ref } from 'vue'
import { useChatStore } from '../stores/chat'

export function useRunGate(conversationId: () => string) {
  const chat = useChatStore()
  const focused = ref(false)
  /** aria-disabled for the gated buttons; reads the run only while they have focus. */
  const ariaDisabled = computed(() => (focused.value && chat.isBusy(conversationId()) ? ('true' as const) : undefined))
  const onFocusIn = () => (focused.value = true)
  const onFocusOut = () => (focused.value = false)
  return {
    ariaDisabled,
    onFocusIn,
    onFocusOut,
    /** Everything a single gated button binds: v-bind="gate.button.value". */
    button: computed(() => ({ 'data-run-gated': '', 'aria-disabled': ariaDisabled.value, onFocus: onFocusIn, onBlur: onFocusOut })),
    /** Whether the action may run now (no run going in the conversation). */
    open: () => !chat.isBusy(conversationId()),
  }
}
