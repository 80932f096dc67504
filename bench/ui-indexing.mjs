// (g) of the UI latency bench (bench/ui-latency.mjs): the card rounds and
// the stream again while Parley indexes a folder of INDEX_FILES Markdown
// files, and the same with nothing indexing, so that the two are compared
// as a ratio measured side by side (issue #42: every figure while indexing
// within INDEXING_LIMIT× of the same figure idle). The card rounds take
// turns (INDEX_TURNS of each, idle first and indexing first by turns): a
// machine shared with other work is busier in some minutes than in others,
// and one block of each compared the minutes as much as the indexing. The
// stream (30 s a side) runs once each, idle first.
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sleep } from '../frontend/e2e/util.mjs'
import { cardRounds } from './ui-cards.mjs'
import { recordFigure } from './figures.mjs'
import { INDEX_FILES, INDEX_FILE_BYTES, INDEX_TURNS, ROUNDS, log } from './ui-knobs.mjs'
import { stats } from './stats.mjs'
import { longStream } from './ui-streams.mjs'

// (g) A folder of Markdown files with headings and paragraphs, for indexing.
function writeIndexFolder() {
  const dir = mkdtempSync(join(tmpdir(), 'parley-bench-index-'))
  const words = 'install configure server client network storage backup restore invoice payment refund customer account password security update release version feature error warning request response latency database index search query'.split(' ')
  let seed = 1
  const rnd = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n }
  for (let i = 0; i < INDEX_FILES; i++) {
    const sub = join(dir, `d${String(i % 100).padStart(3, '0')}`)
    if (i < 100) mkdirSync(sub)
    let text = `# Document ${i}\n\n`
    for (let sec = 0; text.length < INDEX_FILE_BYTES; sec++) {
      text += `## Section ${sec}\n\n`
      for (let p = 0; p < 3 && text.length < INDEX_FILE_BYTES; p++) {
        text += Array.from({ length: 40 }, () => words[rnd(words.length)]).join(' ') + '.\n\n'
      }
    }
    writeFileSync(join(sub, `f${String(i).padStart(5, '0')}.md`), text)
  }
  return dir
}

// keepIndexing indexes dir until stopped: a collection of it, and when
// that one is done, deleted and made again (each indexes from scratch).
// stop() says how many collections were made and files indexed.
function keepIndexing(server, dir) {
  let stopped = false
  let made = 0
  let files = 0
  let current = null
  const loop = (async () => {
    while (!stopped) {
      const res = await server.api('POST', '/api/v1/knowledge', { name: `bench ${made}`, paths: [dir] })
      if (res.status !== 201) throw new Error('create collection: ' + JSON.stringify(res.body))
      current = res.body.id
      made++
      for (;;) {
        await sleep(250)
        const { body } = await server.api('GET', `/api/v1/knowledge/${current}`)
        if (body.status !== 'indexing' || stopped) {
          files += body.indexed_files
          break
        }
      }
      await server.api('DELETE', `/api/v1/knowledge/${current}`)
    }
  })()
  return async () => {
    stopped = true
    await loop
    return { collections: made, indexed: files }
  }
}

// indexingInTurns indexes dir only while on: a collection of it, started
// (or resumed: POST …/reindex) by on() and stopped by off() (POST …/cancel:
// the scan stops, what it read stays). Stopped, not deleted: a deleted
// collection's passages are removed in the background, work that would
// fall into the idle turn after it. One that finished during a turn is
// followed by a new one at the next on(). done() says how many were made
// and how many files they indexed.
function indexingInTurns(server, dir) {
  const made = []
  let current = null
  const info = async (id) => {
    const res = await server.api('GET', `/api/v1/knowledge/${id}`)
    if (res.status !== 200) throw new Error('collection: ' + JSON.stringify(res.body))
    return res.body
  }
  return {
    async on() {
      if (current) {
        const res = await server.api('POST', `/api/v1/knowledge/${current}/reindex`)
        if (res.status !== 202) throw new Error('resume collection: ' + JSON.stringify(res.body))
        return
      }
      const res = await server.api('POST', '/api/v1/knowledge', { name: `bench ${made.length}`, paths: [dir] })
      if (res.status !== 201) throw new Error('create collection: ' + JSON.stringify(res.body))
      current = res.body.id
      made.push(current)
    },
    async off() {
      const finished = (await info(current)).status !== 'indexing'
      const res = await server.api('POST', `/api/v1/knowledge/${current}/cancel`)
      if (res.status !== 200) throw new Error('stop collection: ' + JSON.stringify(res.body))
      if (finished) current = null
    },
    async done() {
      let indexed = 0
      for (const id of made) indexed += (await info(id)).indexed_files
      return { collections: made.length, indexed }
    },
  }
}

// The card rounds in INDEX_TURNS turns of each, their samples pooled per side.
async function cardTurns(browser, server, model, dir) {
  const rounds = Math.max(1, Math.ceil(ROUNDS / INDEX_TURNS))
  const idle = []
  const busy = []
  const indexing = indexingInTurns(server, dir)
  const idleTurn = async (k) => {
    log(`(g) card rounds, turn ${k + 1} of ${INDEX_TURNS}: nothing indexing`)
    idle.push(await cardRounds(browser, server, model, 30000 + k * 1000, { rounds }))
  }
  const busyTurn = async (k) => {
    await indexing.on()
    log(`(g) card rounds, turn ${k + 1} of ${INDEX_TURNS}: ${INDEX_FILES} files indexing`)
    try {
      busy.push(await cardRounds(browser, server, model, 20000 + k * 1000, { rounds }))
    } finally {
      await indexing.off()
    }
  }
  // Idle first, then indexing first, in turn (I B, B I, I B, …): half of
  // each side's turns come right after an indexing turn, so whatever that
  // leaves behind (a checkpoint of its writes, say) falls on both sides.
  for (let k = 0; k < INDEX_TURNS; k++) {
    if (k % 2 === 0) {
      await idleTurn(k)
      await busyTurn(k)
    } else {
      await busyTurn(k)
      await idleTurn(k)
    }
  }
  const pool = (turns) => {
    const rawA = turns.flatMap((t) => t.rawA)
    const rawDom = turns.flatMap((t) => t.rawDom)
    const rawB = turns.flatMap((t) => t.rawB)
    return { a: stats(rawA), aDom: stats(rawDom), b: stats(rawB), rawA, rawDom, rawB, measured: turns.flatMap((t) => t.measured) }
  }
  return { cardsIdle: pool(idle), cards: pool(busy), cardsIndexing: { ...(await indexing.done()), turns: INDEX_TURNS } }
}

export async function duringIndexing(browser, server, model) {
  log(`(g) writing ${INDEX_FILES} Markdown files of ${INDEX_FILE_BYTES} bytes`)
  const dir = writeIndexFolder()
  const out = { files: INDEX_FILES, fileBytes: INDEX_FILE_BYTES }
  try {
    Object.assign(out, await cardTurns(browser, server, model, dir))
    log('(g) streaming with nothing indexing')
    out.streamIdle = await longStream(server, model, false)
    const stop = keepIndexing(server, dir)
    log(`(g) streaming while ${INDEX_FILES} files index`)
    out.stream = await longStream(server, model, false)
    out.streamIndexing = await stop()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  return out
}

// The limit of issue #42: a figure while indexing / the same figure idle.
export const INDEXING_LIMIT = 1.5

// A long task takes more than this (the 'longtask' entries' threshold).
const LONG_TASK_MS = 50

// indexingRatios compares each figure of (g) while indexing with the same
// figure measured idle beside it. Counts (long tasks, frame gaps) are
// compared against at least 1, so that 0 idle and 1 while indexing reads
// as 1×, not as infinitely worse; the longest task against at least 50 ms,
// the least a long task is (none idle is under 50 ms: 0 in the figure, and
// one of 57 ms while indexing read as infinitely worse).
export function indexingRatios(ix) {
  const rows = []
  const add = (id, figure, idle, indexing, count = false, least = 0) => {
    if (typeof idle !== 'number' || typeof indexing !== 'number') return
    const floor = count ? 1 : least
    const ratio = floor > 0 ? Math.max(indexing, floor) / Math.max(idle, floor) : idle > 0 ? indexing / idle : indexing > 0 ? Infinity : 1
    rows.push({ id, figure, idle, indexing, count, ratio, met: ratio <= INDEXING_LIMIT })
  }
  if (ix.cards && ix.cardsIdle) {
    add('card.dom.p95', 'card in the DOM, p95', ix.cardsIdle.aDom.p95, ix.cards.aDom.p95)
    add('card.paint.p95', 'card painted, p95', ix.cardsIdle.a.p95, ix.cards.a.p95)
    add('submit.next.p95', 'Submit -> next model request, p95', ix.cardsIdle.b.p95, ix.cards.b.p95)
  }
  if (ix.stream?.responsive && ix.streamIdle?.responsive) {
    add('stream.longtask.max', 'streaming, longest task', ix.streamIdle.longMax, ix.stream.longMax, false, LONG_TASK_MS)
    add('stream.longtasks', 'streaming, long tasks (> 50 ms)', ix.streamIdle.longtasks, ix.stream.longtasks, true)
    add('stream.gap.max', 'streaming, longest frame gap', ix.streamIdle.gapMax, ix.stream.gapMax)
    add('stream.gaps', 'streaming, frame gaps > 50 ms', ix.streamIdle.gaps, ix.stream.gaps, true)
  }
  return rows
}

/** The lines of the ratios: one `target:` line each, met or MISSED. */
export function indexingRatioLines(ix) {
  return indexingRatios(ix).map((r) => {
    const v = (x) => (r.count ? String(x) : `${x.toFixed(1)} ms`)
    return `target: indexing/idle ${r.figure} ${r.ratio.toFixed(3)}× <= ${INDEXING_LIMIT}× ${r.met ? 'met' : 'MISSED'} (${v(r.indexing)} while indexing, ${v(r.idle)} idle)`
  })
}

/** Records the ratios for the summary (bench/summary.mjs prints them with their verdict). */
export function recordIndexingRatios(ix) {
  for (const r of indexingRatios(ix)) {
    recordFigure({ id: `indexing.ratio.${r.id}`, label: `while ${ix.files} files index / idle: ${r.figure}`, value: r.ratio, unit: '×',
      target: INDEXING_LIMIT, cmp: '<=', note: `${r.indexing.toFixed(1)} while indexing, ${r.idle.toFixed(1)} idle` })
  }
}
