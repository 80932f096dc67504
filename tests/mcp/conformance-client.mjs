// The official MCP conformance suite's client scenarios (initialize,
// tools_call, elicitation-sep1034-client-defaults, sse-retry) against
// Parley's MCP host: the suite starts its scenario server and runs
// conformanceclient/ (backend/mcp connecting and calling the way Parley
// does, elicitations answered through Parley's question manager) with the
// server's URL. Runs the suite with the Node 22 installed here
// (node_modules/.bin/node); exits non-zero when a scenario fails.
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const root = resolve(here, '..', '..')
const scenarios = ['initialize', 'tools_call', 'elicitation-sep1034-client-defaults', 'sse-retry']

const run = (cmd, args, opts = {}) => new Promise((ok, fail) => {
  const child = spawn(cmd, args, { stdio: 'inherit', ...opts })
  child.on('error', fail)
  child.on('exit', (code) => ok(code))
})

const dir = await mkdtemp(join(tmpdir(), 'parley-conformance-'))
const client = join(dir, 'conformanceclient')
let failed = 0
try {
  const built = await run('go', ['build', '-o', client, './tests/mcp/conformanceclient'], { cwd: root })
  if (built !== 0) throw new Error(`go build ./tests/mcp/conformanceclient exited with ${built}`)
  for (const scenario of scenarios) {
    const code = await run(join(here, 'node_modules', '.bin', 'node'),
      [join(here, 'node_modules', '.bin', 'conformance'), 'client', '--command', client, '--scenario', scenario], { cwd: dir })
    console.log(`conformance client ${scenario}: ${code === 0 ? 'passed' : 'FAILED'}`)
    if (code !== 0) failed++
  }
} finally {
  await rm(dir, { recursive: true, force: true })
}
console.log(`${scenarios.length - failed} passed, ${failed} failed`)
process.exit(failed ? 1 : 0)
