// The update tests' fixtures (SPEC §13): a throwaway minisign key pair
// (cmd/release-feed -genkey), Parley 1.0.0 and 1.0.1 built as tarball
// installs with that test key built in (scripts/lib.sh relink_app: the
// wails build's packages from Go's cache, only the link runs; the
// production builds never carry it), the 1.0.1 tarball, feeds for it (a
// signed one, and hostile ones), and a static server for a feed on
// 127.0.0.1, whose folder a test can switch.
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { createServer } from 'node:http'
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, join, normalize, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..')
const run = promisify(execFile)

export const OLD = '1.0.0'
export const NEW = '1.0.1'
export const NOTES = { en: 'Faster answers.\nFewer questions.', de: 'Schnellere Antworten.\nWeniger Rückfragen.' }

/** Runs release-feed with its arguments in the fixture's folder. */
async function feedTool(fx, ...args) {
  const { stdout } = await run(fx.tool, args, { cwd: fx.dir })
  return stdout.trim()
}

/**
 * Builds everything once per test file: { dir, oldBin, newBin, tarball,
 * feeds: { good, unsigned, otherKey, tampered, expired }, remove }.
 */
export async function buildUpdateFixture() {
  const dir = await mkdtemp(join(tmpdir(), 'parley-e2e-update-'))
  const fx = { dir, tool: join(dir, 'release-feed'), remove: () => rm(dir, { recursive: true, force: true }) }
  await run('go', ['build', '-o', fx.tool, './cmd/release-feed'], { cwd: repo })
  const pub = await feedTool(fx, '-genkey', join(dir, 'key'))
  await feedTool(fx, '-genkey', join(dir, 'other-key')) // a key Parley does not know

  // Both versions as the tarball's install, the test key built in.
  const build = async (version) => {
    const out = join(dir, `build-${version}`, 'parley')
    const ldflags = `-X main.version=${version} -X main.installKind=tar -X main.updateKeys=${pub}`
    await run('bash', ['-c', 'source scripts/lib.sh && relink_app "$1" "$BUILD_TAGS" "$2"', 'relink', out, ldflags], { cwd: repo, maxBuffer: 1 << 24 })
    return out
  }
  fx.oldBin = await build(OLD)
  fx.newBin = await build(NEW)

  // The 1.0.1 tarball, as scripts/package.sh lays it out.
  const name = `parley_${NEW}_linux_amd64`
  const tree = join(dir, 'tar', name)
  await mkdir(tree, { recursive: true })
  await copyFile(fx.newBin, join(tree, 'parley'))
  await chmod(join(tree, 'parley'), 0o755)
  const tarball = join(dir, `${name}.tar.gz`)
  await run('tar', ['-C', join(dir, 'tar'), '-czf', tarball, name])
  fx.tarball = tarball

  const notes = []
  for (const [lang, text] of Object.entries(NOTES)) {
    const f = join(dir, `notes-${lang}.md`)
    await writeFile(f, text)
    notes.push('-notes', `${lang}=${f}`)
  }
  // feed NAME KEY [ARGS]: a folder with the tarball and its feed.
  const feed = async (folder, key, ...args) => {
    const out = join(dir, 'feeds', folder)
    await mkdir(out, { recursive: true })
    await copyFile(tarball, join(out, basename(tarball)))
    await feedTool(fx, '-version', NEW, '-out', out, ...(key ? ['-key', join(dir, key, 'parley-release.key')] : []), ...notes, ...args,
      '-artifact', `tar:linux:amd64:${join(out, basename(tarball))}`)
    return out
  }
  fx.feeds = {
    good: await feed('good', 'key'),
    unsigned: await feed('unsigned', null),
    otherKey: await feed('other-key', 'other-key'),
    expired: await feed('expired', 'key', '-valid-for', '-1h'),
    tampered: await feed('tampered', 'key'),
  }
  // The tampered feed's tarball is changed after it was signed and hashed.
  const bad = join(fx.feeds.tampered, basename(tarball))
  const bytes = await readFile(bad)
  bytes[bytes.length >> 1] ^= 0xff
  await writeFile(bad, bytes)
  return fx
}

/** Puts a fresh copy of Parley 1.0.0 where its tarball would have been unpacked; returns the binary's path. */
export async function installOld(fx) {
  const into = await mkdtemp(join(tmpdir(), 'parley-e2e-install-'))
  const bin = join(into, `parley_${OLD}_linux_amd64`, 'parley')
  await mkdir(join(into, `parley_${OLD}_linux_amd64`), { recursive: true })
  await copyFile(fx.oldBin, bin)
  await chmod(bin, 0o755)
  return bin
}

/** The sha256 of a file (hex), or null when it does not exist. */
export async function sha256Of(file) {
  try {
    return createHash('sha256').update(await readFile(file)).digest('hex')
  } catch {
    return null
  }
}

export async function exists(file) {
  try {
    await stat(file)
    return true
  } catch {
    return false
  }
}

/** `parley version` of a binary. */
export async function versionOf(bin) {
  const { stdout } = await run(bin, ['version'])
  return stdout.trim()
}

/** A static server for a feed's folder on 127.0.0.1 (`use(folder)` switches it); counts the requests. */
export async function startFeedServer(folder) {
  let root = folder
  const requests = []
  const server = createServer(async (req, res) => {
    requests.push(req.url)
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
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok))
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    use: (f) => (root = f),
    close: () => new Promise((ok) => server.close(ok)),
  }
}
