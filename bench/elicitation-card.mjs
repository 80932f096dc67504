// Benchmark: an MCP server's `elicitation/create` -> the elicitation card in
// the DOM of the built UI in Chromium, through `parley serve` (the MCP
// client, the card's storage, the SSE event, the store and the render).
// The real server-everything runs behind bench/elicitation-proxy.mjs, which
// notes when each request passes; the page notes when each card appears.
// Each round declines the card so the next can come. BENCH_ROUNDS (20).
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { launchChromium } from '../frontend/e2e/helpers.mjs'
import { login } from '../frontend/e2e/serve.mjs'
import { waitUntil } from '../frontend/e2e/util.mjs'
import { everythingBin, idle, startMcpServe } from '../frontend/e2e/mcp.mjs'

const ROUNDS = Number(process.env.BENCH_ROUNDS || 20)
const here = fileURLToPath(new URL('.', import.meta.url))
const dir = await mkdtemp(join(tmpdir(), 'parley-bench-elicit-'))
const timesFile = join(dir, 'times')
process.env.PARLEY_BENCH_TIMES = timesFile

const env = await startMcpServe({
  policies: { 'trigger-elicitation-request': 'allow' },
  args: [resolve(here, 'elicitation-proxy.mjs'), process.execPath, everythingBin, 'stdio'],
})
const browser = await launchChromium()
const samples = []
try {
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } })
  await login(page, env.server)
  // The page notes when each new card enters the DOM (epoch ms, like the proxy).
  await page.evaluate(() => {
    window.__cards = {}
    new MutationObserver(() => {
      for (const el of document.querySelectorAll('[data-testid="elicitation-card"]')) {
        const id = el.dataset.questionId
        if (id && !(id in window.__cards)) window.__cards[id] = performance.timeOrigin + performance.now()
      }
    }).observe(document.body, { childList: true, subtree: true })
  })
  const composer = page.getByRole('textbox', { name: 'Message' })
  let convId = null
  for (let round = 0; round < ROUNDS + 2; round++) {
    const seen = await page.evaluate(() => Object.keys(window.__cards).length)
    await composer.fill('call trigger-elicitation-request {}')
    await composer.press('Enter')
    await waitUntil(() => page.evaluate((n) => Object.keys(window.__cards).length > n, seen), { what: `card ${round}`, interval: 20 })
    if (!convId) convId = (await env.server.api('GET', '/api/v1/conversations')).body.items[0].id
    await page.locator('[data-testid="elicitation-card"][data-status="pending"] [data-testid="decline"]').click()
    await idle(env.server, convId)
    // And the page knows it (its Send button is back): an Enter pressed
    // while the page still shows the run is refused as busy, and the next
    // round's card would never come.
    await page.locator('[data-testid="send"]').waitFor()
    const sent = (await readFile(timesFile, 'utf8')).trim().split('\n').map(Number)
    const shown = Object.values(await page.evaluate(() => window.__cards)).sort((a, b) => a - b)
    // The first two rounds warm up (JIT, the first SSE and render paths).
    if (round >= 2) samples.push(shown.at(-1) - sent.at(-1))
  }
} finally {
  await browser.close()
  await env.stop()
  await rm(dir, { recursive: true, force: true })
}

const s = [...samples].sort((a, b) => a - b)
const q = (p) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))]
const ms = (x) => `${x.toFixed(1)} ms`
console.log(`elicitation/create -> card in the DOM (Chromium, ${s.length} rounds): p50 ${ms(q(0.5))}  p95 ${ms(q(0.95))}  min ${ms(s[0])}  max ${ms(s.at(-1))}`)
