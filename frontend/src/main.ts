import { createApp } from 'vue'
import { createPinia } from 'pinia'
import App from './App.vue'
import './style.css'
import './styles/shared.css'
import { warmUpMarkdown } from './lib/markdown'

createApp(App).use(createPinia()).mount('#app')

// Markdown's first render is slow (code not compiled yet): do it while idle.
const idle = window.requestIdleCallback ?? ((fn: () => void) => setTimeout(fn, 500))
idle(() => warmUpMarkdown())
