import { createApp } from 'vue'
import { createPinia } from 'pinia'
import App from './App.vue'
import './style.css'
import './styles/shared.css'
import { warmUpMarkdown } from './lib/markdown'
import { i18nPlugin, setLanguage, startLanguage } from './i18n'

// The first paint is in the last language shown (or the system's); the
// saved setting follows with the settings.
const app = createApp(App).use(createPinia()).use(i18nPlugin)
void setLanguage(startLanguage()).finally(() => app.mount('#app'))

// Markdown's first render is slow (code not compiled yet): do it while idle.
const idle = window.requestIdleCallback ?? ((fn: () => void) => setTimeout(fn, 500))
idle(() => warmUpMarkdown())
