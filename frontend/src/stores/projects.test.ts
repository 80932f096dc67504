import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { setupEnv, type TestEnv } from '../test-utils'
import { COLLAPSED_KEY, useProjectsStore } from './projects'
import { useConversationsStore } from './conversations'
import { connectEvents } from './events'
import { describeCounts, useBackupStore } from './backup'
import { groupByProject } from '../lib/projectGroups'

let env: TestEnv
beforeEach(() => {
  localStorage.clear()
  env = setupEnv()
})
afterEach(() => localStorage.clear())

async function seed() {
  const thesis = await env.fake.createProject({ name: 'Thesis', instructions: 'Cite sources.' })
  const garden = await env.fake.createProject({ name: 'garden' })
  env.fake.addConversation({ id: 'a', title: 'Chapter 1', project_id: thesis.id })
  env.fake.addConversation({ id: 'b', title: 'Tomatoes', project_id: garden.id })
  env.fake.addConversation({ id: 'c', title: 'Loose' })
  const projects = useProjectsStore()
  const conversations = useConversationsStore()
  await Promise.all([projects.load(), conversations.load()])
  return { thesis, garden, projects, conversations }
}

describe('projects store', () => {
  it('lists projects by name, case ignored, and knows which conversation is in which', async () => {
    const { projects, conversations, thesis } = await seed()
    expect(projects.items.map((p) => p.name)).toEqual(['garden', 'Thesis'])
    expect(conversations.byId('a')?.project_id).toBe(thesis.id)
    expect(conversations.byId('c')?.project_id).toBeUndefined()
    const grouped = groupByProject(conversations.recent, projects.items)
    expect(grouped.groups.map((g) => [g.project.name, g.items.map((c) => c.id)])).toEqual([['garden', ['b']], ['Thesis', ['a']]])
    expect(grouped.rest.map((c) => c.id)).toEqual(['c'])
  })

  it('groups a conversation of a project it does not know with those in none', async () => {
    const { conversations } = await seed()
    const grouped = groupByProject(conversations.recent, [])
    expect(grouped.rest.map((c) => c.id).sort()).toEqual(['a', 'b', 'c'])
  })

  it('creates, updates and renames a project; a refusal says why and a failed rename is put back', async () => {
    const { projects } = await seed()
    const p = await projects.create({ name: 'Alpha', instructions: 'Be brief.', knowledge: [], profile: '', model: 'qwen3' })
    expect(p?.name).toBe('Alpha')
    expect(projects.items.map((x) => x.name)).toEqual(['Alpha', 'garden', 'Thesis'])
    expect(env.fake.callsOf('createProject').at(-1)).toEqual([{ name: 'Alpha', instructions: 'Be brief.', knowledge: [], profile: '', model: 'qwen3' }])

    expect(await projects.create({ name: ' ' })).toBeNull()
    expect(projects.editorError).toMatch(/Couldn't save the project: A project needs a name/)

    await projects.update(p!.id, { instructions: 'Be very brief.' })
    expect(projects.byId(p!.id)?.instructions).toBe('Be very brief.')

    expect(await projects.rename(p!.id, 'Beta')).toBe(true)
    expect(projects.byId(p!.id)?.name).toBe('Beta')
    env.fake.failNext('updateProject', 'nope', 400)
    expect(await projects.rename(p!.id, 'Gamma')).toBe(false)
    expect(projects.byId(p!.id)?.name).toBe('Beta')
    expect(projects.actionError).toBe("Couldn't rename the project: nope")
  })

  it('deletes a project keeping its conversations: they are in no project after', async () => {
    const { projects, conversations, thesis } = await seed()
    conversations.newProject = thesis.id
    expect(await projects.remove(thesis.id, false)).toBe(true)
    expect(env.fake.callsOf('deleteProject')).toEqual([[{ id: thesis.id, with_conversations: false }]])
    expect(projects.byId(thesis.id)).toBeUndefined()
    expect(conversations.byId('a')?.project_id).toBeUndefined()
    expect(conversations.items.map((c) => c.id)).toContain('a')
    expect(conversations.newProject).toBe('')
  })

  it('deletes a project with its conversations', async () => {
    const { projects, conversations, garden } = await seed()
    await conversations.select('b')
    expect(await projects.remove(garden.id, true)).toBe(true)
    expect(env.fake.callsOf('deleteProject')).toEqual([[{ id: garden.id, with_conversations: true }]])
    expect(conversations.items.map((c) => c.id).sort()).toEqual(['a', 'c'])
    expect(conversations.currentId).toBeNull()
    expect(env.fake.conversations.has('b')).toBe(false)
  })

  it('a refused delete changes nothing and says why', async () => {
    const { projects, conversations, thesis } = await seed()
    env.fake.failNext('deleteProject', 'busy', 409)
    expect(await projects.remove(thesis.id, true)).toBe(false)
    expect(projects.actionError).toBe("Couldn't delete the project: busy")
    expect(projects.byId(thesis.id)).toBeDefined()
    expect(conversations.byId('a')?.project_id).toBe(thesis.id)
  })

  it('remembers collapsed groups across reloads', async () => {
    const { projects, thesis } = await seed()
    projects.toggle(thesis.id)
    expect(projects.isCollapsed(thesis.id)).toBe(true)
    expect(JSON.parse(localStorage.getItem(COLLAPSED_KEY)!)).toEqual([thesis.id])
    setupEnv()
    expect(useProjectsStore().isCollapsed(thesis.id)).toBe(true)
  })

  it('follows project:changed and conversation:updated from other clients', async () => {
    const { projects, conversations, thesis, garden } = await seed()
    const off = connectEvents()
    try {
      env.fake.emit('project:changed', { conversationId: '', id: 'p9', project: { id: 'p9', name: 'Aardvark', instructions: '', knowledge: [], created_at: '', updated_at: '' } })
      expect(projects.items.map((p) => p.name)).toEqual(['Aardvark', 'garden', 'Thesis'])
      env.fake.emit('conversation:updated', { conversationId: 'c', project_id: garden.id })
      expect(conversations.byId('c')?.project_id).toBe(garden.id)
      env.fake.emit('conversation:updated', { conversationId: 'a', project_id: '' })
      expect(conversations.byId('a')?.project_id).toBeUndefined()
      env.fake.emit('project:changed', { conversationId: '', id: thesis.id, project: null, deleted: true })
      expect(projects.byId(thesis.id)).toBeUndefined()
    } finally {
      off()
    }
  })
})

describe('conversations in projects', () => {
  it('a new chat in a project is created in it at its first message; plain "New chat" is in none', async () => {
    const { conversations, thesis } = await seed()
    conversations.startNew(thesis.id)
    expect(conversations.currentId).toBeNull()
    expect(await conversations.send('Hello')).toBe(true)
    expect(env.fake.callsOf('createConversation')).toEqual([[{ project_id: thesis.id }]])
    expect(conversations.current?.project_id).toBe(thesis.id)
    expect(conversations.newProject).toBe('')

    conversations.startNew()
    await conversations.send('Other')
    expect(env.fake.callsOf('createConversation')[1]).toEqual([{}])
    expect(conversations.current?.project_id).toBeUndefined()
  })

  it('moves a conversation into a project and out of it; a refusal puts it back', async () => {
    const { conversations, thesis, garden } = await seed()
    expect(await conversations.moveToProject('c', thesis.id)).toBe(true)
    expect(conversations.byId('c')?.project_id).toBe(thesis.id)
    expect(await conversations.moveToProject('a', '')).toBe(true)
    expect(conversations.byId('a')?.project_id).toBeUndefined()
    expect(env.fake.callsOf('updateConversation')).toEqual([[{ id: 'c', project_id: thesis.id }], [{ id: 'a', project_id: '' }]])
    expect(env.fake.conversations.get('a')!.project_id).toBeUndefined()

    env.fake.failNext('updateConversation', 'unknown project', 400)
    expect(await conversations.moveToProject('b', thesis.id)).toBe(false)
    expect(conversations.byId('b')?.project_id).toBe(garden.id)
    expect(conversations.actionError).toBe("Couldn't move the conversation: unknown project")
  })

  it("loads a project's own conversations past the main list's first page", async () => {
    const { conversations, thesis } = await seed()
    for (let i = 0; i < 40; i++) {
      const t = new Date(Date.UTC(2020, 0, 1, 0, i)).toISOString()
      env.fake.addConversation({ id: `old${i}`, title: `Old ${i}`, created_at: t, updated_at: t, project_id: i < 2 ? thesis.id : undefined })
    }
    await conversations.load()
    expect(conversations.items.some((c) => c.id === 'old0')).toBe(false)
    await conversations.loadProject(thesis.id)
    expect(env.fake.callsOf('listConversations').at(-1)).toEqual([{ limit: 30, project: thesis.id }])
    expect(conversations.items.filter((c) => c.project_id === thesis.id).map((c) => c.id).sort()).toEqual(['a', 'old0', 'old1'])
    expect(conversations.projectCursors[thesis.id]).toBeNull()
    // Reloading the list drops them; the groups load their pages again.
    await conversations.load()
    expect(conversations.projectCursors[thesis.id]).toBeUndefined()
  })
})

describe('backup store', () => {
  it('exports everything: a browser gets the file to download', async () => {
    await seed()
    const backup = useBackupStore()
    const file = await backup.exportAll()
    expect(file?.name).toBe('parley-backup.json')
    expect(JSON.parse(file!.content).format).toBe('parley.backup')
    expect(env.fake.callsOf('saveFile')[0]![1]).toBe('backup')
  })

  it('exports through the desktop dialog and says where it went', async () => {
    await seed()
    env.fake.nativeFileDialogs = true
    const backup = useBackupStore()
    expect(await backup.exportAll()).toBeNull()
    expect(backup.savedPath).toBe('/home/user/Documents/parley-backup.json')
  })

  it('imports a backup, reloads the lists, and a second import adds nothing', async () => {
    await seed()
    const data = (await env.fake.exportBackup()).content
    setupEnv() // a fresh Parley
    const backup = useBackupStore()
    const res = await backup.importAll(data)
    expect(res).toEqual({ added: { projects: 2, conversations: 3 }, skipped: { projects: 0, conversations: 0 } })
    expect(useProjectsStore().items.map((p) => p.name)).toEqual(['garden', 'Thesis'])
    expect(useConversationsStore().items.map((c) => c.id).sort()).toEqual(['a', 'b', 'c'])
    expect(describeCounts(res!.added)).toBe('2 projects and 3 conversations')
    const again = await backup.importAll(data)
    expect(again?.added).toEqual({ projects: 0, conversations: 0 })
    expect(describeCounts(again!.added)).toBe('nothing')
    expect(describeCounts(again!.skipped)).toBe('2 projects and 3 conversations')
    // Go's maps come sorted by name: the UI says them in its own order, unknown sections last.
    expect(describeCounts({ conversations: 1, memories: 2, projects: 1, agents: 3 })).toBe('1 project, 1 conversation, 2 memories, and agents: 3')
  })

  it('the desktop app asks for the file; cancelling changes nothing; a bad file says why', async () => {
    await seed()
    env.fake.nativeFileDialogs = true
    const backup = useBackupStore()
    env.fake.nextBackupFile = null
    expect(await backup.importAll()).toBeNull()
    expect(backup.error).toBeNull()
    expect(env.fake.callsOf('importBackup')).toHaveLength(0)
    env.fake.nextBackupFile = '{"format":"other"}'
    expect(await backup.importAll()).toBeNull()
    expect(backup.error).toBe("Couldn't import the backup: This is not a Parley backup.")
  })
})
