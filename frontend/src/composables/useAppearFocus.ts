// A card that appears takes focus, unless the user is typing elsewhere, and
// tells the list (which scrolls it into view). Shared by every kind of card.
import { onMounted, type Ref } from 'vue'
import { isTextField } from './useCardKeyboard'

export interface AppearFocusOptions {
  root: Ref<HTMLElement | null>
  /** Whether the card shows a form (only then is there anything to focus). */
  showForm: () => boolean
  autofocus: () => boolean
  /** Focuses the card's first control. */
  focusFirst: (opts?: FocusOptions) => void
  emitAppear: (el: HTMLElement, focused: boolean) => void
}

/** Whether focus is in a text field outside `root` that holds text. */
export function userIsTypingElsewhere(root: HTMLElement | null): boolean {
  const ae = document.activeElement as HTMLElement | null
  if (!ae || ae === document.body || root?.contains(ae)) return false
  return isTextField(ae) && !!(ae as HTMLInputElement).value
}

export function useAppearFocus(o: AppearFocusOptions): void {
  onMounted(() => {
    if (!o.showForm()) return
    const focused = o.autofocus() && !userIsTypingElsewhere(o.root.value)
    if (focused) o.focusFirst({ preventScroll: true })
    if (o.root.value) o.emitAppear(o.root.value, focused)
  })
}
