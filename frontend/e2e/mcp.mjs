// Shared by the MCP end-to-end tests and the elicitation benchmark: a tiny
// scripted OpenAI-compatible model server whose turns call MCP tools, and
// `parley serve` started against it with the real
// @modelcontextprotocol/server-everything (tests/mcp/node_modules, pinned
// and installed by the test command) configured as the server "everything".
//
// The model: a user message `call <tool> <json arguments>` answers with one
// call of `everything__<tool>`; a tool result answers with the text
// `Tool said: <result>`; anything else with `OK.`.
import { createServer } from 'node:http'
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startTempServe } from './util.mjs'
import { waitUntil } from './util.mjs'

const here = fileURLToPath(new URL('.', import.meta.url))
export const everythingBin = resolve(here, '..', '..', 'tests', 'mcp', 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js')

export function startToolModel() {
  const state = { requests: [], toolCalls: [], toolCallAt: [] }
  const created = Math.floor(Date.now() / 1000)
  const chunk = (delta, finish = null) => ({ id: 'chatcmpl-mcp', object: 'chat.completion.chunk', created, model: 'mcp', choices: [{ index: 0, delta, finish_reason: finish }] })
  const usage = { id: 'chatcmpl-mcp', object: 'chat.completion.chunk', created, model: 'mcp', choices: [], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }
  const sse = (res) => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' })
    return (o) => res.write(`data: ${JSON.stringify(o)}\n\n`)
  }
  const end = (res, send, finish) => {
    send(chunk({}, finish))
    send(usage)
    res.end('data: [DONE]\n\n')
  }
  let n = 0
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (d) => (body += d))
    req.on('end', () => {
      const url = req.url.split('?')[0]
      const json = (o) => {
        res.writeHead(200, { 'Content-Type': 'application/json' })
        res.end(JSON.stringify(o))
      }
      if (req.method === 'GET' && url.endsWith('/models')) return json({ object: 'list', data: [{ id: 'mcp', object: 'model', owned_by: 'test' }] })
      if (req.method !== 'POST' || !url.endsWith('/chat/completions')) {
        res.writeHead(404, { 'Content-Type': 'application/json' })
        return res.end('{"error":{"message":"not found"}}')
      }
      const r = JSON.parse(body)
      const last = r.messages.at(-1)
      state.requests.push({ last, tools: (r.tools ?? []).map((t) => t.function?.name) })
      if (!r.stream) return json({ id: 'x', object: 'chat.completion', created, model: 'mcp', choices: [{ index: 0, message: { role: 'assistant', content: 'OK.' }, finish_reason: 'stop' }] })
      const send = sse(res)
      if (last.role === 'tool') {
        send(chunk({ role: 'assistant', content: '' }))
        send(chunk({ content: `Tool said: ${String(last.content).slice(0, 400)}` }))
        return end(res, send, 'stop')
      }
      const m = /^call (\S+)(?: ([\s\S]*))?$/.exec(String(last.content ?? '').trim())
      if (m) {
        const id = `call_mcp_${++n}`
        const args = m[2] ?? '{}'
        state.toolCalls.push({ id, tool: m[1], args })
        send(chunk({ role: 'assistant', content: null }))
        state.toolCallAt.push(performance.timeOrigin + performance.now())
        send(chunk({ tool_calls: [{ index: 0, id, type: 'function', function: { name: `everything__${m[1]}`, arguments: args } }] }))
        return end(res, send, 'tool_calls')
      }
      send(chunk({ role: 'assistant', content: 'OK.' }))
      end(res, send, 'stop')
    })
  })
  return new Promise((ok) =>
    server.listen(0, '127.0.0.1', () =>
      ok({
        port: server.address().port,
        state,
        close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(r) }),
      }),
    ),
  )
}

/**
 * `parley serve` against the tool model with "everything" configured and
 * connected; `policies` sets tool policies (default: every tool "ask").
 */
export async function startMcpServe({ policies = {}, extraArgs = [], command = process.execPath, args = [everythingBin, 'stdio'] } = {}) {
  if (!existsSync(everythingBin)) throw new Error(`${everythingBin} is missing: run npm ci in tests/mcp`)
  const model = await startToolModel()
  const server = await startTempServe({ extraArgs: ['--base-url', `http://127.0.0.1:${model.port}/v1`, '--model', 'mcp', '--question-timeout', '0', ...extraArgs] })
  const { body: settings } = await server.api('GET', '/api/v1/settings')
  await server.api('PUT', '/api/v1/settings', { ...settings, onboarded: true, rate_limit_seconds: 0 })
  const put = await server.api('PUT', '/api/v1/mcp/servers/everything', { command, args })
  if (put.status !== 200) throw new Error('add the MCP server: ' + JSON.stringify(put.body))
  const connected = await waitUntil(
    async () => {
      const { body } = await server.api('GET', '/api/v1/mcp/servers')
      const s = body?.find((x) => x.name === 'everything')
      return s?.status === 'connected' && s.tools.length > 0 && s
    },
    // npx starts the server: generous, since only a broken run reaches it.
    { timeout: 120000, what: 'the everything server to connect' },
  )
  for (const [tool, policy] of Object.entries(policies)) {
    const res = await server.api('PUT', `/api/v1/mcp/servers/everything/tools/${tool}`, { policy })
    if (res.status !== 200) throw new Error(`policy of ${tool}: ` + JSON.stringify(res.body))
  }
  const stop = async () => {
    await server.stop()
    await model.close()
  }
  return { server, model, tools: connected.tools, stop }
}

/** Creates a conversation and sends `content`; resolves its id. */
export async function send(server, content) {
  const { body: conv } = await server.api('POST', '/api/v1/conversations', { title: 'MCP' })
  const res = await server.api('POST', `/api/v1/conversations/${conv.id}/messages`, { content })
  if (res.status !== 202) throw new Error('send: ' + JSON.stringify(res.body))
  return conv.id
}

/** Waits for the conversation to be idle and returns it. */
export function idle(server, id, what = 'the run to end') {
  return waitUntil(
    async () => {
      const { body } = await server.api('GET', `/api/v1/conversations/${id}`)
      return body.state === 'idle' && body
    },
    { timeout: 30000, what },
  )
}
