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
