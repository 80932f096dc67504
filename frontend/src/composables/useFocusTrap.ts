// Tab kept inside a modal box (a dialog, the drawer): past its last control
// to its first, and back; from outside the box, into it. The dialogs and the
// drawer share it.

const FOCUSABLE = 'a[href], button, input, select, textarea, summary, [tabindex]'

/** The controls Tab reaches in box, in order: enabled, not hidden, not tabindex -1. */
export function focusables(box: HTMLElement | null | undefined): HTMLElement[] {
  if (!box) return []
  return [...box.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => !el.matches(':disabled, [tabindex="-1"], [type="hidden"]') && !el.closest('[hidden]'))
}

/**
 * Handles a Tab keydown for box: moves focus round when it would leave the
 * box (or is outside it), and prevents the default then. Other keys are
 * left alone.
 */
export function trapTab(e: KeyboardEvent, box: HTMLElement | null | undefined): void {
  if (e.key !== 'Tab' || !box) return
  const list = focusables(box)
  if (!list.length) return
  const first = list[0]!
  const last = list[list.length - 1]!
  const at = document.activeElement
  const inside = at instanceof Node && box.contains(at)
  if (e.shiftKey ? at === first || !inside : at === last || !inside) {
    e.preventDefault()
    ;(e.shiftKey ? last : first).focus()
  }
}
