// The private display the WebKit tests run on (webkit.mjs startXvfb) keeps
// accepting clients while others leave. By default an X server resets
// itself whenever its last client leaves and drops a client that connects
// during the reset (https://gitlab.freedesktop.org/xorg/xserver/-/issues/1102);
// the WebKit tests open and close browser sessions one after another, so on
// a busy machine a new session could lose its display. startXvfb passes
// -noreset; without it a quarter to half of these connections fail here.
// The same check for the desktop tests' display: tests/desktop/display_test.go.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import net from 'node:net'
import { startXvfb } from './webkit.mjs'

let xvfb

before(async () => { xvfb = await startXvfb() })
after(async () => { await xvfb?.stop() })

// openAndCloseX connects on the X server's Unix socket, completes the
// connection setup (X11 protocol, chapter 8: a 12-byte little-endian
// request without authorisation; the reply's first byte is 1 on success,
// its length in 4-byte units at offset 6 of its 8-byte head) and hangs up.
function openAndCloseX(socket) {
  return new Promise((ok, fail) => {
    const conn = net.createConnection(socket)
    let got = Buffer.alloc(0)
    const done = (err) => { conn.destroy(); err ? fail(err) : ok() }
    conn.on('connect', () => {
      const request = Buffer.alloc(12)
      request[0] = 0x6c // 'l': little-endian
      request.writeUInt16LE(11, 2)
      conn.write(request)
    })
    conn.on('data', (d) => {
      got = Buffer.concat([got, d])
      if (got.length < 8) return
      if (got[0] !== 1) return done(new Error(`setup refused (status ${got[0]})`))
      if (got.length >= 8 + got.readUInt16LE(6) * 4) done()
    })
    conn.on('error', (e) => done(e))
    conn.on('close', () => done(new Error(`closed after ${got.length} bytes of the setup reply`)))
    // A bound for a broken server only: the reply normally takes well under a millisecond.
    conn.setTimeout(30000, () => done(new Error('no setup reply within 30 s')))
  })
}

test('WebKit tests\' private display accepts clients while others leave (the server never resets)', async () => {
  const socket = `/tmp/.X11-unix/X${xvfb.display.slice(1)}`
  const clients = 4
  const connections = 300
  const failures = []
  await Promise.all(Array.from({ length: clients }, async () => {
    for (let i = 0; i < connections; i++) {
      await openAndCloseX(socket).catch((e) => failures.push(e.message))
    }
  }))
  assert.equal(failures.length, 0,
    `${failures.length} of ${clients * connections} connections to ${xvfb.display} failed (first: ${failures.slice(0, 3).join('; ')})`)
})
