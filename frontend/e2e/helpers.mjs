// Shared helpers for the browser end-to-end tests (node:test + playwright-core
// driving Debian's Chromium; browsers cannot be downloaded here).
import { chromium } from 'playwright-core'
import { createServer } from 'node:http'
import { readFile, mkdir } from 'node:fs/promises'
import { extname, join, normalize, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = fileURLToPath(new URL('.', import.meta.url))
export const distDir = resolve(here, '..', 'dist')
export const artifactsDir = process.env.PARLEY_ARTIFACTS || resolve(here, '..', '..', 'test-artifacts')

export async function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
}

const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.png': 'image/png', '.woff2': 'font/woff2' }

// serveDist serves the built UI on a random loopback port.
export async function serveDist() {
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '')
    const file = join(distDir, path === '/' ? 'index.html' : path)
    try {
      const body = await readFile(file)
      res.writeHead(200, { 'content-type': types[extname(file)] || 'application/octet-stream' })
      res.end(body)
    } catch {
      res.writeHead(404, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: 'not found' }))
    }
  })
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok))
  const { port } = server.address()
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((ok) => server.close(ok)) }
}

export async function screenshot(page, name) {
  await mkdir(artifactsDir, { recursive: true })
  await page.screenshot({ path: join(artifactsDir, name), fullPage: true })
}

// roundedScrollers lists the elements in locator's element (itself
// included) that both scroll and have rounded corners: WebKitGTK composites
// a rounded clip around a scrolling area slowly (the Settings dialog took
// 1-2 s to open under Xvfb), so a rounded panel keeps a square list inside
// that scrolls.
export async function roundedScrollers(locator) {
  return locator.evaluate((root) =>
    [root, ...root.querySelectorAll('*')]
      .filter((el) => {
        const s = getComputedStyle(el)
        const scrolls = /auto|scroll/.test(s.overflowX + s.overflowY)
        const rounded = [s.borderTopLeftRadius, s.borderTopRightRadius, s.borderBottomLeftRadius, s.borderBottomRightRadius].some((r) => parseFloat(r) > 0)
        return scrolls && rounded
      })
      .map((el) => el.className),
  )
}
