// App-wide shortcuts (lib/shortcuts) on the document, and the desktop
// menu's `menu:shortcut` events, turned into actions of the stores.
import { onBeforeUnmount, onMounted } from 'vue'
import { actionFor, MENU_EVENT, type ShortcutAction } from '../lib/shortcuts'
import { useChatStore } from '../stores/chat'
import { useConversationsStore } from '../stores/conversations'
import { useSettingsStore } from '../stores/settings'

export interface ShortcutHooks {
  newChat(): void
  focusSearch(): void
  toggleHelp(): void
  /** A dialog (settings, help) has the keyboard: leave keys to it. */
  modalOpen(): boolean
}

type MenuRuntime = { EventsOn?: (name: string, cb: (...data: unknown[]) => void) => () => void }

export function useShortcuts(hooks: ShortcutHooks) {
  const chat = useChatStore()
  const conversations = useConversationsStore()
  const settings = useSettingsStore()

  function run(action: ShortcutAction): void {
    const id = conversations.currentId
    switch (action) {
      case 'new-chat':
        hooks.newChat()
        break
      case 'search':
        hooks.focusSearch()
        break
      case 'settings':
        settings.openPanel()
        break
      case 'help':
        hooks.toggleHelp()
        break
      case 'regenerate':
        if (id) void chat.regenerateLast(id)
        break
      case 'stop':
        if (id && chat.isBusy(id)) void chat.stop(id)
        break
      case 'edit-last':
        if (id) chat.editLastUserMessage(id)
        break
    }
  }

  function onKeydown(e: KeyboardEvent): void {
    if (e.defaultPrevented || e.isComposing) return
    if (e.key === 'Escape') {
      // Dialogs, menus and cards handle their own Escape first; a waiting
      // card is answered or cancelled on the card, not stopped from here.
      const id = conversations.currentId
      if (!hooks.modalOpen() && id && chat.isBusy(id) && chat.stateOf(id) !== 'awaiting_user_response') {
        e.preventDefault()
        run('stop')
      }
      return
    }
    const action = actionFor(e)
    if (!action || hooks.modalOpen()) return
    e.preventDefault()
    run(action)
  }

  let offMenu: (() => void) | null = null
  onMounted(() => {
    document.addEventListener('keydown', onKeydown)
    const rt = (window as unknown as { runtime?: MenuRuntime }).runtime
    if (typeof rt?.EventsOn === 'function') {
      offMenu = rt.EventsOn(MENU_EVENT, (action: unknown) => {
        if (typeof action === 'string') run(action as ShortcutAction)
      })
    }
  })
  onBeforeUnmount(() => {
    document.removeEventListener('keydown', onKeydown)
    offMenu?.()
  })
  return { run }
}
