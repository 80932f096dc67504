// The knobs of the UI latency bench (bench/ui-latency.mjs, which lists
// them), and the clock and log its parts share.

const env = (k, d) => (process.env[k] ? Number(process.env[k]) : d)
export const ROUNDS = env('BENCH_ROUNDS', 50)
export const WARMUP = env('BENCH_WARMUP', 3)
export const CLIENTS = env('BENCH_CLIENTS', 20)
export const STREAM_SECONDS = env('BENCH_STREAM_SECONDS', 30)
export const STREAM_RATE = env('BENCH_STREAM_RATE', 500)
export const FANOUT_CHUNKS = env('BENCH_FANOUT_CHUNKS', 300)
export const MESSAGES = env('BENCH_MESSAGES', 5000)
export const CATCHUP_SECONDS = env('BENCH_CATCHUP_SECONDS', 60)
export const THINK_MS = env('BENCH_THINK_MS', 150)
export const THINK_STREAM_SECONDS = env('BENCH_THINK_STREAM_SECONDS', 60)
export const THINK_ANSWER_SECONDS = env('BENCH_THINK_ANSWER_SECONDS', 30)
export const INDEX_FILES = env('BENCH_INDEX_FILES', 20000)
export const INDEX_FILE_BYTES = env('BENCH_INDEX_FILE_BYTES', 4000)
export const INDEX_TURNS = env('BENCH_INDEX_TURNS', 5)
export const ONLY = (process.env.BENCH_ONLY || 'a,c,d,e,f,g').split(',') // a covers (a) and (b)

/** The wall clock in epoch milliseconds, sub-millisecond (the page's clock too). */
export const now = () => performance.timeOrigin + performance.now()
export const log = (...a) => console.error('[bench]', ...a)
