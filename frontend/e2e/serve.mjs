// Starts the real `parley serve` (the built binary) on a free loopback port
// with its own data folder, for browser end-to-end tests.
import { spawn } from 'node:child_process'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = fileURLToPath(new URL('.', import.meta.url))
export const parleyBin = process.env.PARLEY_BIN || resolve(here, '..', '..', 'build', 'bin', 'parley')
export const token = 'e2e-token-0123456789abcdef0123456789'

export async function newDataDir() {
  return mkdtemp(join(tmpdir(), 'parley-e2e-'))
}

// startServe resolves once the server prints its URL.
// `env` adds variables (HF_ENDPOINT for the fake hub, say); `bin` runs
// another Parley; `group` starts it in a process group of its own, which
// stop() ends whole: a Parley that restarted into an update (SPEC §13) is
// another process, in that group.
export async function startServe(dataDir, { addr = '127.0.0.1:0', extraArgs = [], env = {}, bin = parleyBin, group = false } = {}) {
  const child = spawn(bin, ['serve', '--data-dir', dataDir, '--addr', addr, '--token', token, ...extraArgs], {
    env: { ...process.env, DISPLAY: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: group,
  })
  let log = ''
  child.stderr.on('data', (d) => { log += d })
  const url = await new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error('parley serve did not start:\n' + log)), 20000)
    child.stdout.on('data', (d) => {
      log += d
      const m = /serving on (http:\/\/127\.0\.0\.1:\d+)/.exec(log)
      if (m) {
        clearTimeout(timer)
        ok(m[1])
      }
    })
    child.on('exit', (code) => fail(new Error(`parley serve exited with ${code}:\n${log}`)))
  })
  const api = async (method, path, body) => {
    const res = await fetch(url + path, {
      method,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await res.text()
    return { status: res.status, body: text ? JSON.parse(text) : null }
  }
  const stop = group ? () => stopGroup(child.pid) : () => new Promise((ok) => {
    if (child.exitCode !== null) return ok(child.exitCode)
    child.once('exit', (code) => ok(code))
    child.kill('SIGTERM')
  })
  return { url, api, stop, child, log: () => log }
}

// enableDemo switches the scripted demo model on, so no model server is needed.
export async function enableDemo(server) {
  const { body } = await server.api('GET', '/api/v1/settings')
  const res = await server.api('PUT', '/api/v1/settings', { ...body, demo_mode: true, onboarded: true, rate_limit_seconds: 0 })
  if (res.status !== 200) throw new Error('enable demo: ' + JSON.stringify(res.body))
}

// login opens the UI through the token login URL (sets the cookie).
export async function login(page, server) {
  await page.goto(`${server.url}/login?token=${token}`)
  await page.getByTestId('chat-shell').waitFor()
}

// stopGroup ends a process group (SIGTERM, then SIGKILL after 15 s) and
// resolves once none of it runs.
async function stopGroup(pgid) {
  const alive = () => {
    try {
      process.kill(-pgid, 0)
      return true
    } catch {
      return false
    }
  }
  if (!alive()) return
  process.kill(-pgid, 'SIGTERM')
  const end = Date.now() + 15000
  while (alive() && Date.now() < end) await new Promise((ok) => setTimeout(ok, 50))
  if (alive()) process.kill(-pgid, 'SIGKILL')
}
