// Window-level helpers that go through the transport (Wails runtime or browser).
import { useTransport } from '../transport'

export function openExternal(url: string): void {
  useTransport().openExternal(url)
}

export function copyText(text: string): Promise<boolean> {
  return useTransport().copyText(text)
}
