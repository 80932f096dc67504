// Helpers of the package test's update checks (scripts/package-test.sh,
// SPEC §13), in Node (which the build needs anyway; the Debian image has
// no Python or curl):
//   node scripts/update-test.mjs serve DIR          a static server for a feed's folder on 127.0.0.1;
//                                                   prints its URL, serves until SIGTERM
//   node scripts/update-test.mjs seed URL           waits for Parley at URL, switches the demo model on
//                                                   and makes two conversations (one with a reply);
//                                                   prints them as dump does
//   node scripts/update-test.mjs dump URL           waits for Parley at URL; prints its version and every
//                                                   conversation with its messages, as JSON
//   node scripts/update-test.mjs same URL FILE VER  waits for Parley at URL; fails unless it is version VER
//                                                   and has the conversations of FILE (a dump) as they were
//   node scripts/update-test.mjs feed FEED FILE...  checks that the feed lists each file (by name) with
//                                                   its size and sha256
// The API token is PARLEY_TOKEN.
import { createHash } from 'node:crypto'
import { createServer } from 'node:http'
import { readFile, stat } from 'node:fs/promises'
import { basename, join, normalize } from 'node:path'

const token = process.env.PARLEY_TOKEN
const [cmd, ...args] = process.argv.slice(2)

async function api(base, method, path, body) {
  const res = await fetch(base + path, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`)
  return text ? JSON.parse(text) : null
}

async function until(what, fn, timeout = 30000) {
  const end = Date.now() + timeout
  let last
  for (;;) {
    try {
      const v = await fn()
      if (v) return v
    } catch (err) {
      last = err
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? `: ${last.message}` : ''}`)
    await new Promise((ok) => setTimeout(ok, 100))
  }
}

async function dump(base) {
  const health = await until('Parley to answer', () => api(base, 'GET', '/api/v1/health'))
  const page = await api(base, 'GET', '/api/v1/conversations?limit=100')
  const conversations = []
  for (const c of page.items) {
    const d = await api(base, 'GET', `/api/v1/conversations/${c.id}`)
    conversations.push({ id: d.id, title: d.title, messages: d.messages.map((m) => [m.role, m.content]) })
  }
  conversations.sort((a, b) => a.id.localeCompare(b.id))
  return { version: health.version, conversations }
}

switch (cmd) {
  case 'serve': {
    const root = args[0]
    const server = createServer(async (req, res) => {
      const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '')
      try {
        const body = await readFile(join(root, path))
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length })
        res.end(body)
      } catch {
        res.writeHead(404)
        res.end()
      }
    })
    server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${server.address().port}`))
    process.on('SIGTERM', () => process.exit(0))
    break
  }
  case 'seed': {
    const base = args[0]
    await until('Parley to answer', () => api(base, 'GET', '/api/v1/health'))
    const settings = await api(base, 'GET', '/api/v1/settings')
    await api(base, 'PUT', '/api/v1/settings', { ...settings, demo_mode: true, onboarded: true, rate_limit_seconds: 0 })
    const a = await api(base, 'POST', '/api/v1/conversations', { title: 'Trip to Lisbon' })
    await api(base, 'POST', `/api/v1/conversations/${a.id}/messages`, { content: 'Just answer: what is this?' })
    await until('the demo reply', async () => {
      const d = await api(base, 'GET', `/api/v1/conversations/${a.id}`)
      return d.state === 'idle' && d.messages.length >= 2
    })
    await api(base, 'POST', '/api/v1/conversations', { title: 'Taxes 2026' })
    console.log(JSON.stringify(await dump(base)))
    break
  }
  case 'dump':
    console.log(JSON.stringify(await dump(args[0])))
    break
  case 'same': {
    const [base, file, version] = args
    const before = JSON.parse(await readFile(file, 'utf8'))
    const now = await dump(base)
    console.log(JSON.stringify(now))
    if (now.version !== version) {
      console.error(`version ${now.version}, want ${version}`)
      process.exit(1)
    }
    if (JSON.stringify(now.conversations) !== JSON.stringify(before.conversations) || before.conversations.length < 2) {
      console.error(`the conversations differ:\nbefore ${JSON.stringify(before.conversations)}\nnow    ${JSON.stringify(now.conversations)}`)
      process.exit(1)
    }
    break
  }
  case 'feed': {
    const [feedFile, ...files] = args
    const feed = JSON.parse(await readFile(feedFile, 'utf8'))
    const problems = []
    for (const f of files) {
      const a = feed.artifacts.find((x) => basename(new URL(x.url, 'http://feed/').pathname) === basename(f))
      if (!a) {
        problems.push(`${basename(f)} is not in the feed`)
        continue
      }
      const size = (await stat(f)).size
      const sum = createHash('sha256').update(await readFile(f)).digest('hex')
      if (a.size !== size) problems.push(`${basename(f)}: size ${a.size} in the feed, ${size} on disk`)
      if (a.sha256 !== sum) problems.push(`${basename(f)}: sha256 ${a.sha256} in the feed, ${sum} on disk`)
      console.log(`${a.kind} ${a.os}/${a.arch} ${basename(f)} ${a.size} bytes sha256 ${a.sha256}`)
    }
    if (feed.schema !== 1 || !feed.version || !feed.expires) problems.push(`schema ${feed.schema}, version ${feed.version}, expires ${feed.expires}`)
    if (problems.length) {
      console.error(problems.join('\n'))
      process.exit(1)
    }
    break
  }
  default:
    console.error('usage: update-test.mjs serve DIR | seed URL | dump URL | same URL FILE VERSION | feed FEED FILE...')
    process.exit(2)
}
