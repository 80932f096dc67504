// A card that appears takes focus, unless the user is typing elsewhere, and
// tells the list (which scrolls it into view). Shared by every kind of card.
import { onMounted, type Ref } from 'vue'
import { isTextField } from './useCardKeyboard'
import { afterShownPaint } from '../lib/frame'

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
    const el = o.root.value
    const focused = o.autofocus() && !userIsTypingElsewhere(el)
    if (el) o.emitAppear(el, focused)
    if (!focused) return
    // Focusing lays the page out at once: done after the card's own frame
    // is painted, so the card is not seen later for it. Focus the user moved
    // meanwhile (a click, a field they began typing in) stays where they put it.
    const before = document.activeElement
    afterShownPaint(() => {
      if (el?.isConnected && o.showForm() && document.activeElement === before) o.focusFirst({ preventScroll: true })
    })
  })
}
