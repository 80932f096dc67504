import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { VueWrapper } from '@vue/test-utils'
import ConversationSidebar from './ConversationSidebar.vue'
import ProjectEditor from './ProjectEditor.vue'
import ChatView from '../chat/ChatView.vue'
import { mountInBody, resetDom, settle, setupEnv, type TestEnv } from '../../test-utils'
import { useConversationsStore } from '../../stores/conversations'
import { useProjectsStore } from '../../stores/projects'
import { CONVERSATION_DRAG_TYPE } from '../../lib/projectGroups'
import { LIMITS } from '../../types'

let env: TestEnv
beforeEach(() => {
  localStorage.clear()
  env = setupEnv()
})
afterEach(() => resetDom())

async function mountSidebar() {
  const thesis = await env.fake.createProject({ name: 'Thesis', instructions: 'Cite sources.' })
  const garden = await env.fake.createProject({ name: 'Garden' })
  const at = (m: number) => new Date(Date.UTC(2026, 0, 1, 0, m)).toISOString()
  env.fake.addConversation({ id: 'a', title: 'Chapter 1', project_id: thesis.id, created_at: at(1) })
  env.fake.addConversation({ id: 'b', title: 'Chapter 2', project_id: thesis.id, created_at: at(2) })
  env.fake.addConversation({ id: 'c', title: 'Loose', created_at: at(3) })
  await Promise.all([useProjectsStore().load(), useConversationsStore().load()])
  const w = await mountInBody(ConversationSidebar, env)
  return { w, thesis, garden }
}

const group = (w: VueWrapper, name: string) => w.find(`[data-testid="project-group"][data-project="${name}"]`)
const titlesIn = (el: ReturnType<VueWrapper['find']>) => el.findAll('.conv-title').map((t) => t.text())
const restTitles = (w: VueWrapper) => titlesIn(w.find('[data-testid="recent-list"]'))

describe('the sidebar grouped by project', () => {
  it('shows each project with its conversations and the others by date', async () => {
    const { w } = await mountSidebar()
    expect(w.findAll('[data-testid="project-group"]').map((g) => g.attributes('data-project'))).toEqual(['Garden', 'Thesis'])
    expect(titlesIn(group(w, 'Thesis'))).toEqual(['Chapter 2', 'Chapter 1'])
    expect(group(w, 'Garden').find('[data-testid="project-empty"]').text()).toBe('No conversations in this project yet.')
    expect(restTitles(w)).toEqual(['Loose'])
  })

  it('a project header folds its conversations away, and says so', async () => {
    const { w, thesis } = await mountSidebar()
    const toggle = group(w, 'Thesis').find('[data-testid="project-toggle"]')
    expect(toggle.attributes('aria-expanded')).toBe('true')
    expect(toggle.attributes('aria-controls')).toBe(`project-list-${thesis.id}`)
    await toggle.trigger('click')
    expect(toggle.attributes('aria-expanded')).toBe('false')
    expect((group(w, 'Thesis').find('[data-testid="project-conversations"]').element as HTMLElement).style.display).toBe('none')
    expect(useProjectsStore().isCollapsed(thesis.id)).toBe(true)
  })

  it('"New project" opens the editor; the editor creates the project with its fields', async () => {
    const { w } = await mountSidebar()
    await w.find('[data-testid="new-project"]').trigger('click')
    expect(useProjectsStore().editing).toBe('')
    const editor = await mountInBody(ProjectEditor, env)
    expect(editor.find('[role="dialog"]').attributes('aria-modal')).toBe('true')
    expect(document.activeElement).toBe(editor.find('[data-testid="project-name"]').element)
    expect(editor.find('[data-testid="project-name"]').attributes('maxlength')).toBe(String(LIMITS.maxProjectName))
    expect(editor.find('[data-testid="project-instructions"]').attributes('maxlength')).toBe(String(LIMITS.maxProjectInstructions))

    // No name: said, nothing sent.
    await editor.find('form').trigger('submit')
    expect(editor.find('[data-testid="project-editor-error"]').text()).toBe('Give the project a name.')
    expect(env.fake.callsOf('createProject')).toHaveLength(2) // the two of mountSidebar

    await editor.find('[data-testid="project-name"]').setValue('Launch')
    await editor.find('[data-testid="project-instructions"]').setValue('Answer in French.')
    expect(editor.find('[data-testid="project-instructions-left"]').text()).toBe(`${(LIMITS.maxProjectInstructions - 17).toLocaleString('en')} characters left`)
    await editor.find('form').trigger('submit')
    await settle()
    expect(env.fake.callsOf('createProject').at(-1)).toEqual([{ name: 'Launch', instructions: 'Answer in French.', knowledge: [], profile: '', model: '' }])
    expect(useProjectsStore().editing).toBeNull()
    expect(w.findAll('[data-testid="project-group"]').map((g) => g.attributes('data-project'))).toEqual(['Garden', 'Launch', 'Thesis'])
  })

  it('the editor changes a project; Escape closes it without saving', async () => {
    const { thesis } = await mountSidebar()
    useProjectsStore().openEditor(thesis.id)
    const editor = await mountInBody(ProjectEditor, env)
    expect((editor.find('[data-testid="project-instructions"]').element as HTMLTextAreaElement).value).toBe('Cite sources.')
    await editor.find('[data-testid="project-instructions"]').setValue('Cite every source.')
    await editor.find('[role="dialog"]').trigger('keydown', { key: 'Escape' })
    expect(useProjectsStore().editing).toBeNull()
    expect(env.fake.callsOf('updateProject')).toHaveLength(0)

    useProjectsStore().openEditor(thesis.id)
    const again = await mountInBody(ProjectEditor, env)
    await again.find('[data-testid="project-instructions"]').setValue('Cite every source.')
    await again.find('form').trigger('submit')
    await settle()
    expect(env.fake.callsOf('updateProject')).toEqual([[{ id: thesis.id, name: 'Thesis', instructions: 'Cite every source.', knowledge: [], profile: '', model: '' }]])
  })

  it('renames a project inline from its menu', async () => {
    const { w, thesis } = await mountSidebar()
    await group(w, 'Thesis').find('[data-testid="project-more"]').trigger('click')
    await settle()
    expect(document.activeElement?.getAttribute('data-testid')).toBe('project-menu-new-chat')
    await group(w, 'Thesis').find('[data-testid="project-rename"]').trigger('click')
    await settle()
    const input = group(w, 'Thesis').find('[data-testid="project-rename-input"]')
    expect(document.activeElement).toBe(input.element)
    await input.setValue('Dissertation')
    await input.trigger('keydown', { key: 'Enter' })
    await settle()
    expect(env.fake.callsOf('updateProject')).toEqual([[{ id: thesis.id, name: 'Dissertation' }]])
    expect(group(w, 'Dissertation').exists()).toBe(true)
  })

  it('deleting asks first; "keep its conversations" leaves them in no project', async () => {
    const { w, thesis } = await mountSidebar()
    await group(w, 'Thesis').find('[data-testid="project-more"]').trigger('click')
    await settle()
    await group(w, 'Thesis').find('[data-testid="project-delete"]').trigger('click')
    await settle()
    const confirm = group(w, 'Thesis').find('[data-testid="project-delete-confirm"]')
    expect(confirm.attributes('role')).toBe('alertdialog')
    expect(confirm.text()).toContain('Delete the project “Thesis”?')
    expect(document.activeElement?.getAttribute('data-testid')).toBe('project-delete-cancel')
    await confirm.find('[data-testid="project-delete-cancel"]').trigger('click')
    expect(env.fake.callsOf('deleteProject')).toHaveLength(0)

    await group(w, 'Thesis').find('[data-testid="project-more"]').trigger('click')
    await settle()
    await group(w, 'Thesis').find('[data-testid="project-delete"]').trigger('click')
    await settle()
    await group(w, 'Thesis').find('[data-testid="project-delete-keep"]').trigger('click')
    await settle()
    expect(env.fake.callsOf('deleteProject')).toEqual([[{ id: thesis.id, with_conversations: false }]])
    expect(group(w, 'Thesis').exists()).toBe(false)
    expect(restTitles(w)).toEqual(['Loose', 'Chapter 2', 'Chapter 1'])
  })

  it('deleting with its conversations deletes them too', async () => {
    const { w, thesis } = await mountSidebar()
    await group(w, 'Thesis').find('[data-testid="project-more"]').trigger('click')
    await settle()
    await group(w, 'Thesis').find('[data-testid="project-delete"]').trigger('click')
    await settle()
    await group(w, 'Thesis').find('[data-testid="project-delete-all"]').trigger('click')
    await settle()
    expect(env.fake.callsOf('deleteProject')).toEqual([[{ id: thesis.id, with_conversations: true }]])
    expect(w.findAll('.conv-title').map((t) => t.text())).toEqual(['Loose'])
    expect(env.fake.conversations.has('a')).toBe(false)
  })

  it('moves a conversation into a project and out of it from its menu', async () => {
    const { w, garden, thesis } = await mountSidebar()
    const loose = w.find('[data-testid="recent-list"] [data-testid="conversation-item"]')
    await loose.find('[data-testid="more"]').trigger('click')
    await settle()
    const targets = w.findAll('[data-testid="move-to-project"]')
    expect(targets.map((b) => b.text())).toEqual(['Move to “Garden”', 'Move to “Thesis”'])
    expect(w.find('[data-testid="move-out-of-project"]').exists()).toBe(false)
    await targets[0]!.trigger('click')
    await settle()
    expect(env.fake.callsOf('updateConversation')).toEqual([[{ id: 'c', project_id: garden.id }]])
    expect(titlesIn(group(w, 'Garden'))).toEqual(['Loose'])
    expect(w.find('[data-testid="recent-list"]').exists()).toBe(false)

    const chapter = group(w, 'Thesis').findAll('[data-testid="conversation-item"]')[0]!
    await chapter.find('[data-testid="more"]').trigger('click')
    await settle()
    const out = w.find('[data-testid="move-out-of-project"]')
    expect(out.text()).toBe('Remove from “Thesis”')
    await out.trigger('click')
    await settle()
    expect(env.fake.callsOf('updateConversation').at(-1)).toEqual([{ id: 'b', project_id: '' }])
    expect(titlesIn(group(w, 'Thesis'))).toEqual(['Chapter 1'])
    expect(restTitles(w)).toEqual(['Chapter 2'])
    expect(env.fake.conversations.get('b')!.project_id).toBeUndefined()
    expect(thesis.id).toBeTruthy()
  })

  it('a conversation dropped on a project header moves into it', async () => {
    const { w, garden } = await mountSidebar()
    const data = new Map<string, string>()
    const dataTransfer = {
      get types() {
        return [...data.keys()]
      },
      setData: (k: string, v: string) => data.set(k, v),
      getData: (k: string) => data.get(k) ?? '',
      effectAllowed: 'all',
      dropEffect: 'none',
    }
    await w.find('[data-testid="recent-list"] [data-testid="conversation-open"]').trigger('dragstart', { dataTransfer })
    expect(data.get(CONVERSATION_DRAG_TYPE)).toBe('c')
    const head = group(w, 'Garden').find('.proj-head')
    await head.trigger('dragover', { dataTransfer })
    expect(group(w, 'Garden').classes()).toContain('dropping')
    await head.trigger('drop', { dataTransfer })
    await settle()
    expect(env.fake.callsOf('updateConversation')).toEqual([[{ id: 'c', project_id: garden.id }]])
    expect(titlesIn(group(w, 'Garden'))).toEqual(['Loose'])
  })

  it('"New chat" in a project opens a new chat that starts in it; the header names the project', async () => {
    const { w, thesis } = await mountSidebar()
    const chat = await mountInBody(ChatView, env)
    await group(w, 'Thesis').find('[data-testid="project-new-chat"]').trigger('click')
    await settle()
    expect(w.emitted('new-chat')).toHaveLength(1)
    const conversations = useConversationsStore()
    expect(conversations.currentId).toBeNull()
    expect(conversations.newProject).toBe(thesis.id)
    expect(chat.find('[data-testid="new-chat-project"]').text()).toBe('This chat will be in the project “Thesis”.')
    expect(chat.find('[data-testid="chat-project"]').text()).toContain('Thesis')

    await conversations.send('First question')
    await settle()
    expect(env.fake.callsOf('createConversation').at(-1)).toEqual([{ project_id: thesis.id }])
    expect(chat.find('[data-testid="chat-project"]').text()).toBe('Project: Thesis')
    await chat.find('[data-testid="chat-project"]').trigger('click')
    expect(useProjectsStore().editing).toBe(thesis.id)

    // Plain "New chat" starts in no project.
    await w.find('[data-testid="new-chat"]').trigger('click')
    await settle()
    expect(conversations.newProject).toBe('')
    expect(chat.find('[data-testid="chat-project"]').exists()).toBe(false)
  })

  it('a search shows only the projects with a match, open', async () => {
    const { w, thesis } = await mountSidebar()
    useProjectsStore().setCollapsed(thesis.id, true)
    await useConversationsStore().search('Chapter 2')
    await settle()
    expect(w.findAll('[data-testid="project-group"]').map((g) => g.attributes('data-project'))).toEqual(['Thesis'])
    expect(titlesIn(group(w, 'Thesis'))).toEqual(['Chapter 2'])
    expect(group(w, 'Thesis').find('[data-testid="project-toggle"]').attributes('aria-expanded')).toBe('true')
  })
})
