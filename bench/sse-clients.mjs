// Worker thread of bench/ui-fanout.mjs: N clients of Parley's SSE event stream,
// on their own event loop so the model server's timestamps in the main thread
// are not held up by parsing. Each client records when every message:delta
// event arrived (epoch ms, sub-ms resolution) and the delta text.
import { parentPort, workerData } from 'node:worker_threads'

const { url, token, clients } = workerData
const now = () => performance.timeOrigin + performance.now()
const controllers = []
const records = Array.from({ length: clients }, () => [])
let connected = 0

async function run(i) {
  const ctl = new AbortController()
  controllers.push(ctl)
  const res = await fetch(url + '/api/v1/events', { headers: { Authorization: `Bearer ${token}` }, signal: ctl.signal })
  if (!res.ok) throw new Error(`client ${i}: ${res.status}`)
  const decoder = new TextDecoder()
  let buf = ''
  let first = true
  try {
    for await (const chunk of res.body) {
      const t = now()
      buf += decoder.decode(chunk, { stream: true })
      let k
      while ((k = buf.indexOf('\n\n')) >= 0) {
        const frame = buf.slice(0, k)
        buf = buf.slice(k + 2)
        if (first && frame.startsWith(': connected')) {
          first = false
          if (++connected === clients) parentPort.postMessage({ type: 'ready' })
          continue
        }
        let name = ''
        let data = ''
        for (const line of frame.split('\n')) {
          if (line.startsWith('event: ')) name = line.slice(7)
          else if (line.startsWith('data: ')) data += line.slice(6)
        }
        if (name === 'message:delta') records[i].push({ t, delta: JSON.parse(data).delta })
        else if (name) records[i].push({ t, name })
      }
    }
  } catch (e) {
    if (e.name !== 'AbortError') parentPort.postMessage({ type: 'error', message: `client ${i}: ${e.message}` })
  }
}

for (let i = 0; i < clients; i++) {
  run(i).catch((e) => parentPort.postMessage({ type: 'error', message: String(e) }))
}

parentPort.on('message', (m) => {
  if (m === 'collect') {
    parentPort.postMessage({ type: 'records', records })
  } else if (m === 'stop') {
    for (const c of controllers) c.abort()
    setTimeout(() => process.exit(0), 50)
  }
})
