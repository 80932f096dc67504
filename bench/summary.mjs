// The summary `make bench` ends with: every figure issue #17 asks for, its
// target beside it, and whether it was reached.
//
// Figures come from two places:
//   - $PARLEY_ARTIFACTS/bench-figures.jsonl, written by the bench scripts
//     (bench/figures.mjs) and the Go desktop benches;
//   - $PARLEY_ARTIFACTS/go-bench.txt, the `go test -bench` output, read
//     through GO_FIGURES below (benchmark name, metric unit, scale).
// A figure asked for but not measured is printed as such, never guessed.
//
//   node bench/summary.mjs [figures.jsonl] [go-bench.txt]
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const dir = process.env.PARLEY_ARTIFACTS || join(process.cwd(), 'test-artifacts')
const figuresPath = process.argv[2] || join(dir, 'bench-figures.jsonl')
const goPath = process.argv[3] || join(dir, 'go-bench.txt')

// Figures read from Go benchmark output. bench: the benchmark's full name
// without the -GOMAXPROCS suffix; unit: the metric's unit as printed.
export const GO_FIGURES = [
  { id: 'go.loop.bare.ratio', label: 'agent loop / bare langchaingo call, same server', bench: 'BenchmarkLoopVsBareLangchaingo/ratio', unit: 'ratio', scale: 1, shown: '×', target: 1.05, cmp: '<=' },
  { id: 'go.cards10k.resolve', label: 'resolve 10,000 pending cards', bench: 'BenchmarkTenThousandPending', unit: 'ns-to-resolve-all', scale: 1e-6, shown: 'ms', target: 100, cmp: '<=' },
  { id: 'go.append.batch10', label: 'append messages in batches of 10', bench: 'BenchmarkAppendMessage/batch-10', unit: 'msgs/s', scale: 1, shown: 'msg/s', target: 10000, cmp: '>=' },
  { id: 'go.append.batch100', label: 'append messages in batches of 100', bench: 'BenchmarkAppendMessage/batch-100', unit: 'msgs/s', scale: 1, shown: 'msg/s', target: 10000, cmp: '>=' },
  { id: 'go.append.single', label: 'append one message per transaction', bench: 'BenchmarkAppendMessage/sequential', unit: 'msgs/s', scale: 1, shown: 'msg/s' },
  { id: 'go.respond.next.p95', label: 'Go: respond -> next model request, p95 (no browser)', bench: 'BenchmarkRespondToNextModelRequest/history-0', unit: 'p95-µs', scale: 1e-3, shown: 'ms', target: 10, cmp: '<=' },
  { id: 'go.respond.next200.p95', label: 'Go: the same after 200 earlier messages, p95', bench: 'BenchmarkRespondToNextModelRequest/history-200', unit: 'p95-µs', scale: 1e-3, shown: 'ms', target: 10, cmp: '<=' },
  // backend/httpapi/open_bench_test.go: what the page's open of bench (e) asks of Go.
  { id: 'go.open5000.cpu', label: 'Go: GET a 5,000-message conversation, CPU (GC included)', bench: 'BenchmarkGetConversation5000Messages/whole', unit: 'cpu-ms/open', scale: 1, shown: 'ms' },
  { id: 'go.open5000.alloc', label: 'Go: the same, allocated', bench: 'BenchmarkGetConversation5000Messages/whole', unit: 'B/op', scale: 1 / 1048576, shown: 'MB' },
  { id: 'go.open5000.window.cpu', label: 'Go: the same, its newest 200 (what the page reads on each open), CPU', bench: 'BenchmarkGetConversation5000Messages/window', unit: 'cpu-ms/open', scale: 1, shown: 'ms' },
  { id: 'go.open5000.window.alloc', label: 'Go: the same, allocated', bench: 'BenchmarkGetConversation5000Messages/window', unit: 'B/op', scale: 1 / 1048576, shown: 'MB' },
  { id: 'go.toolcall.card.p50', label: 'Go: tool call -> card asked, p50', bench: 'BenchmarkToolCallToQuestionAsk', unit: 'p50_µs', scale: 1e-3, shown: 'ms' },
  // Knowledge (SPEC §11, issue #26).
  { id: 'kn.index.keyword', label: 'index 1,000 Markdown files (~20 MB), keyword only', bench: 'BenchmarkIndexMarkdown/keyword', unit: 'MB/s', scale: 1, shown: 'MB/s' },
  { id: 'kn.index.keyword.cpu', label: 'the same, MB a CPU-second', bench: 'BenchmarkIndexMarkdown/keyword', unit: 'MB/cpu-s', scale: 1, shown: 'MB' },
  { id: 'kn.index.embed', label: 'index them with a scripted embedding server (batch 32)', bench: 'BenchmarkIndexMarkdown/embeddings-batch-32', unit: 'passages/s', scale: 1, shown: 'passages/s' },
  { id: 'kn.search.p95', label: 'search 100,000 passages, 768-dim vectors: keyword + vector + fusion, p95', bench: 'BenchmarkSearch100k', unit: 'p95-ms', scale: 1, shown: 'ms', target: 50, cmp: '<=' },
  { id: 'kn.search.p50', label: 'the same, p50', bench: 'BenchmarkSearch100k', unit: 'p50-ms', scale: 1, shown: 'ms' },
  { id: 'kn.search.cpu', label: 'the same, CPU a query (both cores)', bench: 'BenchmarkSearch100k', unit: 'cpu-ms/query', scale: 1, shown: 'ms' },
  { id: 'kn.search.brute.p95', label: 'the same with a brute-force vector scan (baseline), p95', bench: 'BenchmarkSearch100k', unit: 'brute-p95-ms', scale: 1, shown: 'ms' },
  { id: 'kn.search.recall', label: 'vector search recall@10 against the brute-force scan', bench: 'BenchmarkSearch100k', unit: 'recall@10', scale: 1, shown: '' },
  { id: 'kn.index.bytes', label: 'index size per passage (text, FTS5, vectors)', bench: 'BenchmarkSearch100k', unit: 'bytes/passage', scale: 1, shown: 'B' },
  { id: 'kn.index20k.rss', label: 'peak RSS growth while indexing 20,000 files', bench: 'BenchmarkIndex20kFilesPeakRSS', unit: 'peak-growth-MB', scale: 1, shown: 'MB' },
  // Memory (SPEC §14): a run's memory block (backend/memory/bench_test.go).
  { id: 'go.memory.prompt10k', label: 'memory: system-prompt block from 10,000 memories', bench: 'BenchmarkPromptWith10000Memories', unit: 'ns/op', scale: 1e-6, shown: 'ms' },
  { id: 'go.memory.prompt10k.p95', label: 'memory: the same, p95', bench: 'BenchmarkPromptWith10000Memories', unit: 'p95-ms', scale: 1, shown: 'ms', target: 5, cmp: '<=' },
  // backend/service/memory_bench_test.go: send -> first model request, two services in the same run.
  { id: 'go.memory.first.ratio', label: 'memory: send -> first model request, 10,000 memories / none (same run)', bench: 'BenchmarkFirstModelRequestWith10000Memories', unit: 'ratio', scale: 1, shown: '×', target: 1.1, cmp: '<=' },
  { id: 'go.memory.first.plain.ratio', label: 'memory: the same, 10,000 memories / as long a plain system prompt (the bytes\' floor)', bench: 'BenchmarkFirstModelRequestWith10000Memories', unit: 'ratio-to-plain', scale: 1, shown: '×' },
  { id: 'go.memory.first.with.p50', label: 'memory: send -> first model request with 10,000 memories, p50', bench: 'BenchmarkFirstModelRequestWith10000Memories', unit: 'with-10k-p50-µs', scale: 1e-3, shown: 'ms' },
  { id: 'go.memory.first.none.p50', label: 'memory: the same with none, p50', bench: 'BenchmarkFirstModelRequestWith10000Memories', unit: 'none-p50-µs', scale: 1e-3, shown: 'ms' },
  { id: 'go.memory.first.plain.p50', label: 'memory: the same with as long a plain system prompt, p50', bench: 'BenchmarkFirstModelRequestWith10000Memories', unit: 'plain-p50-µs', scale: 1e-3, shown: 'ms' },
  // Issue #25: agents on the machine (backend/httpapi/agents_bench_test.go).
  { id: 'go.agent.ask.ratio', label: 'agent: ask over /mcp -> card event / bare Go SDK tool call', bench: 'BenchmarkAgentAskOverMCP', unit: 'ask-ratio', scale: 1, shown: '×' },
  { id: 'go.agent.answer.ratio', label: "agent: answer -> agent's tool result / bare Go SDK tool call", bench: 'BenchmarkAgentAskOverMCP', unit: 'answer-ratio', scale: 1, shown: '×' },
  { id: 'go.agent.ask.p50', label: 'agent: ask over /mcp -> card event, p50', bench: 'BenchmarkAgentAskOverMCP', unit: 'ask-to-card-p50-µs', scale: 1e-3, shown: 'ms' },
  { id: 'go.agent.answer.p50', label: "agent: answer -> agent's tool result, p50", bench: 'BenchmarkAgentAskOverMCP', unit: 'answer-to-result-p50-µs', scale: 1e-3, shown: 'ms' },
  { id: 'go.agent.bare.p50', label: 'agent: bare Go SDK tool call (same machine), p50', bench: 'BenchmarkAgentAskOverMCP', unit: 'bare-call-p50-µs', scale: 1e-3, shown: 'ms' },
  { id: 'go.agent.cards1k.heap', label: '1,000 agent cards pending: Go heap per card', bench: 'BenchmarkThousandAgentCardsPending', unit: 'heap-B/card', scale: 1 / 1024, shown: 'KB' },
  { id: 'go.agent.cards1k.respond.p50', label: '1,000 agent cards pending: respond, p50', bench: 'BenchmarkThousandAgentCardsPending', unit: 'respond-p50-µs', scale: 1e-3, shown: 'ms' },
  { id: 'go.agent.cards1k.respond.p95', label: '1,000 agent cards pending: respond, p95', bench: 'BenchmarkThousandAgentCardsPending', unit: 'respond-p95-µs', scale: 1e-3, shown: 'ms' },
]

// The question card's figures on each surface (issue #23): the card in the
// DOM and painted, each beside the floor measured on the same machine in the
// same run (a bare page or app adding one element per event), judged only as
// a ratio to it.
const CARD_STAGES = [
  { stage: 'dom', text: 'in the DOM' },
  { stage: 'paint', text: 'painted' },
]
const CARD_SURFACES = {
  chromium: { prefix: '', where: 'Chromium', figure: (text) => `tool-call chunk -> card ${text}, p95 (Chromium)`, floor: (text) => `SSE event -> element ${text}, p95 (bare page)` },
  window: { prefix: 'window.', where: 'Wails window', figure: (text) => `Wails window: chunk -> card ${text}, p95`, floor: (text) => `Wails event -> element ${text}, p95 (bare app)` },
}
// Issue #42: the card beside the best a page could reach here (the bound):
// Parley's own Go path (model chunk -> card event written) with the bare
// page's every round on top (bench/ui-cards.mjs pageBound).
const BOUND_TARGETS = { dom: 1.5, paint: 2 }
const boundLabel = (surface, text) => `card ${text} / bound, p95 (${surface.where})`
const ratioLabel = (surface, text, also = '') => `card ${text} / floor, p95${also} (${surface.where})`

/** The rows printed for a surface: per stage, the figure, its floor and their ratio. */
function cardRows(surface) {
  return CARD_STAGES.flatMap(({ stage, text }) => [
    { id: `${surface.prefix}card.${stage}.p95`, label: surface.figure(text), unit: 'ms' },
    { id: `${surface.prefix}card.${stage}.floor.p95`, label: `    floor: ${surface.floor(text)}`, unit: 'ms' },
    { id: `${surface.prefix}card.${stage}.ratio`, label: `    ${ratioLabel(surface, text)}`, unit: '×', target: 2 },
    { id: `${surface.prefix}card.${stage}.bound.p95`, label: `    bound: Go path + bare page, ${text}, p95`, unit: 'ms' },
    { id: `${surface.prefix}card.${stage}.vsbound`, label: `    ${boundLabel(surface, text)}`, unit: '×', target: BOUND_TARGETS[stage] },
  ])
}

/** The ratios of a surface's card to its bound (issue #42). */
function boundRatios(surface) {
  return CARD_STAGES.map(({ stage, text }) => {
    const base = `${surface.prefix}card.${stage}`
    return { id: `${base}.vsbound`, of: `${base}.p95`, floor: `${base}.bound.p95`, label: boundLabel(surface, text), target: BOUND_TARGETS[stage] }
  })
}

// Issue #42's second bound: the Go path with a bare chat page on top, which
// draws the user's message on Enter before its card comes, as Parley must
// (bench/floor.mjs chatFloorRounds in Chromium; bench/windowfloor with
// FLOOR_MODE=chat in the window, bench/window-trace-table.mjs). Beside the
// first, not instead of it.
const chatBoundLabel = (surface, text) => `card ${text} / second bound, p95 (${surface.where})`
function chatBoundRows(surface) {
  return CARD_STAGES.flatMap(({ stage, text }) => [
    { id: `${surface.prefix}card.${stage}.chatbound.p95`, label: `    second bound: Go path + bare chat page, ${text}, p95`, unit: 'ms' },
    { id: `${surface.prefix}card.${stage}.vschatbound`, label: `    ${chatBoundLabel(surface, text)}`, unit: '×', target: BOUND_TARGETS[stage] },
  ])
}
// What the user waits for from their Enter (bench/trace-table.mjs
// enterFigures): no target, beside the bounds, which start later.
function enterRows(surface) {
  return CARD_STAGES.map(({ stage, text }) => ({ id: `${surface.prefix}card.enter.${stage}.p95`, label: `    Enter -> card ${text}, p95 (${surface.where})`, unit: 'ms' }))
}
function chatBoundRatios(surface) {
  return CARD_STAGES.map(({ stage, text }) => {
    const base = `${surface.prefix}card.${stage}`
    return { id: `${base}.vschatbound`, of: `${base}.p95`, floor: `${base}.chatbound.p95`, label: chatBoundLabel(surface, text), target: BOUND_TARGETS[stage] }
  })
}

// Issue #42: every figure of the page measured while 20,000 files index,
// within 1.5× of the same figure with nothing indexing.
const WHILE_INDEXING = [
  { id: 'card.dom.p95', text: 'card in the DOM, p95' },
  { id: 'card.paint.p95', text: 'card painted, p95' },
  { id: 'submit.next.p95', text: 'Submit -> next model request, p95' },
  { id: 'stream.framegap.max', idle: 'stream500.framegap.max', text: 'streaming, longest frame gap' },
]
const indexingRows = () => WHILE_INDEXING.flatMap(({ id, text }) => [
  { id: `indexing.${id}`, label: `while 20,000 files index: ${text}`, unit: 'ms' },
  { id: `indexing.${id}.vsidle`, label: `    the same / with nothing indexing`, unit: '×', target: 1.5 },
])
const indexingRatios = () => WHILE_INDEXING.map(({ id, idle, text }) => (
  { id: `indexing.${id}.vsidle`, of: `indexing.${id}`, floor: idle ?? id, label: `while 20,000 files index: ${text} / with nothing indexing`, target: 1.5 }))

/** The ratios computed for a surface (suffix: a variant of the figure over the same floor). */
function cardRatios(surface, { suffix = '', also = '' } = {}) {
  return CARD_STAGES.map(({ stage, text }) => {
    const base = `${surface.prefix}card.${stage}`
    return { id: `${base}.ratio${suffix}`, of: `${base}.p95${suffix}`, floor: `${base}.floor.p95`, label: ratioLabel(surface, text, also), target: 2 }
  })
}

// Issue #40's engine figures (bench/engine/bench.mjs records them): speed
// as a ratio to node-llama-cpp in the same run, the next turn's first token
// as a ratio to the first turn's.
const ENGINE = [
  { id: 'engine.gen.tps', label: 'engine (HTTP, streamed): generation tokens/s', unit: 'tokens/s' },
  { id: 'engine.gen.node.tps', label: '    node-llama-cpp 3.21.1, same libraries: generation tokens/s', unit: 'tokens/s' },
  { id: 'engine.gen.ratio', label: '    engine / node-llama-cpp, generation tokens/s', unit: '×', target: 0.95, cmp: '>=' },
  { id: 'engine.gen.runner.ratio', label: '    runner (no HTTP) / node-llama-cpp, generation tokens/s', unit: '×' },
  { id: 'engine.prompt.tps', label: 'engine (HTTP, streamed): prompt tokens/s', unit: 'tokens/s' },
  { id: 'engine.prompt.node.tps', label: '    node-llama-cpp 3.21.1, same libraries: prompt tokens/s', unit: 'tokens/s' },
  { id: 'engine.prompt.ratio', label: '    engine / node-llama-cpp, prompt tokens/s', unit: '×', target: 0.95, cmp: '>=' },
  { id: 'engine.prompt.runner.ratio', label: '    runner (no HTTP) / node-llama-cpp, prompt tokens/s', unit: '×' },
  { id: 'engine.cpu.ratio', label: 'engine / node-llama-cpp, CPU time of the same request', unit: '×' },
  { id: 'engine.cpu.runner.ratio', label: '    runner / node-llama-cpp, CPU time of the same request', unit: '×' },
  { id: 'engine.ttft.first', label: 'engine: first turn over a 2,000-token history -> first token', unit: 'ms' },
  { id: 'engine.ttft.second', label: '    the same conversation\'s next turn -> first token', unit: 'ms' },
  { id: 'engine.ttft.ratio', label: '    next turn / first turn, request -> first token', unit: '×', target: 0.15 },
  { id: 'engine.start.ready', label: 'engine process start -> ready (listening)', unit: 'ms' },
  { id: 'engine.start.first', label: 'engine start -> first token, 500 MB GGUF (model loaded)', unit: 'ms' },
  { id: 'engine.rss', label: 'engine RSS with the 500 MB model loaded, after a reply', unit: 'MB' },
  { id: 'engine.rss.ratio', label: '    engine RSS / GGUF file size', unit: '×' },
  { id: 'engine.idle.cpu', label: 'engine CPU while idle after a reply', unit: '% of a core', target: 1 },
]

// The figures the issue asks for, in the order printed, with their targets
// (the summary's targets win over a recorded one). window.* are the same
// figures in the Wails window (WebKitGTK under Xvfb).
export const EXPECTED = [
  ...cardRows(CARD_SURFACES.chromium),
  ...chatBoundRows(CARD_SURFACES.chromium),
  ...enterRows(CARD_SURFACES.chromium),
  // No target: how far a page costing what the bare one costs would get,
  // given Parley's own Go path (bench/ui-cards.mjs pageBound).
  { id: 'card.dom.bound.ratio', label: '    Go path + bare page / floor, p95 (best a page can reach)', unit: '×' },
  { id: 'submit.next.p95', label: 'Submit click -> next model request, p95 (Chromium)', unit: 'ms', target: 10 },
  { id: 'submit.bound.p95', label: '    bound: Go respond -> next request + bare page POST, p95', unit: 'ms' },
  { id: 'submit.next.vsbound', label: '    Submit -> next request / bound, p95 (Chromium)', unit: '×', target: 2 },
  { id: 'open5000.first', label: 'first open of 5,000 messages, click -> painted', unit: 'ms', target: 200 },
  { id: 'open5000.longtask.max', label: 'first open of 5,000 messages: longest task', unit: 'ms', target: 50 },
  { id: 'stream500.longtask.max', label: '500 tokens/s for 30 s: longest task', unit: 'ms', target: 50 },
  { id: 'stream500.longtasks', label: '500 tokens/s for 30 s: long tasks (> 50 ms)', unit: '', target: 0 },
  { id: 'stream500.framegap.max', label: '500 tokens/s for 30 s: longest frame gap', unit: 'ms', target: 50 },
  { id: 'think500.longtask.max', label: 'thinking 60 s then answering, 500 tokens/s: longest task', unit: 'ms', target: 50 },
  { id: 'think500.longtasks', label: 'thinking 60 s then answering, 500 tokens/s: long tasks (> 50 ms)', unit: '', target: 0 },
  { id: 'think500.framegap.max', label: 'thinking 60 s then answering, 500 tokens/s: longest frame gap', unit: 'ms', target: 50 },
  { id: 'think500.heap.growth', label: 'thinking 60 s at 500 tokens/s: JS heap growth after GC', unit: 'MB', target: 2 },
  { id: 'go.loop.bare.ratio', label: 'agent loop / bare langchaingo call, same server', unit: '×', target: 1.05 },
  { id: 'go.cards10k.resolve', label: 'resolve 10,000 pending cards', unit: 'ms', target: 100 },
  { id: 'go.append.batch10', label: 'append messages in batches of 10', unit: 'msg/s', target: 10000, cmp: '>=' },
  { id: 'go.append.batch100', label: 'append messages in batches of 100', unit: 'msg/s', target: 10000, cmp: '>=' },
  { id: 'go.append.single', label: 'append one message per transaction', unit: 'msg/s' },
  { id: 'go.respond.next.p95', label: 'Go: respond -> next model request, p95 (no browser)', unit: 'ms', target: 10 },
  { id: 'go.respond.next200.p95', label: 'Go: the same after 200 earlier messages, p95', unit: 'ms', target: 10 },
  { id: 'kn.index.keyword', label: 'index 1,000 Markdown files (~20 MB), keyword only', unit: 'MB/s' },
  { id: 'kn.index.keyword.cpu', label: 'the same, MB a CPU-second', unit: 'MB' },
  { id: 'kn.index.embed', label: 'index them with a scripted embedding server (batch 32)', unit: 'passages/s' },
  { id: 'kn.search.p95', label: 'search 100,000 passages, 768-dim vectors: keyword + vector + fusion, p95', unit: 'ms', target: 50 },
  { id: 'kn.search.p50', label: 'the same, p50', unit: 'ms' },
  { id: 'kn.search.cpu', label: 'the same, CPU a query (both cores)', unit: 'ms' },
  { id: 'kn.search.brute.p95', label: 'the same with a brute-force vector scan (baseline), p95', unit: 'ms' },
  { id: 'kn.search.recall', label: 'vector search recall@10 against the brute-force scan', unit: '' },
  { id: 'kn.index.bytes', label: 'index size per passage (text, FTS5, vectors)', unit: 'B' },
  { id: 'kn.index20k.rss', label: 'peak RSS growth while indexing 20,000 files', unit: 'MB' },
  ...indexingRows(),
  { id: 'indexing.stream.longtask.max', label: 'while 20,000 files index: streaming, longest task', unit: 'ms', target: 50 },
  ...cardRows(CARD_SURFACES.window),
  ...chatBoundRows(CARD_SURFACES.window),
  ...enterRows(CARD_SURFACES.window),
  { id: 'window.submit.next.p95', label: 'Wails window: Submit -> next model request, p95', unit: 'ms', target: 10 },
  { id: 'window.submit.bound.p95', label: '    bound: Go respond -> next request + bare window call, p95', unit: 'ms' },
  { id: 'window.submit.next.vsbound', label: '    Submit -> next request / bound, p95 (Wails window)', unit: '×', target: 2 },
  { id: 'soak.startup.rss', label: 'desktop window at start: RSS, all processes', unit: 'MB' },
  { id: 'soak.startup.pss', label: 'desktop window at start: PSS, all processes', unit: 'MB' },
  { id: 'soak.end.rss', label: 'desktop window after the soak: RSS', unit: 'MB' },
  { id: 'soak.end.pss', label: 'desktop window after the soak: PSS', unit: 'MB' },
  { id: 'soak.growth.rss', label: 'soak: RSS growth after warm-up', unit: '%', target: 10 },
  { id: 'soak.growth.pss', label: 'soak: PSS growth after warm-up', unit: '%', target: 10 },
  { id: 'startup.rss.ratio', label: 'startup RSS: Parley / Wails template window', unit: '×' },
  { id: 'startup.pss.ratio', label: 'startup PSS: Parley / Wails template window', unit: '×' },
  // Issue #25 asks for these figures without targets.
  { id: 'go.agent.ask.ratio', label: 'agent: ask over /mcp -> card event / bare Go SDK tool call', unit: '×' },
  { id: 'go.agent.answer.ratio', label: "agent: answer -> agent's tool result / bare Go SDK tool call", unit: '×' },
  { id: 'go.agent.ask.p50', label: 'agent: ask over /mcp -> card event, p50', unit: 'ms' },
  { id: 'go.agent.answer.p50', label: "agent: answer -> agent's tool result, p50", unit: 'ms' },
  { id: 'go.agent.bare.p50', label: 'agent: bare Go SDK tool call (same machine), p50', unit: 'ms' },
  { id: 'go.agent.cards1k.heap', label: '1,000 agent cards pending: Go heap per card', unit: 'KB' },
  { id: 'go.agent.cards1k.respond.p50', label: '1,000 agent cards pending: respond, p50', unit: 'ms' },
  { id: 'go.agent.cards1k.respond.p95', label: '1,000 agent cards pending: respond, p95', unit: 'ms' },
  // Issue #40: the built-in engine (bench/engine.sh) on a generated 500 MB
  // GGUF, against node-llama-cpp 3.21.1 on the same llama.cpp libraries.
  ...ENGINE,
]

// Figures judged against a floor measured on the same machine in the same
// run (bench/floor.mjs: a bare page appending one element per SSE event; in
// the Wails window bench/windowfloor: a bare Wails app appending one element
// per event emitted from Go): the ratio is comparable across machines, the
// milliseconds are not. A ratio is printed only when both figures were
// measured.
export const RATIOS = [
  ...cardRatios(CARD_SURFACES.chromium),
  ...cardRatios(CARD_SURFACES.chromium, { suffix: '.thinking', also: ', model thinking' }),
  ...cardRatios(CARD_SURFACES.window),
  ...boundRatios(CARD_SURFACES.chromium),
  ...boundRatios(CARD_SURFACES.window),
  ...chatBoundRatios(CARD_SURFACES.chromium),
  ...chatBoundRatios(CARD_SURFACES.window),
  { id: 'submit.next.vsbound', of: 'submit.next.p95', floor: 'submit.bound.p95', label: 'Submit -> next request / bound, p95 (Chromium)', target: 2 },
  { id: 'window.submit.next.vsbound', of: 'window.submit.next.p95', floor: 'window.submit.bound.p95', label: 'Submit -> next request / bound, p95 (Wails window)', target: 2 },
  ...indexingRatios(),
]

// ratioFigures returns the ratio figures that figs (id -> figure) allows:
// Parley's figure over its floor, with the ratio target.
export function ratioFigures(figs) {
  const out = []
  for (const r of RATIOS) {
    const of = figs.get(r.of)?.value
    const floor = figs.get(r.floor)?.value
    if (typeof of !== 'number' || typeof floor !== 'number' || !(floor > 0)) continue
    out.push({ id: r.id, label: r.label, value: of / floor, unit: '×', target: r.target, cmp: '<=',
      note: `${fmt(of, 'ms')} / ${fmt(floor, 'ms')}` })
  }
  return out
}

export function parseGoBench(text) {
  const out = new Map() // name -> Map(unit -> value)
  for (const line of text.split('\n')) {
    const m = /^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+(.*)$/.exec(line.trim())
    if (!m) continue
    const metrics = out.get(m[1]) ?? new Map()
    const fields = m[2].trim().split(/\s+/)
    for (let i = 0; i + 1 < fields.length; i += 2) {
      const v = Number(fields[i])
      if (!Number.isNaN(v)) metrics.set(fields[i + 1], v)
    }
    out.set(m[1], metrics)
  }
  return out
}

export function goFigures(text) {
  const parsed = parseGoBench(text)
  const figs = []
  for (const g of GO_FIGURES) {
    const name = [...parsed.keys()].find((k) => k === g.bench && parsed.get(k).has(g.unit))
    if (!name) continue
    const f = { id: g.id, label: g.label, value: parsed.get(name).get(g.unit) * g.scale, unit: g.shown, note: name }
    if (g.target !== undefined) Object.assign(f, { target: g.target, cmp: g.cmp })
    figs.push(f)
  }
  return figs
}

export function readFigures(jsonl) {
  const byId = new Map()
  for (const line of jsonl.split('\n')) {
    if (!line.trim()) continue
    try {
      const f = JSON.parse(line)
      byId.set(f.id, f) // the last one recorded wins
    } catch {
      // a torn line from a killed script: skip it
    }
  }
  return byId
}

const fmt = (v, unit) => {
  if (v === null || v === undefined || Number.isNaN(v)) return '-'
  // Ratios to three places: 1.053 printed as 1.05 would read as meeting 1.05.
  if (unit === '×' && Math.abs(v) < 10) return `${v.toFixed(3)}×`
  const n = Number.isInteger(v) && Math.abs(v) < 1000 ? String(v) : Math.abs(v) >= 1000 ? Math.round(v).toLocaleString('en') : Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2)
  return unit === '×' ? `${n}×` : `${n} ${unit}`.trim()
}

export function verdict(f) {
  if (f.value === null || f.value === undefined) return 'not measured'
  if (f.target === undefined) return ''
  const ok = f.cmp === '>=' ? f.value >= f.target : f.value <= f.target
  return ok ? 'met' : 'MISSED'
}

export function summarize(figs) {
  const lines = ['', 'Parley bench summary (issue #17, #40 and #42 targets; issue #25 figures)', '']
  const head = `${'figure'.padEnd(62)} ${'measured'.padStart(14)} ${'target'.padStart(14)}  result`
  lines.push(head, '-'.repeat(head.length))
  const row = (f) => {
    const target = f.target === undefined || f.target === null ? '' : `${f.cmp ?? '<='} ${fmt(f.target, f.unit)}`
    const label = f.label.length > 62 ? f.label.slice(0, 61) + '…' : f.label
    return `${label.padEnd(62)} ${fmt(f.value, f.unit).padStart(14)} ${target.padStart(14)}  ${verdict(f)}${f.note ? `  (${f.note})` : ''}`
  }
  for (const e of EXPECTED) {
    const f = figs.get(e.id)
    const merged = { ...e, cmp: e.cmp ?? (e.target === undefined ? undefined : '<='), value: f?.value, note: f?.note, unit: f?.unit || e.unit }
    if (e.target === undefined) delete merged.target
    lines.push(row(merged))
  }
  const known = new Set(EXPECTED.map((e) => e.id))
  const others = [...figs.values()].filter((f) => !known.has(f.id))
  if (others.length) {
    lines.push('', 'Other figures')
    for (const f of others) lines.push(row(f))
  }
  const judged = EXPECTED.map((e) => ({ ...e, cmp: e.cmp ?? '<=', value: figs.get(e.id)?.value }))
  const missed = judged.filter((f) => verdict(f) === 'MISSED').length + others.filter((f) => verdict(f) === 'MISSED').length
  const absent = EXPECTED.filter((e) => figs.get(e.id)?.value === undefined || figs.get(e.id)?.value === null).length
  lines.push('', `${missed} missed, ${absent} not measured (see each script's output above for the detail and the card trace)`, '')
  return lines.join('\n')
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const figs = existsSync(figuresPath) ? readFigures(readFileSync(figuresPath, 'utf8')) : new Map()
  if (existsSync(goPath)) for (const f of goFigures(readFileSync(goPath, 'utf8'))) if (!figs.has(f.id)) figs.set(f.id, f)
  for (const f of ratioFigures(figs)) figs.set(f.id, f)
  console.log(summarize(figs))
}
