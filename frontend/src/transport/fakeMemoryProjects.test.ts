import { describe, expect, it } from 'vitest'
import { FakeTransport } from './fake'

describe('FakeTransport projects and backup', () => {
  it('creates, updates and deletes projects, keeping or deleting their conversations', async () => {
    const t = new FakeTransport()
    await expect(t.createProject({ name: ' ' })).rejects.toMatchObject({ status: 400 })
    const p = await t.createProject({ name: 'Thesis', instructions: 'Cite sources.' })
    expect((await t.updateProject({ id: p.id, name: 'Thesis 2' })).name).toBe('Thesis 2')
    const c = await t.createConversation({ title: 'Chapter 1' })
    t.conversations.get(c.id)!.project_id = p.id
    await t.deleteProject({ id: p.id })
    expect(t.conversations.get(c.id)!.project_id).toBeUndefined()
    const q = await t.createProject({ name: 'Other' })
    t.conversations.get(c.id)!.project_id = q.id
    await t.deleteProject({ id: q.id, with_conversations: true })
    expect(t.conversations.has(c.id)).toBe(false)
    await expect(t.getProject({ id: q.id })).rejects.toMatchObject({ status: 404 })
  })

  it('imports a backup twice without adding anything twice', async () => {
    const a = new FakeTransport()
    await a.createProject({ name: 'Trip' })
    await a.createConversation({ title: 'Packing' })
    const file = await a.exportBackup()
    const b = new FakeTransport()
    const first = await b.importBackup({ data: file.content })
    expect(first.added).toEqual({ projects: 1, conversations: a.conversations.size })
    const second = await b.importBackup({ data: file.content })
    expect(second.added).toEqual({ projects: 0, conversations: 0 })
    await expect(b.importBackup({ data: '{}' })).rejects.toMatchObject({ status: 400 })
  })
})

describe('FakeTransport memory', () => {
  it('keeps, filters, edits and deletes memories, and keeps nothing while memory is off', async () => {
    const t = new FakeTransport()
    await expect(t.createMemory({ text: ' ' })).rejects.toMatchObject({ status: 400 })
    const a = await t.createMemory({ text: 'I write Go.' })
    await t.createMemory({ text: 'The thesis is due in May.', project_id: 'p1' })
    expect((await t.memories({})).map((m) => m.text)).toEqual(['The thesis is due in May.', 'I write Go.'])
    expect((await t.memories({ project: 'none' })).map((m) => m.id)).toEqual([a.id])
    expect((await t.updateMemory({ id: a.id, text: 'I write Go and TypeScript.' })).text).toBe('I write Go and TypeScript.')
    await expect(t.updateMemory({ id: a.id, auto_answer: true })).rejects.toMatchObject({ status: 400 })
    await t.deleteMemory({ id: a.id })
    await expect(t.deleteMemory({ id: a.id })).rejects.toMatchObject({ status: 404 })
    await t.deleteAllMemories()
    expect(await t.memories({})).toEqual([])
    t.settings = { ...t.settings, memory: 'off' }
    await expect(t.createMemory({ text: 'x' })).rejects.toMatchObject({ status: 400 })
  })
})
