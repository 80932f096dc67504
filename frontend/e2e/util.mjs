// Small helpers shared by the card tests, the WebKit test and the benchmarks.
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { artifactsDir } from './helpers.mjs'

export const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms))

// waitUntil polls fn until it returns a truthy value and returns that value;
// on timeout it throws with `what` and the last value (or error) it saw.
export async function waitUntil(fn, { timeout = 15000, interval = 100, what = 'condition' } = {}) {
  const end = Date.now() + timeout
  let last, lastErr
  for (;;) {
    try {
      last = await fn()
      lastErr = undefined
      if (last) return last
    } catch (e) {
      lastErr = e
    }
    if (Date.now() > end) {
      const seen = lastErr ? `error: ${lastErr.stack || lastErr}` : `last value: ${JSON.stringify(last)}`
      throw new Error(`timed out after ${timeout} ms waiting for ${what}; ${seen}`)
    }
    await sleep(interval)
  }
}

// freePort asks the kernel for a free loopback port.
export function freePort() {
  return new Promise((ok, fail) => {
    const srv = createServer()
    srv.once('error', fail)
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address()
      srv.close(() => ok(port))
    })
  })
}

export async function saveArtifact(name, data) {
  await mkdir(artifactsDir, { recursive: true })
  const path = join(artifactsDir, name)
  await writeFile(path, data)
  return path
}

// A short summary of a conversation for failure messages.
export function transcript(conv) {
  return (conv?.messages ?? []).map((m) => `${m.role}: ${String(m.content).slice(0, 200)}`).join('\n')
}

// startTempServe starts `parley serve` in a fresh data folder that stop()
// removes again.
export async function startTempServe(opts) {
  const { startServe, newDataDir } = await import('./serve.mjs')
  const dir = await newDataDir()
  const server = await startServe(dir, opts)
  const stop = server.stop
  server.dataDir = dir
  server.stop = async () => {
    const code = await stop()
    await rm(dir, { recursive: true, force: true })
    return code
  }
  return server
}
