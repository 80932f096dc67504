// What the window the app runs in can do, and the window-level actions that
// go through the transport (the Wails runtime, or the browser): opening a
// link outside the app, copying text, the desktop's native file dialogs.
import { defineStore } from 'pinia'
import { useTransport } from '../transport'

export const usePlatformStore = defineStore('platform', {
  getters: {
    /** Not a page served by `parley serve` (the desktop app, or the in-page fake of the demo and the tests). */
    desktop: (): boolean => useTransport().kind !== 'http',
    /**
     * The Go side shows native file dialogs (the desktop app): export saves
     * the file itself and import asks for the file.
     */
    nativeFileDialogs: (): boolean => useTransport().nativeFileDialogs,
  },
  actions: {
    /** Opens a link in the system browser (never inside the app's window). */
    openExternal(url: string): void {
      useTransport().openExternal(url)
    },
    /** Copies text to the clipboard; resolves false when that failed. */
    copyText(text: string): Promise<boolean> {
      return useTransport().copyText(text)
    },
  },
})
