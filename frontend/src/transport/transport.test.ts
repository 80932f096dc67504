import { describe, expect, it } from 'vitest'
import { TransportError, toError } from './transport'

describe('toError', () => {
  it("takes the window's rejected {error, kind, status} as the message and the status", () => {
    const err = toError({ error: 'no such conversation', kind: 'not_found', status: 404 })
    expect(err).toBeInstanceOf(TransportError)
    expect(err.message).toBe('no such conversation')
    expect(err.status).toBe(404)
    expect(toError({ error: 'a run is already active in this conversation', kind: 'conflict', status: 409 }).status).toBe(409)
  })

  it('keeps a string rejection as the message, without a status', () => {
    const err = toError('import conversation: invalid conversation export')
    expect(err).toBeInstanceOf(TransportError)
    expect(err.message).toBe('import conversation: invalid conversation export')
    expect(err.status).toBeUndefined()
  })

  it('takes an HTTP error body without a status, and ignores a status that is not a number', () => {
    expect(toError({ error: 'bad' }).status).toBeUndefined()
    expect(toError({ error: 'bad', status: '404' }).status).toBeUndefined()
    expect(toError({ error: 'bad' }).message).toBe('bad')
  })

  it('passes a TransportError through and says something for an empty message', () => {
    const same = new TransportError('gone', 404)
    expect(toError(same)).toBe(same)
    expect(toError({ error: '', status: 500 }).message).not.toBe('')
    expect(toError({ error: '', status: 500 }).status).toBe(500)
    expect(toError(undefined).message).not.toBe('')
  })
})
