// The Submit bound (issue #42): each round's Go path with each bare call on
// top, the same in Chromium and in the window.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { submitBound } from './bounds.mjs'

const round = (answered, request) => ({ marks: { answer_received: answered, server_request: request } })

test('the Submit bound adds every bare call to every round\'s Go path', () => {
  const b = submitBound([round(10, 12), round(20, 25), { marks: { answer_received: 3 } }], [1, 3])
  assert.equal(b.goPath.n, 2) // the round without a request is left out
  assert.deepEqual([b.goPath.min, b.goPath.max], [2, 5])
  assert.equal(b.post.n, 2)
  assert.equal(b.sum.n, 4) // 2 + 1, 2 + 3, 5 + 1, 5 + 3
  assert.deepEqual([b.sum.min, b.sum.mean, b.sum.max], [3, 5.5, 8])
})

test('no bound without both sides', () => {
  assert.equal(submitBound([], [1]), null)
  assert.equal(submitBound([round(1, 2)], []), null)
  assert.equal(submitBound([round(1, 2)], undefined), null)
})
