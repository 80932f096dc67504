// (c) of the UI latency bench (bench/ui-latency.mjs): Parley's SSE event
// stream fanned out to CLIENTS clients (bench/sse-clients.mjs, in a worker
// thread): model chunk -> the delta at the first and at every client.
import { Worker } from 'node:worker_threads'
import { token } from '../frontend/e2e/serve.mjs'
import { waitUntil, sleep } from '../frontend/e2e/util.mjs'
import { stats } from './stats.mjs'
import { CLIENTS, FANOUT_CHUNKS } from './ui-knobs.mjs'
import { conversationIdle } from './ui-page.mjs'

// (c)
export async function fanout(server, model) {
  const worker = new Worker(new URL('./sse-clients.mjs', import.meta.url), { workerData: { url: server.url, token, clients: CLIENTS } })
  const errors = []
  let ready
  const readyP = new Promise((r) => { ready = r })
  let collected
  const recordsP = new Promise((r) => { collected = r })
  worker.on('message', (m) => {
    if (m.type === 'ready') ready()
    else if (m.type === 'error') errors.push(m.message)
    else if (m.type === 'records') collected(m.records)
  })
  worker.on('error', (e) => errors.push(String(e)))
  try {
    await Promise.race([readyP, sleep(10000).then(() => { throw new Error('SSE clients did not connect: ' + errors.join('; ')) })])
    const id = (await server.api('POST', '/api/v1/conversations', { title: 'fan-out' })).body.id
    const sent = await server.api('POST', `/api/v1/conversations/${id}/messages`, { content: 'fanout' })
    if (sent.status !== 202) throw new Error('fanout send: ' + JSON.stringify(sent))
    await waitUntil(() => model.state.fanoutDone, { timeout: 30000, what: 'the fan-out stream to end' })
    await conversationIdle(server, id)
    await sleep(300)
    worker.postMessage('collect')
    const records = await recordsP
    // Per chunk k: when each client saw the delta carrying marker t<k>.
    const arrivals = Array.from({ length: FANOUT_CHUNKS }, () => [])
    let events = 0
    records.forEach((recs) => {
      for (const r of recs) {
        if (r.delta === undefined) continue
        events++
        for (const m of r.delta.matchAll(/t(\d+) /g)) arrivals[Number(m[1])].push(r.t)
      }
    })
    const all = []
    const first = []
    const spread = []
    let incomplete = 0
    arrivals.forEach((ts, k) => {
      if (ts.length !== CLIENTS) { incomplete++; return }
      const lo = Math.min(...ts)
      const hi = Math.max(...ts)
      all.push(hi - model.state.fanoutSent[k])
      first.push(lo - model.state.fanoutSent[k])
      spread.push(hi - lo)
    })
    return { all: stats(all), first: stats(first), spread: stats(spread), incomplete, events, errors }
  } finally {
    worker.postMessage('stop')
    await sleep(100)
    await worker.terminate()
  }
}
