// WebKit (the engine of the Linux app) driven through WebKitWebDriver's W3C
// WebDriver HTTP API with plain fetch: MiniBrowser in automation mode on a
// private Xvfb display (MiniBrowser of webkit2gtk-4.1 has no --headless
// option and needs a display).
import { spawn } from 'node:child_process'
import { freePort, sleep, waitUntil } from './util.mjs'

export const MINIBROWSER = process.env.MINIBROWSER || '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser'
export const WEBDRIVER = process.env.WEBKIT_WEBDRIVER || '/usr/bin/WebKitWebDriver'
const ELEMENT = 'element-6066-11e4-a52e-4f735466cecf'

function collect(child) {
  let out = ''
  child.stdout?.on('data', (d) => { out += d })
  child.stderr?.on('data', (d) => { out += d })
  return () => out
}

function stopChild(child) {
  return new Promise((ok) => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return ok()
    const t = setTimeout(() => child.kill('SIGKILL'), 3000)
    child.once('exit', () => { clearTimeout(t); ok() })
    child.kill('SIGTERM')
  })
}

// startXvfb starts a virtual display on a number the X server picks itself
// (-displayfd), so parallel runs and other displays never collide. It never
// resets (-noreset): by default an X server resets whenever its last client
// leaves and drops a client that connects meanwhile (xorg/xserver#1102; see
// tests/desktop/display_test.go).
export async function startXvfb() {
  const child = spawn('Xvfb', ['-displayfd', '1', '-noreset', '-screen', '0', '1280x900x24', '-nolisten', 'tcp'], { stdio: ['ignore', 'pipe', 'pipe'] })
  const log = collect(child)
  const display = await new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error('Xvfb did not report a display:\n' + log())), 10000)
    child.stdout.on('data', () => {
      const m = /^(\d+)\s*$/m.exec(log())
      if (m) { clearTimeout(timer); ok(':' + m[1]) }
    })
    child.on('exit', (code) => { clearTimeout(timer); fail(new Error(`Xvfb exited with ${code}:\n${log()}`)) })
  })
  return { display, stop: () => stopChild(child), log }
}

// startWebDriver starts WebKitWebDriver on a free port with the display.
export async function startWebDriver(display) {
  const port = await freePort()
  const child = spawn(WEBDRIVER, [`--port=${port}`], { env: { ...process.env, DISPLAY: display }, stdio: ['ignore', 'pipe', 'pipe'] })
  const log = collect(child)
  const base = `http://127.0.0.1:${port}`
  let exited = null
  child.on('exit', (code) => { exited = code })
  await waitUntil(async () => {
    if (exited !== null) throw new Error(`WebKitWebDriver exited with ${exited}:\n${log()}`)
    const r = await fetch(base + '/status').then((x) => x.json())
    return r.value?.ready
  }, { what: 'WebKitWebDriver /status ready', timeout: 10000 }).catch((e) => {
    throw new Error(e.message + '\n' + log())
  })
  return { base, stop: () => stopChild(child), log }
}

async function call(base, method, path, body) {
  const res = await fetch(base + path, {
    method,
    headers: body === undefined ? {} : { 'Content-Type': 'application/json; charset=utf-8' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  let json
  try {
    json = JSON.parse(text)
  } catch {
    throw new Error(`${method} ${path}: ${res.status} ${text}`)
  }
  if (!res.ok || json.value?.error) {
    const err = new Error(`${method} ${path}: ${res.status} ${json.value?.error}: ${json.value?.message}`)
    err.code = json.value?.error
    throw err
  }
  return json.value
}

// A W3C WebDriver session.
export class Session {
  static async create(base, { args = ['--automation'] } = {}) {
    const caps = {
      capabilities: {
        alwaysMatch: {
          browserName: 'MiniBrowser',
          'webkitgtk:browserOptions': { binary: MINIBROWSER, args },
        },
      },
    }
    const value = await call(base, 'POST', '/session', caps)
    return new Session(base, value.sessionId, value.capabilities)
  }

  constructor(base, id, capabilities) {
    this.base = base
    this.id = id
    this.capabilities = capabilities
  }

  cmd(method, path, body) {
    return call(this.base, method, `/session/${this.id}${path}`, body)
  }

  navigate(url) { return this.cmd('POST', '/url', { url }) }
  url() { return this.cmd('GET', '/url') }
  setWindowRect(rect) { return this.cmd('POST', '/window/rect', rect) }
  execute(script, args = []) { return this.cmd('POST', '/execute/sync', { script, args }) }
  executeAsync(script, args = []) { return this.cmd('POST', '/execute/async', { script, args }) }
  async screenshot() { return Buffer.from(await this.cmd('GET', '/screenshot'), 'base64') }
  async elementScreenshot(el) { return Buffer.from(await this.cmd('GET', `/element/${el}/screenshot`), 'base64') }
  delete() { return this.cmd('DELETE', '') }

  async find(css) {
    const v = await this.cmd('POST', '/element', { using: 'css selector', value: css })
    return v[ELEMENT]
  }

  async findAll(css) {
    const v = await this.cmd('POST', '/elements', { using: 'css selector', value: css })
    return v.map((e) => e[ELEMENT])
  }

  // waitFor returns the first element matching css once it is displayed.
  async waitFor(css, { timeout = 15000 } = {}) {
    return waitUntil(async () => {
      const ok = await this.execute(
        `const el = document.querySelector(arguments[0]);
         if (!el) return false;
         const r = el.getBoundingClientRect(), s = getComputedStyle(el);
         return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none';`,
        [css],
      )
      return ok ? this.find(css) : null
    }, { timeout, what: `a displayed element ${css}` }).catch(async (e) => {
      const url = await this.url().catch(() => '?')
      const body = await this.execute('return document.body ? document.body.innerText.slice(0, 2000) : ""').catch(() => '?')
      throw new Error(`${e.message}\npage ${url} shows:\n${body}`)
    })
  }

  click(el) { return this.cmd('POST', `/element/${el}/click`, {}) }
  type(el, text) { return this.cmd('POST', `/element/${el}/value`, { text }) }
  text(el) { return this.cmd('GET', `/element/${el}/text`) }
  attribute(el, name) { return this.cmd('GET', `/element/${el}/attribute/${name}`) }
  selected(el) { return this.cmd('GET', `/element/${el}/selected`) }

  async clickCss(css, opts) {
    const el = await this.waitFor(css, opts)
    // Element click can race a re-render (stale element); retry briefly.
    for (let i = 0; ; i++) {
      try {
        return await this.click(i ? await this.find(css) : el)
      } catch (e) {
        if (i >= 5 || !/stale|not interactable|intercepted/.test(e.code || '')) throw e
        await sleep(100)
      }
    }
  }
}
