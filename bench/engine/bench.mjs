// The built-in engine's bench (issue #40), run by bench/engine.sh: figures
// and ratios measured in the same run, never timed assertions.
//
//   1. Speed against the same llama.cpp libraries driven directly: a
//      generated GGUF of ENGINE_BENCH_MB (default 500) MB, Q8_0 blocks, so
//      arithmetic dominates (backend/engine/ggufgen Spec.Size). Prompt
//      tokens/s (prompt tokens / request -> first token) and generation
//      tokens/s (tokens after the first / first -> last token) of
//        - Parley's engine process (cmd/parley-engine, what the app starts)
//          over its OpenAI-compatible HTTP API, streamed;
//        - backend/engine/runner called directly (gobench runner);
//        - node-llama-cpp 3.21.1 (node-llama.mjs), the baseline,
//      each its own process with the model loaded once (one warm-up token
//      first), with the same threads, context and batch; they take turns
//      (the order rotates each round) and each round's ratio to
//      node-llama-cpp is taken, then their median, as the cores are shared.
//   2. Second turn over a 2,000-token history: request -> first token of
//      the next turn of the same conversation / of its first turn, through
//      the engine's chat API (the evaluated prefix is reused).
//   3. The engine with that GGUF: process start -> ready line, start ->
//      first token (the model loads on the first request; the file is in
//      the page cache, written just before), resident memory after a reply
//      (VmRSS, and its file-backed part: llama.cpp maps the GGUF, so the
//      weights it touched count as RssFile) against the file's size, and
//      the process's CPU over ENGINE_BENCH_IDLE_S (10) idle seconds after a
//      reply (utime + stime ticks in /proc/<pid>/stat).
//
//   node bench/engine/bench.mjs   (env: PARLEY_ENGINE_DIR, ENGINE_BENCH_BIN: the folder
//                                  holding gobench and parley-engine, built by bench/engine.sh)
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

import { recordFigure } from '../figures.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const env = process.env
const libDir = env.PARLEY_ENGINE_DIR
const bin = env.ENGINE_BENCH_BIN
if (!libDir || !bin) throw new Error('PARLEY_ENGINE_DIR and ENGINE_BENCH_BIN are needed (bench/engine.sh sets them)')
const MB = Number(env.ENGINE_BENCH_MB || 500)
const ROUNDS = Number(env.ENGINE_BENCH_ROUNDS || 5)
const THREADS = Number(env.ENGINE_BENCH_THREADS || availableParallelism())
const TOKENS = Number(env.ENGINE_BENCH_TOKENS || 128)
const PROMPT_BYTES = Number(env.ENGINE_BENCH_PROMPT || 480)
const HISTORY = Number(env.ENGINE_BENCH_HISTORY || 2000)
const IDLE_S = Number(env.ENGINE_BENCH_IDLE_S || 10)
const CONTEXT = 4096

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}
const log = (...a) => console.log('engine bench:', ...a)

/** Runs a command to its end; its standard output parsed as JSON. */
function runJSON(cmd, args, opts = {}) {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts })
    let out = ''
    let err = ''
    p.stdout.on('data', (d) => { out += d })
    p.stderr.on('data', (d) => { err += d })
    p.on('error', reject)
    p.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${cmd} ${args.join(' ')} exited with ${code}: ${err.slice(-2000)}`))
      try {
        resolve(JSON.parse(out.trim().split('\n').at(-1)))
      } catch (e) {
        reject(new Error(`${cmd}: no JSON in ${JSON.stringify(out.slice(-500))} (${e.message})`))
      }
    })
  })
}

// One user message of about PROMPT_BYTES bytes (one token a byte: the
// generated vocabulary has no merges); its ChatML rendering is the raw
// prompt the runner and node-llama-cpp get, so all three read the same
// tokens (checked below against the engine's prompt_tokens).
const sentence = 'The quick brown fox jumps over the lazy dog, and the dog sleeps on. '
const text = (bytes, seed = '') => (seed + sentence.repeat(Math.ceil(bytes / sentence.length))).slice(0, bytes)
const raw = (content) => `<|im_start|>user\n${content}<|im_end|>\n<|im_start|>assistant\n`

/** Ends a child by closing its standard input (as Parley ends the engine); killed if it lingers. */
async function stopChild(p) {
  p.stdin.end()
  if (p.exitCode !== null || p.signalCode !== null) return
  const timer = setTimeout(() => { log(`pid ${p.pid} still running 10 s after its input closed: killed`); p.kill('SIGKILL') }, 10_000)
  await new Promise((resolve) => p.once('exit', resolve))
  clearTimeout(timer)
}

/** The engine process: started, its ready line read. */
async function startEngine(modelsFile) {
  const t0 = performance.now()
  const p = spawn(join(bin, 'parley-engine'), ['--lib-dir', libDir, '--models-file', modelsFile, '--threads', String(THREADS),
    '--context', String(CONTEXT)], { stdio: ['pipe', 'pipe', 'pipe'] })
  let stderr = ''
  p.stderr.on('data', (d) => { stderr += d })
  const secret = randomBytes(16).toString('hex')
  p.stdin.write(secret + '\n')
  const line = await new Promise((resolve, reject) => {
    const rl = createInterface({ input: p.stdout })
    rl.once('line', resolve)
    p.once('exit', (code) => reject(new Error(`the engine exited with ${code} before it was ready: ${stderr.slice(-2000)}`)))
  })
  const ready = JSON.parse(line)
  return {
    pid: ready.pid, readyMS: performance.now() - t0, t0, url: `http://${ready.addr}`, secret,
    stderr: () => stderr,
    stop: () => stopChild(p),
  }
}

/** One streamed chat request: request -> first text, first -> last, usage. */
async function chat(engine, messages, maxTokens) {
  const start = performance.now()
  const res = await fetch(`${engine.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${engine.secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'bench', messages, stream: true, max_tokens: maxTokens, temperature: 0,
      stream_options: { include_usage: true } }),
  })
  if (!res.ok) throw new Error(`the engine answered ${res.status}: ${await res.text()}`)
  let first = 0
  let last = 0
  let usage
  let answer = ''
  let buf = ''
  const decoder = new TextDecoder()
  for await (const chunk of res.body) {
    buf += decoder.decode(chunk, { stream: true })
    let i
    while ((i = buf.indexOf('\n\n')) >= 0) {
      const event = buf.slice(0, i)
      buf = buf.slice(i + 2)
      if (!event.startsWith('data: ') || event === 'data: [DONE]') continue
      const data = JSON.parse(event.slice(6))
      if (data.error) throw new Error(`the engine failed: ${data.error.message}`)
      if (data.usage) usage = data.usage
      const content = data.choices?.[0]?.delta?.content
      if (content) {
        last = performance.now()
        if (!first) first = last
        answer += content
      }
    }
  }
  return { first_ms: first - start, gen_ms: last - first, prompt_tokens: usage?.prompt_tokens, tokens: usage?.completion_tokens,
    cached_tokens: usage?.prompt_tokens_details?.cached_tokens, answer, doneAt: performance.now() }
}

/** A child process answering a JSON line per JSON line (gobench runner, node-llama.mjs). */
function lineServer(cmd, args, opts = {}) {
  const p = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'], ...opts })
  let stderr = ''
  p.stderr.on('data', (d) => { stderr += d })
  const lines = createInterface({ input: p.stdout })[Symbol.asyncIterator]()
  return {
    pid: p.pid,
    async ask(req) {
      p.stdin.write(JSON.stringify(req) + '\n')
      const { value, done } = await lines.next()
      if (done) throw new Error(`${cmd} ended: ${stderr.slice(-2000)}`)
      return JSON.parse(value)
    },
    stop: () => stopChild(p),
  }
}

// The three ways to run the same generation, each its own process with the
// model loaded once: ask(content) answers one greedy generation of TOKENS
// tokens after a user message (ChatML-rendered for the two that take a raw
// prompt, as the engine renders it).
async function contenders(model) {
  const engine = await startEngine(model.modelsFile)
  const runner = lineServer(join(bin, 'gobench'), ['runner', '-lib-dir', libDir, '-model', model.path,
    '-threads', String(THREADS), '-context', String(CONTEXT)])
  const node = lineServer(process.execPath, [join(here, 'node-llama.mjs'), model.path, String(THREADS), String(CONTEXT)],
    { env: { ...env, NODE_LLAMA_CPP_SKIP_DOWNLOAD: 'true' } })
  return {
    engine: { pid: engine.pid, ask: (content, n) => chat(engine, [{ role: 'user', content }], n), stop: () => engine.stop() },
    runner: { pid: runner.pid, ask: (content, n) => runner.ask({ prompt: raw(content), n }), stop: () => runner.stop() },
    node: { pid: node.pid, ask: (content, n) => node.ask({ prompt: raw(content), n }), stop: () => node.stop() },
  }
}

const promptTPS = (r) => r.prompt_tokens / r.first_ms * 1000
const genTPS = (r) => (r.tokens - 1) / r.gen_ms * 1000

async function speed(model) {
  const all = await contenders(model)
  const order = Object.keys(all)
  const got = Object.fromEntries(order.map((k) => [k, []]))
  try {
    for (const name of order) await all[name].ask('hi', 1) // loads and warms each
    for (let round = 0; round < ROUNDS; round++) {
      // A prompt that differs from the one before after a few tokens (the
      // same few are reused by all three).
      const content = text(PROMPT_BYTES, `${round}: `)
      for (let k = 0; k < order.length; k++) {
        const name = order[(round + k) % order.length]
        const before = ticks(all[name].pid)
        const r = await all[name].ask(content, TOKENS)
        r.cpu_ms = (ticks(all[name].pid) - before) * 1000 / CLK_TCK
        if (r.tokens !== TOKENS) throw new Error(`${name} generated ${r.tokens} tokens, not ${TOKENS}`)
        got[name].push(r)
        log(`round ${round + 1}/${ROUNDS} ${name.padEnd(6)} prompt ${r.prompt_tokens} tokens (${r.cached_tokens} reused):`,
          `${promptTPS(r).toFixed(1)} tokens/s; generation ${genTPS(r).toFixed(2)} tokens/s; CPU ${r.cpu_ms.toFixed(0)} ms`)
      }
    }
  } finally {
    for (const c of Object.values(all)) await c.stop()
  }
  const seen = new Set(Object.values(got).flat().map((r) => `${r.prompt_tokens}/${r.cached_tokens}`))
  if (seen.size > ROUNDS) throw new Error(`the three read different prompts: ${[...seen]} tokens/reused`)
  // Each round's ratio (the three ran one after the other, under about the
  // same load), then their median.
  const ratio = (name, f) => median(got[name].map((r, i) => f(r) / f(got.node[i])))
  const med = (name, f) => median(got[name].map(f))
  const note = `medians of ${ROUNDS} rounds, ${MB} MB Q8_0 GGUF, ${THREADS} threads, ${got.node[0].prompt_tokens}-token prompt, ${TOKENS} tokens`
  const fig = (id, label, value, unit, more = {}) => recordFigure({ id, label, value, unit, note, ...more })
  fig('engine.gen.tps', 'engine (HTTP, streamed): generation tokens/s', med('engine', genTPS), 'tokens/s')
  fig('engine.gen.node.tps', '    node-llama-cpp 3.21.1, same libraries: generation tokens/s', med('node', genTPS), 'tokens/s')
  fig('engine.gen.ratio', '    engine / node-llama-cpp, generation tokens/s', ratio('engine', genTPS), '×', { target: 0.95, cmp: '>=' })
  fig('engine.gen.runner.ratio', '    runner (no HTTP) / node-llama-cpp, generation tokens/s', ratio('runner', genTPS), '×')
  fig('engine.prompt.tps', 'engine (HTTP, streamed): prompt tokens/s', med('engine', promptTPS), 'tokens/s')
  fig('engine.prompt.node.tps', '    node-llama-cpp 3.21.1, same libraries: prompt tokens/s', med('node', promptTPS), 'tokens/s')
  fig('engine.prompt.ratio', '    engine / node-llama-cpp, prompt tokens/s', ratio('engine', promptTPS), '×', { target: 0.95, cmp: '>=' })
  fig('engine.prompt.runner.ratio', '    runner (no HTTP) / node-llama-cpp, prompt tokens/s', ratio('runner', promptTPS), '×')
  // The CPU time each process spent on the same request: the work done,
  // which the other processes on a shared machine do not change much (the
  // wall-clock ratios above they do).
  const cpu = (r) => 1 / r.cpu_ms
  fig('engine.cpu.ratio', 'engine / node-llama-cpp, CPU time of the same request', 1 / ratio('engine', cpu), '×')
  fig('engine.cpu.runner.ratio', '    runner / node-llama-cpp, CPU time of the same request', 1 / ratio('runner', cpu), '×')
}

// A conversation of about HISTORY tokens (one a byte; each message adds 8
// for the template's marks: <|im_start|>, the role, a line break,
// <|im_end|>, a line break): a system prompt, turns, the next question.
function history(round) {
  const question = { role: 'user', content: 'Now, what do you make of it all?' }
  const messages = [{ role: 'system', content: `Conversation ${round}. You answer briefly.` }]
  const tokens = (m) => m.content.length + m.role.length + 4
  let size = tokens(messages[0]) + tokens(question) + 3 // + the generation prompt
  for (let i = 0; size < HISTORY; i++) {
    const role = i % 2 ? 'assistant' : 'user'
    const content = text(Math.max(1, Math.min(180, HISTORY - size - role.length - 4)), `${i}: `)
    messages.push({ role, content })
    size += tokens(messages.at(-1))
  }
  if (messages.at(-1).role === 'user') messages.push({ role: 'assistant', content: 'Noted.' })
  messages.push(question)
  return messages
}

async function secondTurn(model) {
  const engine = await startEngine(model.modelsFile)
  const ratios = []
  const firsts = []
  const seconds = []
  let tokens = 0
  try {
    await chat(engine, [{ role: 'system', content: 'hi' }], 1) // loads the model
    for (let round = 0; round < ROUNDS; round++) {
      const messages = history(round)
      const first = await chat(engine, messages, 16)
      const next = [...messages, { role: 'assistant', content: first.answer }, { role: 'user', content: 'And then? Tell me more.' }]
      const second = await chat(engine, next, 16)
      if (!(second.cached_tokens >= first.prompt_tokens - 1)) {
        throw new Error(`the second turn reused ${second.cached_tokens} of the first's ${first.prompt_tokens} prompt tokens`)
      }
      tokens = first.prompt_tokens
      firsts.push(first.first_ms)
      seconds.push(second.first_ms)
      ratios.push(second.first_ms / first.first_ms)
      log(`round ${round + 1}/${ROUNDS} first turn (${first.prompt_tokens} tokens, ${first.cached_tokens} reused): ${first.first_ms.toFixed(0)} ms;`,
        `second (${second.prompt_tokens} tokens, ${second.cached_tokens} reused): ${second.first_ms.toFixed(0)} ms`)
    }
  } finally {
    await engine.stop()
  }
  const note = `medians of ${ROUNDS}, ${tokens}-token history, ${MB} MB GGUF`
  recordFigure({ id: 'engine.ttft.first', label: `engine: first turn over a ${HISTORY}-token history, request -> first token`, value: median(firsts), unit: 'ms', note })
  recordFigure({ id: 'engine.ttft.second', label: '    the next turn of the same conversation, request -> first token', value: median(seconds), unit: 'ms', note })
  recordFigure({ id: 'engine.ttft.ratio', label: '    next turn / first turn, request -> first token', value: median(ratios), unit: '×', target: 0.15, cmp: '<=', note })
}

const CLK_TCK = 100 // USER_HZ on Linux (getconf CLK_TCK)
const ticks = (pid) => {
  // Fields after the command's closing parenthesis: utime and stime are
  // the 14th and 15th of the line.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return Number(f[11]) + Number(f[12])
}
const status = (pid) => Object.fromEntries(readFileSync(`/proc/${pid}/status`, 'utf8').split('\n')
  .map((l) => /^(\w+):\s+(\d+) kB/.exec(l)).filter(Boolean).map((m) => [m[1], Number(m[2]) / 1024]))

async function startAndIdle(model) {
  const readies = []
  const firsts = []
  let last
  for (let round = 0; round < Math.max(3, Math.min(ROUNDS, 5)); round++) {
    const engine = await startEngine(model.modelsFile)
    const r = await chat(engine, [{ role: 'user', content: 'hi' }], 1)
    readies.push(engine.readyMS)
    firsts.push(r.doneAt - engine.t0)
    log(`start ${round + 1}: ready line ${engine.readyMS.toFixed(0)} ms, first token ${(r.doneAt - engine.t0).toFixed(0)} ms after the start`)
    if (last) await last.stop()
    last = engine
  }
  const engine = last
  try {
    await chat(engine, [{ role: 'user', content: text(PROMPT_BYTES) }], 32)
    const mem = status(engine.pid)
    const clk = CLK_TCK
    const t0 = ticks(engine.pid)
    const w0 = performance.now()
    await new Promise((resolve) => setTimeout(resolve, IDLE_S * 1000))
    const cpu = (ticks(engine.pid) - t0) / clk / ((performance.now() - w0) / 1000) * 100
    const note = `${(model.bytes / 2 ** 20).toFixed(0)} MB GGUF, page cache warm`
    recordFigure({ id: 'engine.start.ready', label: 'engine process start -> ready (listening)', value: median(readies), unit: 'ms', note: `median, ${note}` })
    recordFigure({ id: 'engine.start.first', label: `engine process start -> first token, ${MB} MB GGUF (model loaded)`, value: median(firsts), unit: 'ms', note: `median, ${note}` })
    recordFigure({ id: 'engine.rss', label: 'engine RSS with the model loaded, after a reply (VmRSS)', value: mem.VmRSS, unit: 'MB', note: `RssFile ${mem.RssFile.toFixed(0)} MB (the mapped GGUF), RssAnon ${mem.RssAnon.toFixed(0)} MB` })
    recordFigure({ id: 'engine.rss.ratio', label: '    engine RSS / GGUF file size', value: mem.VmRSS * 2 ** 20 / model.bytes, unit: '×', note: `file ${(model.bytes / 2 ** 20).toFixed(0)} MB` })
    recordFigure({ id: 'engine.idle.cpu', label: `engine CPU while idle after a reply (${IDLE_S} s)`, value: cpu, unit: '% of a core', target: 1, cmp: '<=', note: '/proc/<pid>/stat utime+stime' })
    log(`RSS ${mem.VmRSS.toFixed(0)} MB (file-backed ${mem.RssFile.toFixed(0)}, anonymous ${mem.RssAnon.toFixed(0)}) for a ${(model.bytes / 2 ** 20).toFixed(0)} MB file; idle CPU ${cpu.toFixed(2)}% of a core`)
  } finally {
    await engine.stop()
  }
}

const dir = mkdtempSync(join(env.ENGINE_BENCH_TMP || tmpdir(), 'parley-engine-bench-'))
try {
  const path = join(dir, 'bench.gguf')
  const shape = await runJSON(join(bin, 'gobench'), ['gguf', '-out', path, '-size', String(MB * 2 ** 20)])
  log(`generated ${path}: ${(shape.bytes / 2 ** 20).toFixed(0)} MB, ${shape.layers} blocks of ${shape.embd} (feed-forward ${shape.ff}), Q8_0, in ${shape.seconds.toFixed(1)} s`)
  const modelsFile = join(dir, 'models.json')
  writeFileSync(modelsFile, JSON.stringify([{ id: 'bench', path }]))
  const model = { path, bytes: statSync(path).size, modelsFile }
  const steps = (env.ENGINE_BENCH_STEPS || 'speed turn start').split(/\s+/)
  if (steps.includes('speed')) await speed(model)
  if (steps.includes('turn')) await secondTurn(model)
  if (steps.includes('start')) await startAndIdle(model)
} finally {
  rmSync(dir, { recursive: true, force: true })
}
