// A menu button's popup menu (WAI-ARIA menu button): opens below its button
// (above when there is no room), fixed so that the sidebar's scrolling does
// not clip it; arrows, Home and End move between its items, Escape closes it
// and puts focus back on the button, Tab, a click outside, scrolling or
// resizing close it.
import { nextTick, onBeforeUnmount, ref, type Ref } from 'vue'

export interface Menu {
  open: Ref<boolean>
  menu: Ref<HTMLElement | null>
  button: Ref<HTMLButtonElement | null>
  style: Ref<Record<string, string>>
  show(focus?: 'first' | 'last'): void
  close(refocus?: boolean): void
  toggle(): void
  onButtonKey(e: KeyboardEvent): void
  onMenuKey(e: KeyboardEvent): void
}

export function useMenu(width = 200): Menu {
  const open = ref(false)
  const menu = ref<HTMLElement | null>(null)
  const button = ref<HTMLButtonElement | null>(null)
  const style = ref<Record<string, string>>({})

  const items = (): HTMLElement[] => [...(menu.value?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])]

  function place(): void {
    const r = button.value?.getBoundingClientRect()
    if (!r) return
    const left = Math.max(8, Math.min(r.right - width, window.innerWidth - width - 8))
    const below = window.innerHeight - r.bottom - 12
    const above = r.top - 12
    if (below >= 160 || below >= above) style.value = { top: `${r.bottom + 4}px`, left: `${left}px`, width: `${width}px`, maxHeight: `${Math.max(below, 120)}px` }
    else style.value = { bottom: `${window.innerHeight - r.top + 4}px`, left: `${left}px`, width: `${width}px`, maxHeight: `${above}px` }
  }

  function show(focus: 'first' | 'last' = 'first'): void {
    place()
    open.value = true
    document.addEventListener('pointerdown', onDocPointer, true)
    window.addEventListener('scroll', onScroll, true)
    window.addEventListener('resize', onScroll)
    void nextTick(() => {
      const list = items()
      ;(focus === 'first' ? list[0] : list[list.length - 1])?.focus()
    })
  }

  function close(refocus = false): void {
    if (!open.value) return
    open.value = false
    document.removeEventListener('pointerdown', onDocPointer, true)
    window.removeEventListener('scroll', onScroll, true)
    window.removeEventListener('resize', onScroll)
    if (refocus) void nextTick(() => button.value?.focus())
  }

  function toggle(): void {
    if (open.value) close()
    else show()
  }

  function onDocPointer(e: Event): void {
    const t = e.target as Node | null
    if (t && (menu.value?.contains(t) || button.value?.contains(t))) return
    close()
  }

  function onScroll(e: Event): void {
    if (e.target instanceof Node && menu.value?.contains(e.target)) return
    close()
  }

  function onButtonKey(e: KeyboardEvent): void {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault()
      show(e.key === 'ArrowDown' ? 'first' : 'last')
    }
  }

  function onMenuKey(e: KeyboardEvent): void {
    const list = items()
    const i = list.indexOf(document.activeElement as HTMLElement)
    if (e.key === 'Escape') {
      e.preventDefault()
      e.stopPropagation()
      close(true)
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault()
      const next = (i + (e.key === 'ArrowDown' ? 1 : -1) + list.length) % list.length
      list[next]?.focus()
    } else if (e.key === 'Home' || e.key === 'End') {
      e.preventDefault()
      ;(e.key === 'Home' ? list[0] : list[list.length - 1])?.focus()
    } else if (e.key === 'Tab') {
      close()
    }
  }

  onBeforeUnmount(() => close())
  return { open, menu, button, style, show, close, toggle, onButtonKey, onMenuKey }
}
