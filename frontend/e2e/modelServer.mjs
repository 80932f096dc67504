// The scripted model server (backend/modelserver/cmd/parley-demo-model) as
// its own process, as a real model server would be: built once per test
// file, started with the flags a test needs.
import { execFile, spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..')

/** Builds the server into a temporary folder; `remove` deletes it. */
export async function buildModelServer() {
  const dir = await mkdtemp(join(tmpdir(), 'parley-e2e-model-'))
  const bin = join(dir, 'parley-demo-model')
  await promisify(execFile)('go', ['build', '-o', bin, './backend/modelserver/cmd/parley-demo-model'], { cwd: repo })
  return { bin, remove: () => rm(dir, { recursive: true, force: true }) }
}

/** Starts the built server on a free port; resolves with its base URL once it prints it, and a stop function. */
export async function startModelServer(bin, ...flags) {
  const child = spawn(bin, ['-addr', '127.0.0.1:0', ...flags], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  const url = await new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error('model server did not start:\n' + out)), 20000)
    child.stdout.on('data', (d) => {
      out += d
      const m = /base URL (http:\/\/\S+\/v1)/.exec(out)
      if (m) {
        clearTimeout(timer)
        ok(m[1])
      }
    })
    child.stderr.on('data', (d) => { out += d })
    child.on('exit', (code) => fail(new Error(`model server exited with ${code}:\n${out}`)))
  })
  const stop = () => new Promise((ok) => {
    if (child.exitCode !== null) return ok()
    child.once('exit', () => ok())
    child.kill('SIGTERM')
  })
  return { url, stop }
}
