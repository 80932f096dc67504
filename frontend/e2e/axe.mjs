// axe-core for the end-to-end tests: no serious or critical violation, in
// Chromium (Playwright) and in WebKit (WebDriver). axe's script is put into
// the page by the test (the app's CSP allows no inline script: Chromium
// pages need bypassCSP; WebDriver's scripts run regardless).
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { readFile } from 'node:fs/promises'

export const axeSource = createRequire(import.meta.url).resolve('axe-core/axe.min.js')

/** The serious and critical violations of an axe result, as a readable list. */
function seriousOf(result) {
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
  const report = bad
    .map((v) => `${v.impact} ${v.id}: ${v.help}\n` + v.nodes.map((n) => `    ${n.target.join(' ')}\n      ${n.failureSummary.replace(/\n/g, '\n      ')}`).join('\n'))
    .join('\n')
  return { bad, report }
}

/** Waits for the page's animations (a theme transition) to end. */
export const settle = (page) => page.evaluate(() => Promise.all(document.getAnimations().map((a) => a.finished.catch(() => {}))))

/** Runs axe on the page (or the element of `selector`) in Chromium and fails with a readable list of serious and critical violations. */
export async function assertNoSeriousViolations(page, where, selector) {
  await settle(page) // colours in the middle of a theme transition are neither theme's
  if (!(await page.evaluate(() => !!window.axe))) await page.addScriptTag({ path: axeSource })
  const result = await page.evaluate((sel) => window.axe.run(sel ? document.querySelector(sel) : document, { resultTypes: ['violations'] }), selector ?? null)
  const { bad, report } = seriousOf(result)
  assert.equal(bad.length, 0, `axe in ${where}:\n${report}`)
}

/** The same in WebKit, through a WebDriver session (webkit.mjs). */
export async function assertNoSeriousViolationsWebKit(session, where) {
  if (!(await session.execute('return !!window.axe'))) {
    await session.execute((await readFile(axeSource, 'utf8')) + '\nreturn true')
  }
  await session.executeAsync(`const done = arguments[arguments.length - 1]
    Promise.all(document.getAnimations().map((a) => a.finished.catch(() => {}))).then(() => done(true))`)
  const result = await session.executeAsync(`const done = arguments[arguments.length - 1]
    window.axe.run(document, { resultTypes: ['violations'] }).then((r) => done({ violations: r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary || '' })) })) }), (e) => done({ error: String(e) }))`)
  assert.equal(result.error, undefined, `axe failed in ${where}: ${result.error}`)
  const { bad, report } = seriousOf(result)
  assert.equal(bad.length, 0, `axe (WebKit) in ${where}:\n${report}`)
}

/** Switches the theme (light, dark, system) with the header button, saved like a user's choice. */
export async function useTheme(page, theme) {
  const toggle = page.getByTestId('theme-toggle')
  for (let i = 0; i < 3 && (await toggle.getAttribute('aria-label')) !== `Theme: ${theme}`; i++) await toggle.click()
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme ?? 'system'), theme)
}
