import { createApp, watch } from 'vue'
import { createPinia } from 'pinia'
import App from './App.vue'
import './style.css'
import './styles/shared.css'
import { warmUpMarkdown } from './lib/markdown'
import { i18nPlugin, language, setLanguage, startLanguage } from './i18n'
import { dayGroupLabel } from './i18n/format'
import { warmUpTexts } from './i18n/warmUp'

// The first paint is in the last language shown (or the system's); the
// saved setting follows with the settings.
const app = createApp(App).use(createPinia()).use(i18nPlugin)
void setLanguage(startLanguage()).finally(() => app.mount('#app'))

// Markdown's first render is slow (code not compiled yet): do it while idle.
// So is the first "Today" heading (its Intl formatter loads the locale's
// data): with no conversation yet, it came with the first send's task.
const idle = window.requestIdleCallback ?? ((fn: () => void) => setTimeout(fn, 500))
const markdownWarm = new Promise<void>((resolve) =>
  idle(() => {
    warmUpMarkdown()
    dayGroupLabel(0)
    resolve()
  }),
)
// The interface's texts too, in the language shown (again when it switches).
let texts: Promise<void> = Promise.resolve()
watch(language, () => (texts = warmUpTexts()), { immediate: true })

// The start-up work above is done (in the language shown by then): a mark the
// benches wait for before they type, as a person would not within the first
// few hundred milliseconds of the page (bench/ui-page.mjs).
void (async () => {
  await markdownWarm
  let current: Promise<void>
  do {
    current = texts
    await current
  } while (current !== texts)
  performance.mark('parley:ready')
})()
