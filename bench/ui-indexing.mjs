// (g) of the UI latency bench (bench/ui-latency.mjs): the card rounds and
// the stream again while Parley indexes a folder of INDEX_FILES Markdown
// files, all along (a collection of it, made again each time it is done).
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sleep } from '../frontend/e2e/util.mjs'
import { cardRounds } from './ui-cards.mjs'
import { INDEX_FILES, INDEX_FILE_BYTES, log } from './ui-knobs.mjs'
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

export async function duringIndexing(browser, server, model) {
  log(`(g) writing ${INDEX_FILES} Markdown files of ${INDEX_FILE_BYTES} bytes`)
  const dir = writeIndexFolder()
  const out = { files: INDEX_FILES, fileBytes: INDEX_FILE_BYTES }
  try {
    let stop = keepIndexing(server, dir)
    log(`(g) card rounds while ${INDEX_FILES} files index`)
    out.cards = await cardRounds(browser, server, model, 20000)
    out.cardsIndexing = await stop()
    stop = keepIndexing(server, dir)
    log(`(g) streaming while ${INDEX_FILES} files index`)
    out.stream = await longStream(server, model, false)
    out.streamIndexing = await stop()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  return out
}
