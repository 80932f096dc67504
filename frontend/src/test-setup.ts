// Every component a test mounts has vue-i18n (English, as jsdom's
// navigator.languages say), as in the app.
import { config } from '@vue/test-utils'
import { i18nPlugin } from './i18n'

config.global.plugins = [...(config.global.plugins ?? []), i18nPlugin]

// Transports deliver events at once in unit tests (a fake stream or window
// emits and the test looks at once); transport/eventBatch.test.ts tests the
// batch itself, the e2e tests the page with it.
import { immediate, useEventBatch } from './transport/eventBatch'
useEventBatch(immediate)
