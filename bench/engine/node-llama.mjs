// The baseline of the engine's bench (issue #40): the same llama.cpp
// libraries driven directly, through node-llama-cpp 3.21.1 (whose
// @node-llama-cpp/linux-x64 prebuilt binaries are the ones Parley ships),
// on the same GGUF, with the same threads, context and batch size, and
// llama.cpp's flash-attention default (auto), as Parley's runner opens it.
//
//   node node-llama.mjs MODEL THREADS CONTEXT
//
// Then, as `gobench runner`: for each line {"prompt", "n"} on standard
// input, one greedy generation of n tokens, reusing the prefix the prompt
// shares with the sequence's tokens (what Parley's runner and LlamaChat
// do); answers a line {prompt_tokens, cached_tokens, first_ms (request ->
// first token), tokens, gen_ms (first -> last token)}.
//
// Nothing is downloaded or built: getLlama uses the prebuilt binaries only
// (build: 'never', skipDownload) and no GPU.
import { createInterface } from 'node:readline'
import { getLlama, LlamaLogLevel } from 'node-llama-cpp'

const [modelPath, threadsArg, contextArg] = process.argv.slice(2)
const threads = Number(threadsArg)
const llama = await getLlama({ gpu: false, build: 'never', skipDownload: true, usePrebuiltBinaries: true,
  progressLogs: false, logLevel: LlamaLogLevel.error, maxThreads: threads })
const model = await llama.loadModel({ modelPath, gpuLayers: 0 })
const context = await model.createContext({ contextSize: Number(contextArg), batchSize: 512, sequences: 1,
  threads, flashAttention: 'auto' })
const sequence = context.getSequence()

async function generate(prompt, n) {
  const start = performance.now()
  const tokens = model.tokenize(prompt, true)
  // Keep the common prefix; at least the last token is evaluated again.
  const keep = Math.min(sequence.compareContextTokens(tokens).firstDifferentIndex, tokens.length - 1)
  if (keep < sequence.nextTokenIndex) await sequence.eraseContextTokenRanges([{ start: keep, end: sequence.nextTokenIndex }])
  let first = 0
  let last = 0
  let count = 0
  for await (const _token of sequence.evaluate(tokens.slice(keep), { temperature: 0 })) {
    last = performance.now()
    if (!first) first = last
    if (++count >= n) break
  }
  return { prompt_tokens: tokens.length, cached_tokens: keep, first_ms: first - start, tokens: count, gen_ms: last - first }
}

for await (const line of createInterface({ input: process.stdin })) {
  const { prompt, n } = JSON.parse(line)
  console.log(JSON.stringify(await generate(prompt, n)))
}
await context.dispose()
await model.dispose()
await llama.dispose()
