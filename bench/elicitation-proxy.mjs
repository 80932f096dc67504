// A stdio pass-through in front of an MCP server for bench/elicitation-card:
// it runs the server given as arguments and, for every `elicitation/create`
// request the server writes to Parley, appends the time it passed (ms since
// the epoch) to the file named by PARLEY_BENCH_TIMES.
import { spawn } from 'node:child_process'
import { appendFileSync } from 'node:fs'

const [cmd, ...args] = process.argv.slice(2)
const times = process.env.PARLEY_BENCH_TIMES
const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'inherit'] })
process.stdin.pipe(child.stdin)
let buf = ''
child.stdout.on('data', (d) => {
  const now = performance.timeOrigin + performance.now()
  buf += d.toString('utf8')
  let i
  while ((i = buf.indexOf('\n')) >= 0) {
    const line = buf.slice(0, i)
    buf = buf.slice(i + 1)
    if (times && line.includes('"elicitation/create"')) appendFileSync(times, `${now}\n`)
  }
  process.stdout.write(d)
})
child.on('exit', (code) => process.exit(code ?? 0))
process.on('SIGTERM', () => child.kill('SIGTERM'))
