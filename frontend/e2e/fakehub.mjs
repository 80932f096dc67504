// The fake Hugging Face hub (cmd/fakehub) as its own process, for the model
// library's end-to-end tests (SPEC §12): built once per test file, started
// with -fixtures (repository parley/fixtures-GGUF: fixed.gguf, card.gguf,
// random.gguf); Parley finds it through HF_ENDPOINT.
import { execFile, spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..')

export const FIXTURES_REPO = 'parley/fixtures-GGUF'

/** Builds fakehub into a temporary folder; `remove` deletes it. */
export async function buildFakeHub() {
  const dir = await mkdtemp(join(tmpdir(), 'parley-e2e-hub-'))
  const bin = join(dir, 'fakehub')
  await promisify(execFile)('go', ['build', '-o', bin, './cmd/fakehub'], { cwd: repo })
  return { bin, remove: () => rm(dir, { recursive: true, force: true }) }
}

/** Starts it; resolves with its URL once it prints it, and a stop function (it serves until its stdin closes). */
export async function startFakeHub(bin, ...flags) {
  const child = spawn(bin, ['-fixtures', ...flags], { stdio: ['pipe', 'pipe', 'pipe'] })
  let out = ''
  const url = await new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error('fakehub did not start:\n' + out)), 30000)
    child.stdout.on('data', (d) => {
      out += d
      const line = out.split('\n')[0]
      if (out.includes('\n')) {
        clearTimeout(timer)
        try {
          ok(JSON.parse(line).url)
        } catch (err) {
          fail(new Error(`fakehub printed ${line}: ${err}`))
        }
      }
    })
    child.stderr.on('data', (d) => { out += d })
    child.on('exit', (code) => fail(new Error(`fakehub exited with ${code}:\n${out}`)))
  })
  const stop = () => new Promise((ok) => {
    if (child.exitCode !== null) return ok()
    child.once('exit', () => ok())
    child.stdin.end()
    setTimeout(() => child.exitCode === null && child.kill('SIGTERM'), 2000).unref()
  })
  return { url, stop }
}
