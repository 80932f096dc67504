import { describe, expect, it } from 'vitest'
import { FakeTransport } from './fake'
import { ASK_TOOL } from '../types'

describe('FakeTransport profiles, export and import (like the Go side)', () => {
  it('keeps the default profile first, validates and dedupes tools, resets the default on delete', async () => {
    const t = new FakeTransport()
    expect((await t.profiles()).map((p) => p.name)).toEqual(['default'])
    await expect(t.saveProfile({ name: 'a/b', system_prompt: '', model: '', tools: [] })).rejects.toMatchObject({ status: 400 })
    await expect(t.saveProfile({ name: 'ok', system_prompt: '', model: '', tools: ['rm'] })).rejects.toThrow('unknown tool "rm"')
    expect(await t.saveProfile({ name: ' Coder ', system_prompt: 'x', model: ' m ', tools: [ASK_TOOL, ASK_TOOL] })).toEqual({
      name: 'Coder',
      system_prompt: 'x',
      model: 'm',
      tools: [ASK_TOOL],
    })
    await t.saveProfile({ name: 'default', system_prompt: 'changed', model: '', tools: [] })
    expect((await t.profiles()).map((p) => [p.name, p.system_prompt])).toEqual([
      ['default', 'changed'],
      ['Coder', 'x'],
    ])
    await t.deleteProfile({ name: 'default' })
    expect((await t.profiles())[0]!.tools).toContain(ASK_TOOL)
    await expect(t.deleteProfile({ name: 'nope' })).rejects.toMatchObject({ status: 404 })
  })

  it('round-trips a conversation through its JSON export with new ids', async () => {
    const t = new FakeTransport()
    const c = t.addConversation({ title: 'Trip', assistant: 'Coder' })
    t.addMessage(c.id, { role: 'user', content: 'hi' })
    const doc = JSON.parse(t.exportText(c.id, 'json'))
    expect(doc).toMatchObject({ format: 'parley.conversation', version: 1, conversation: { title: 'Trip', assistant: 'Coder' } })
    const imported = (await t.importConversation({ data: JSON.stringify(doc) }))!
    expect(imported.id).not.toBe(c.id)
    expect(imported).toMatchObject({ title: 'Trip (imported)', assistant: 'Coder' })
    expect((await t.importConversation({ data: JSON.stringify(doc) }))!.title).toBe('Trip (imported 2)')
    const d = await t.getConversation({ id: imported.id })
    expect(d.messages.map((m) => [m.role, m.content])).toEqual([['user', 'hi']])
    expect(d.messages[0]!.id).not.toBe(c.messages[0]!.id)
    await expect(t.importConversation({ data: 'nope' })).rejects.toThrow('invalid conversation export')
    await expect(t.importConversation({ data: '{"format":"parley.conversation","version":2,"conversation":{}}' })).rejects.toThrow('newer Parley')
    expect(t.conversations.size).toBe(3)
  })
})
