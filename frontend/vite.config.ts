/// <reference types="vitest/config" />
import { defineConfig } from 'vite'
import vue from '@vitejs/plugin-vue'

// Vitest's reporter calls Map.groupBy (Node 21+) when it prints a failure; on
// Node 20 it crashed there and the failure was never shown. This file runs in
// the reporter's process, so the polyfill goes here.
const mapStatics = Map as unknown as Record<string, unknown>
if (typeof mapStatics.groupBy !== 'function') {
  mapStatics.groupBy = <T, K>(items: Iterable<T>, key: (item: T, index: number) => K): Map<K, T[]> => {
    const groups = new Map<K, T[]>()
    let i = 0
    for (const item of items) {
      const k = key(item, i++)
      const group = groups.get(k)
      if (group) group.push(item)
      else groups.set(k, [item])
    }
    return groups
  }
}

// The build's environment (typed here: the config is checked with the
// page's types, which have no Node).
const buildEnv = (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env ?? {}

export default defineConfig({
  plugins: [vue()],
  // vue-i18n's build flags: the composition API only, and no message
  // compiler of its own (src/i18n compiles ICU messages with
  // intl-messageformat); both leave the bundle smaller.
  define: {
    __VUE_I18N_FULL_INSTALL__: true,
    __VUE_I18N_LEGACY_API__: false,
    __INTLIFY_DROP_MESSAGE_COMPILER__: true,
    __INTLIFY_PROD_DEVTOOLS__: false,
  },

  // PARLEY_NO_MINIFY=1 keeps the bundle's function names, for a profile of
  // the window's JavaScript (bench/desktop-latency.sh, BENCH_WINDOW_JSPROFILE).
  build: { chunkSizeWarningLimit: 1500, ...(buildEnv.PARLEY_NO_MINIFY ? { minify: false } : {}) },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.ts'],
    // Deadlines that only bound a broken run: on a busy machine (two CPU-bound
    // processes beside the run) a test of a few hundred milliseconds took over
    // the default 5 s. Tests wait for conditions, never for time.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    setupFiles: ['src/test-setup.ts'],
    // Vitest 5 keeps transformed modules on disk between runs by default; a
    // cached component then skips @vitejs/plugin-vue's link from a shared
    // `<style src>` (msg-actions.css) to its component, and the next run
    // fails to transform that style ("reading 'scoped'").
    fsModuleCache: false,
  },
})
