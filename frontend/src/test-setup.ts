// Every component a test mounts has vue-i18n (English, as jsdom's
// navigator.languages say), as in the app.
import { config } from '@vue/test-utils'
import { i18nPlugin } from './i18n'

config.global.plugins = [...(config.global.plugins ?? []), i18nPlugin]
