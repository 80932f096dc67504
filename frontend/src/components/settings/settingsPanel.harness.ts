// Shared by the Settings panel's unit tests (not a test file itself): the
// panel opened as the app opens it.
import type { DOMWrapper, VueWrapper } from '@vue/test-utils'
import SettingsPanel from './SettingsPanel.vue'
import { mountInBody, onReset, type TestEnv } from '../../test-utils'
import { connectEvents } from '../../stores/events'
import { useSettingsStore } from '../../stores/settings'

/** Events connected, settings loaded, the panel open and mounted in the body; resetDom undoes it. */
export async function mountSettingsPanel(env: TestEnv): Promise<VueWrapper> {
  onReset(connectEvents())
  const settings = useSettingsStore()
  await settings.init()
  settings.openPanel()
  return mountInBody(SettingsPanel, env)
}

/** The element with the given data-testid inside v. */
export const byTest = (v: { find(selector: string): DOMWrapper<Element> }, id: string) => v.find(`[data-testid="${id}"]`)
