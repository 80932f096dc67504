// The official MCP conformance suite's server scenarios that apply to any
// server (server-initialize, ping, tools-list, dns-rebinding-protection)
// against `parley serve`'s /mcp. The suite sends no Authorization header, so
// it goes through a test-only proxy that adds the token and passes every
// other header as sent (Host and Origin included: Parley itself must refuse
// a rebinding Host). Runs the suite with the Node 22 installed here
// (node_modules/.bin/node); exits non-zero when a scenario fails.
import { spawn } from 'node:child_process'
import http from 'node:http'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { newDataDir, startServe, token } from '../../frontend/e2e/serve.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const scenarios = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection']

const server = await startServe(await newDataDir())
const target = new URL(server.url)
const proxy = http.createServer((req, res) => {
  const headers = { ...req.headers, authorization: `Bearer ${token}` }
  const up = http.request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers }, (r) => {
    res.writeHead(r.statusCode ?? 502, r.headers)
    r.pipe(res)
  })
  up.on('error', (e) => {
    res.writeHead(502)
    res.end(String(e))
  })
  req.pipe(up)
})
await new Promise((ok) => proxy.listen(0, '127.0.0.1', ok))
const url = `http://127.0.0.1:${proxy.address().port}/mcp`

let failed = 0
for (const scenario of scenarios) {
  const code = await new Promise((ok) => {
    const child = spawn(join(here, 'node_modules', '.bin', 'node'), [join(here, 'node_modules', '.bin', 'conformance'), 'server', '--url', url, '--scenario', scenario], { stdio: 'inherit' })
    child.on('exit', ok)
  })
  console.log(`conformance ${scenario}: ${code === 0 ? 'passed' : 'FAILED'}`)
  if (code !== 0) failed++
}
proxy.close()
await server.stop()
console.log(`${scenarios.length - failed} passed, ${failed} failed`)
process.exit(failed ? 1 : 0)
