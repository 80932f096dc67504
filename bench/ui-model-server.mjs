// The scripted OpenAI-compatible model server of the UI latency bench
// (bench/ui-latency.mjs), streaming like llama.cpp (and Ollama's thinking
// field for (f)). What the bench sends as the user's message picks the reply:
// `card N` a question card (ask_user_question) of round N, `fanout`,
// `stream` and `think-stream` the streams of (c), (d) and (f); a tool result
// a short reply. state holds when it wrote and received what the bench
// measures against.
import { createServer } from 'node:http'
import { randomBytes } from 'node:crypto'
import { sleep } from '../frontend/e2e/util.mjs'
import { FANOUT_CHUNKS, STREAM_RATE, STREAM_SECONDS, THINK_ANSWER_SECONDS, THINK_STREAM_SECONDS, now } from './ui-knobs.mjs'

export function startModel() {
  const state = {
    requests: [], // { t, last }
    toolCallAt: new Map(), // round -> time the first tool-call chunk was written
    toolResultAt: new Map(), // round -> arrival of the request carrying its tool result
    waiters: [],
    fanoutSent: [], // chunk index -> write time
    fanoutDone: null,
    stream: null, // { sent, start, end }
    thinking: null, // { start, thinkEnd?, end?, sent }
    unexpected: [],
    thinkMs: 0,
  }
  const created = Math.floor(Date.now() / 1000)
  const chunk = (delta, finish = null) => ({
    id: 'chatcmpl-bench', object: 'chat.completion.chunk', created, model: 'bench',
    choices: [{ index: 0, delta, finish_reason: finish }],
  })
  const usage = { id: 'chatcmpl-bench', object: 'chat.completion.chunk', created, model: 'bench', choices: [],
    usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } }

  const sse = (res) => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' })
    return (obj) => res.write(`data: ${JSON.stringify(obj)}\n\n`)
  }
  const finishText = (res, send) => {
    send(chunk({}, 'stop'))
    send(usage)
    res.end('data: [DONE]\n\n')
  }
  const text = (res, parts) => {
    const send = sse(res)
    send(chunk({ role: 'assistant', content: '' }))
    for (const p of parts) send(chunk({ content: p }))
    finishText(res, send)
  }

  // Like llama.cpp: role chunk, the call's id/type/name with empty
  // arguments, the arguments in pieces, finish_reason, usage, [DONE].
  // state.thinkMs: the time a real model spends on the prompt before its
  // first token (0: the call is written at once).
  const toolCall = async (res, round, args) => {
    const send = sse(res)
    send(chunk({ role: 'assistant', content: null }))
    if (state.thinkMs > 0) await sleep(state.thinkMs)
    const id = 'call_' + randomBytes(12).toString('hex')
    state.toolCallAt.set(round, now())
    send(chunk({ tool_calls: [{ index: 0, id, type: 'function', function: { name: 'ask_user_question', arguments: '' } }] }))
    const n = Math.ceil(args.length / 3)
    for (let i = 0; i < args.length; i += n) send(chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(i, i + n) } }] }))
    send(chunk({}, 'tool_calls'))
    send(usage)
    res.end('data: [DONE]\n\n')
  }

  const fanout = async (res) => {
    const send = sse(res)
    send(chunk({ role: 'assistant', content: '' }))
    for (let k = 0; k < FANOUT_CHUNKS; k++) {
      state.fanoutSent[k] = now()
      send(chunk({ content: `t${k} ` }))
      await sleep(10)
    }
    finishText(res, send)
    state.fanoutDone = now()
  }

  const WORDS = ['the', 'quick', 'answer', 'is', 'a', 'local', 'model', 'streams', '**bold**', 'text', 'with', '`code`', 'and', 'lists', 'of', 'items']
  // Sends STREAM_RATE tokens a second for `seconds`, each as the delta
  // delta(token) makes; resolves with how many were sent.
  const paced = async (send, seconds, delta) => {
    const total = STREAM_RATE * seconds
    const start = now()
    let sent = 0
    while (sent < total) {
      const due = Math.min(total, Math.floor(((now() - start) / 1000) * STREAM_RATE))
      for (; sent < due; sent++) {
        let tok = WORDS[sent % WORDS.length] + ' '
        if (sent % 97 === 96) tok += '\n\n'
        else if (sent % 41 === 40) tok = '\n- ' + tok
        send(chunk(delta(tok)))
      }
      await sleep(4)
    }
    return total
  }
  const longStream = async (res) => {
    const send = sse(res)
    send(chunk({ role: 'assistant', content: '' }))
    const start = now()
    const sent = await paced(send, STREAM_SECONDS, (tok) => ({ content: tok }))
    send(chunk({ content: 'END-OF-STREAM' }))
    state.stream = { sent, start, end: now() }
    finishText(res, send)
  }

  // (f) Thinking as Ollama's /v1 streams it (openai/openai.go: the
  // thinking in delta.reasoning with an empty content), then the answer.
  const thinkStream = async (res) => {
    const send = sse(res)
    const t = (state.thinking = { start: now(), sent: 0 })
    t.sent += await paced(send, THINK_STREAM_SECONDS, (tok) => ({ role: 'assistant', content: '', reasoning: tok }))
    t.thinkEnd = now()
    t.sent += await paced(send, THINK_ANSWER_SECONDS, (tok) => ({ role: 'assistant', content: tok }))
    send(chunk({ content: 'END-OF-STREAM' }))
    t.end = now()
    finishText(res, send)
  }

  const server = createServer({ noDelay: true }, (req, res) => {
    const t = now()
    let body = ''
    req.on('data', (d) => { body += d })
    req.on('end', () => {
      const url = req.url.split('?')[0]
      if (req.method === 'GET' && url.endsWith('/models')) {
        res.writeHead(200, { 'Content-Type': 'application/json' })
        return res.end(JSON.stringify({ object: 'list', data: [{ id: 'bench', object: 'model', owned_by: 'bench' }] }))
      }
      if (req.method === 'GET' && url === '/api/tags') {
        res.writeHead(200, { 'Content-Type': 'application/json' })
        return res.end(JSON.stringify({ models: [{ name: 'bench', model: 'bench', size: 1 }] }))
      }
      if (req.method === 'GET' && url === '/api/version') {
        res.writeHead(200, { 'Content-Type': 'application/json' })
        return res.end('{"version":"0.0.0-bench"}')
      }
      if (req.method === 'POST' && url === '/api/show') {
        res.writeHead(200, { 'Content-Type': 'application/json' })
        return res.end('{"capabilities":["completion","tools"]}')
      }
      if (req.method !== 'POST' || !url.endsWith('/chat/completions')) {
        state.unexpected.push(`${req.method} ${req.url}`)
        res.writeHead(404, { 'Content-Type': 'application/json' })
        return res.end('{"error":{"message":"not found"}}')
      }
      const r = JSON.parse(body)
      const last = r.messages.at(-1)
      state.requests.push({ t, last })
      if (!r.stream) {
        res.writeHead(200, { 'Content-Type': 'application/json' })
        return res.end(JSON.stringify({ id: 'x', object: 'chat.completion', created, model: 'bench',
          choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage: usage.usage }))
      }
      if (last.role === 'tool') {
        const round = Number(/Round (\d+) /.exec(JSON.stringify(r.messages.slice(-3)))?.[1] ?? -1)
        state.toolResultAt.set(round, t)
        for (const w of state.waiters.splice(0)) w()
        return text(res, ['Noted', ` ${round}.`])
      }
      const content = String(last.content)
      let m
      if ((m = /^card (\d+)$/.exec(content))) {
        const round = Number(m[1])
        const args = JSON.stringify({ questions: [{ question: `Round ${round} of the bench: which one?`, header: 'Bench',
          options: [{ label: 'Alpha', description: 'the first' }, { label: 'Beta', description: 'the second' }] }] })
        return void toolCall(res, round, args)
      }
      if (content === 'fanout') return void fanout(res)
      if (content === 'stream') return void longStream(res)
      if (content === 'think-stream') return void thinkStream(res)
      return text(res, ['Short', ' reply.'])
    })
  })
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok({
    port: server.address().port,
    state,
    nextToolResult: () => new Promise((resolve) => state.waiters.push(resolve)),
    close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(r) }),
  })))
}
