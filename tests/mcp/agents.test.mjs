// Parley's MCP server for agents (SPEC §10) against the official TypeScript
// SDK as the client, over streamable HTTP (`parley serve`'s /mcp) and stdio
// (`parley mcp`): tools listed, a question answered, the pending object and
// get_answer after Parley was killed with SIGKILL and started again, a
// permission allowed with edited input and one denied with a reason, a
// notice, and the security refusals. Needs the built binary (build/bin/parley).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { newDataDir, parleyBin, startServe } from '../../frontend/e2e/serve.mjs'

async function connectHTTP(url, tok, name) {
  const client = new Client({ name, version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(url + '/mcp'), {
    requestInit: { headers: { Authorization: `Bearer ${tok}` } },
  })
  await client.connect(transport)
  return client
}

const text = (res) => {
  assert.equal(res.content.length, 1, JSON.stringify(res))
  return res.content[0].text
}

async function pendingCard(server, kind = 'question') {
  for (let i = 0; i < 400; i++) {
    const { body } = await server.api('GET', '/api/v1/questions?status=pending')
    const card = body.find((c) => c.kind === kind)
    if (card) return card
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error('no pending ' + kind + ' card')
}

const respond = async (server, card, body) => {
  const res = await server.api('POST', `/api/v1/conversations/${card.conversationId}/respond`, { question_id: card.question_id, ...body })
  assert.equal(res.status, 200, JSON.stringify(res.body))
}

test('streamable HTTP: tools, answers, restart survival, permissions, notices, refusals', async () => {
  const dir = await newDataDir()
  let server = await startServe(dir)
  try {
    const made = await server.api('POST', '/api/v1/agent-tokens', { name: 'ts-sdk' })
    assert.equal(made.status, 201)
    const agentToken = made.body.token
    let client = await connectHTTP(server.url, agentToken, 'claude-code')

    const { tools } = await client.listTools()
    assert.deepEqual(tools.map((t) => t.name).sort(), ['ask_user_question', 'get_answer', 'notify_user', 'request_permission'])
    for (const t of tools) assert.equal(t.outputSchema, undefined, `${t.name} declares an output schema`)

    // A question answered while the call waits.
    const asked = client.callTool({ name: 'ask_user_question', arguments: {
      questions: [{ question: 'Which database?', options: [{ label: 'SQLite' }, { label: 'Postgres' }] }],
      context: 'Setting up **storage**', wait_seconds: 30 } })
    const card = await pendingCard(server)
    assert.deepEqual(card.source, { type: 'agent', agent: 'claude-code' })
    assert.equal(card.context, 'Setting up **storage**')
    await respond(server, card, { action: 'submit', answers: { 'Which database?': { selected: ['SQLite'] } } })
    assert.equal(text(await asked), '{"answers":{"Which database?":"SQLite"}}')

    // Pending after wait_seconds; the card survives a SIGKILL and a restart.
    const pending = JSON.parse(text(await client.callTool({ name: 'ask_user_question', arguments: {
      questions: [{ question: 'Ship it?', options: ['Yes', 'No'] }], wait_seconds: 1, timeout_seconds: 0 } })))
    assert.equal(pending.status, 'pending')
    assert.match(pending.question_id, /^[0-9a-f-]{36}$/)
    assert.match(pending.message, /get_answer/)
    server.child.kill('SIGKILL')
    await new Promise((r) => server.child.once('exit', r))
    server = await startServe(dir)
    client = await connectHTTP(server.url, agentToken, 'claude-code')
    const still = JSON.parse(text(await client.callTool({ name: 'get_answer', arguments: { question_id: pending.question_id, wait_seconds: 1 } })))
    assert.equal(still.status, 'pending')
    const waiting = client.callTool({ name: 'get_answer', arguments: { question_id: pending.question_id, wait_seconds: 30 } })
    await respond(server, await pendingCard(server), { action: 'submit', answers: { 'Ship it?': { selected: ['No'] } } })
    assert.equal(text(await waiting), '{"answers":{"Ship it?":"No"}}')

    // Permissions: allowed with edited input; denied with a reason.
    const allow = client.callTool({ name: 'request_permission', arguments: { tool_name: 'Bash', input: { command: 'rm -rf build' }, tool_use_id: 'toolu_01', wait_seconds: 30 } })
    let perm = await pendingCard(server, 'approval')
    assert.deepEqual(perm.tool.arguments, { command: 'rm -rf build' })
    await respond(server, perm, { action: 'approve', arguments: { command: 'rm -rf build/tmp' } })
    assert.deepEqual(JSON.parse(text(await allow)), { behavior: 'allow', updatedInput: { command: 'rm -rf build/tmp' } })
    const deny = client.callTool({ name: 'request_permission', arguments: { tool_name: 'Bash', input: { command: 'git push -f' }, wait_seconds: 30 } })
    perm = await pendingCard(server, 'approval')
    await respond(server, perm, { action: 'reject', reason: 'Never force-push' })
    assert.deepEqual(JSON.parse(text(await deny)), { behavior: 'deny', message: 'Never force-push' })

    // A notice returns at once and is a line of the agent's conversation.
    const notified = await client.callTool({ name: 'notify_user', arguments: { message: 'Tests pass', level: 'success' } })
    assert.notEqual(notified.isError, true, text(notified))
    const conv = await server.api('GET', `/api/v1/conversations/${card.conversationId}`)
    assert.equal(conv.body.agent, 'claude-code')
    assert.ok(conv.body.messages.some((m) => m.content === '✅ Tests pass'), JSON.stringify(conv.body.messages))

    // Invalid input is a tool error naming the field.
    const bad = await client.callTool({ name: 'ask_user_question', arguments: { questions: [{ question: 'A?', options: ['only one'] }] } })
    assert.equal(bad.isError, true)
    assert.match(text(bad), /options must have 2-4 items/)
    await client.close()

    // Refusals: no token, a wrong one, another origin, another host, and an
    // agent token outside the agents' paths.
    const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } })
    const post = (headers) => fetch(server.url + '/mcp', { method: 'POST', body: init, headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers } })
    assert.equal((await post({})).status, 401)
    assert.equal((await post({ Authorization: 'Bearer parley_agent_wrong' })).status, 401)
    assert.equal((await post({ Authorization: `Bearer ${agentToken}`, Origin: 'http://evil.example' })).status, 403)
    const other = await fetch(server.url + '/api/v1/conversations', { headers: { Authorization: `Bearer ${agentToken}` } })
    assert.equal(other.status, 403)
    const revoked = await server.api('DELETE', `/api/v1/agent-tokens/${made.body.id}`)
    assert.equal(revoked.status, 204)
    assert.equal((await post({ Authorization: `Bearer ${agentToken}` })).status, 401, 'a revoked token still works')
    assert.ok(!server.log().includes(agentToken), 'the agent token was logged')
  } finally {
    await server.stop()
  }
})

test('stdio through parley mcp: forwards to the running Parley, says so when none runs', async () => {
  const dir = await newDataDir()
  // No Parley yet: each call is a tool error in one sentence.
  let client = new Client({ name: 'codex', version: '1.0.0' })
  await client.connect(new StdioClientTransport({ command: parleyBin, args: ['mcp', '--data-dir', dir], stderr: 'pipe' }))
  assert.equal((await client.listTools()).tools.length, 4)
  const off = await client.callTool({ name: 'notify_user', arguments: { message: 'hello' } })
  assert.equal(off.isError, true)
  assert.equal(text(off), 'Parley is not running: open it and ask again')
  await client.close()

  const server = await startServe(dir)
  try {
    // parley serve --token writes no api-token: parley mcp needs none (it
    // uses the agent token of the listener file).
    client = new Client({ name: 'codex', version: '1.0.0' })
    await client.connect(new StdioClientTransport({ command: parleyBin, args: ['mcp', '--data-dir', dir], stderr: 'pipe' }))
    const asked = client.callTool({ name: 'ask_user_question', arguments: { questions: [{ question: 'Rebase or merge?', options: ['Rebase', 'Merge'] }], wait_seconds: 30 } })
    const card = await pendingCard(server)
    assert.equal(card.source.agent, 'codex')
    await respond(server, card, { action: 'submit', answers: { 'Rebase or merge?': { selected: ['Rebase'] } } })
    assert.equal(text(await asked), '{"answers":{"Rebase or merge?":"Rebase"}}')
    await client.close()
  } finally {
    await server.stop()
  }
})
