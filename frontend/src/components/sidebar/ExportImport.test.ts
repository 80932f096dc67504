import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { mount, type VueWrapper } from '@vue/test-utils'
import ConversationSidebar from './ConversationSidebar.vue'
import { exportFileName } from './exportFile'
import { setupEnv, settle, type TestEnv } from '../../test-utils'
import { useConversationsStore } from '../../stores/conversations'
import { OPEN_WINDOW, useChatStore } from '../../stores/chat'
import { connectEvents } from '../../stores/events'

let env: TestEnv
let w: VueWrapper | null = null
let off: (() => void) | null = null

/** What the page "downloaded": the anchor's file name and the blob behind its URL. */
interface Download {
  name: string
  href: string
  blob: Blob
}
let downloads: Download[] = []
const blobs = new Map<string, Blob>()

beforeEach(() => {
  env = setupEnv()
  downloads = []
  blobs.clear()
  let n = 0
  // jsdom has no object URLs and does not navigate on click: record instead.
  URL.createObjectURL = vi.fn((b: Blob | MediaSource) => {
    const url = `blob:test/${++n}`
    blobs.set(url, b as Blob)
    return url
  })
  URL.revokeObjectURL = vi.fn()
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    downloads.push({ name: this.download, href: this.href, blob: blobs.get(this.href)! })
  })
})
afterEach(() => {
  w?.unmount()
  w = null
  off?.()
  off = null
  document.body.innerHTML = ''
  vi.restoreAllMocks()
})

async function mountSidebar() {
  const a = env.fake.addConversation({ id: 'c0', title: 'Trip to Lisbon', updated_at: '2026-01-01T00:00:00.000Z' })
  env.fake.addMessage(a.id, { role: 'user', content: 'Plan four days in Lisbon' })
  env.fake.addMessage(a.id, { role: 'assistant', content: 'Day 1: Alfama.' })
  off = connectEvents()
  await useConversationsStore().load()
  w = mount(ConversationSidebar, { global: { plugins: [env.pinia] }, attachTo: document.body })
  await settle()
  return w
}

async function openMenu(s: VueWrapper) {
  const more = s.find('[data-testid="more"]')
  expect(more.attributes('aria-haspopup')).toBe('menu')
  expect(more.attributes('aria-label')).toBe('More actions for Trip to Lisbon')
  await more.trigger('click')
  await settle()
  return s.find('[data-testid="conversation-menu"]')
}

/** Chooses a file in the (hidden) import file input. */
async function chooseFile(s: VueWrapper, name: string, text: string) {
  const input = s.find('[data-testid="import-file"]')
  const file = new File([text], name, { type: 'application/json' })
  Object.defineProperty(input.element, 'files', { value: [file], configurable: true })
  await input.trigger('change')
  await settle()
  await settle()
}

const titles = (s: VueWrapper) => s.findAll('.conv-title').map((t) => t.text())

describe('export from the conversation menu', () => {
  it('offers Markdown and JSON in an accessible menu that Esc closes', async () => {
    const s = await mountSidebar()
    const menu = await openMenu(s)
    expect(menu.attributes('role')).toBe('menu')
    expect(menu.findAll('[role="menuitem"]').map((i) => i.text())).toEqual(['Export as Markdown', 'Export as JSON'])
    expect(s.find('[data-testid="more"]').attributes('aria-expanded')).toBe('true')
    expect(document.activeElement).toBe(menu.find('[role="menuitem"]').element)
    await menu.trigger('keydown', { key: 'ArrowDown' })
    expect(document.activeElement).toBe(menu.findAll('[role="menuitem"]')[1]!.element)
    await menu.trigger('keydown', { key: 'Escape' })
    await settle()
    expect(s.find('[data-testid="conversation-menu"]').exists()).toBe(false)
    expect(document.activeElement).toBe(s.find('[data-testid="more"]').element)
  })

  it('"Export as Markdown" downloads <title>.md with the exported text', async () => {
    const s = await mountSidebar()
    const menu = await openMenu(s)
    await menu.find('[data-testid="export-markdown"]').trigger('click')
    await settle()
    expect(env.fake.callsOf('exportConversation')).toEqual([[{ id: 'c0', format: 'markdown' }]])
    expect(downloads).toHaveLength(1)
    expect(downloads[0]!.name).toBe('Trip to Lisbon.md')
    expect(downloads[0]!.blob.type).toBe('text/markdown;charset=utf-8')
    expect(await downloads[0]!.blob.text()).toBe(env.fake.exportText('c0', 'markdown'))
    expect(await downloads[0]!.blob.text()).toContain('Plan four days in Lisbon')
    expect(s.find('[data-testid="conversation-menu"]').exists()).toBe(false)
    expect(document.querySelector('a[download]')).toBeNull() // the helper link is gone
  })

  it('"Export as JSON" downloads <title>.json in the Parley export format', async () => {
    const s = await mountSidebar()
    await (await openMenu(s)).find('[data-testid="export-json"]').trigger('click')
    await settle()
    expect(env.fake.callsOf('exportConversation')).toEqual([[{ id: 'c0', format: 'json' }]])
    expect(downloads.map((d) => d.name)).toEqual(['Trip to Lisbon.json'])
    const doc = JSON.parse(await downloads[0]!.blob.text())
    expect(doc.format).toBe('parley.conversation')
    expect(doc.messages.map((m: { content: string }) => m.content)).toEqual(['Plan four days in Lisbon', 'Day 1: Alfama.'])
  })

  it('shows an export error and downloads nothing', async () => {
    const s = await mountSidebar()
    env.fake.failNext('exportConversation', 'not found', 404)
    await (await openMenu(s)).find('[data-testid="export-json"]').trigger('click')
    await settle()
    expect(downloads).toEqual([])
    expect(s.find('[role="alert"]').text()).toBe("Couldn't export: not found")
  })

  it('in the desktop app the Go side saves the file: no download, a note where it went', async () => {
    env.fake.nativeFileDialogs = true
    const s = await mountSidebar()
    await (await openMenu(s)).find('[data-testid="export-json"]').trigger('click')
    await settle()
    expect(env.fake.callsOf('exportConversation')).toEqual([[{ id: 'c0', format: 'json' }]])
    expect(downloads).toEqual([])
    expect(s.find('[data-testid="sidebar-notice"]').text()).toBe('Exported to /home/user/Documents/conversation.json')

    env.fake.savedDir = null // the user cancelled the save dialog
    await (await openMenu(s)).find('[data-testid="export-markdown"]').trigger('click')
    await settle()
    expect(downloads).toEqual([])
    expect(s.find('[data-testid="sidebar-notice"]').exists()).toBe(false)
    expect(s.find('[role="alert"]').exists()).toBe(false)
  })

  it('names files safely after the title', () => {
    expect(exportFileName('Trip to Lisbon', 'markdown')).toBe('Trip to Lisbon.md')
    expect(exportFileName('a/b: c? <d>|"e"', 'json')).toBe('a b c d e.json')
    expect(exportFileName('  ..hidden. ', 'json')).toBe('hidden.json')
    expect(exportFileName('', 'markdown')).toBe('conversation.md')
    expect(exportFileName('x'.repeat(300), 'json')).toBe('x'.repeat(100) + '.json')
  })
})

describe('import from the sidebar', () => {
  it('imports a JSON export and opens the imported conversation with its messages', async () => {
    const s = await mountSidebar()
    const file = env.fake.exportText('c0', 'json')
    const input = s.find('[data-testid="import-file"]')
    expect(input.attributes('accept')).toBe('.json,application/json')
    expect(input.attributes('aria-label')).toContain('Conversation file to import')
    // the button opens the file picker
    const click = vi.spyOn(input.element as HTMLInputElement, 'click').mockImplementation(() => {})
    await s.find('[data-testid="import-conversation"]').trigger('click')
    expect(click).toHaveBeenCalledOnce()

    await chooseFile(s, 'Trip to Lisbon.json', file)
    expect(env.fake.callsOf('importConversation')).toEqual([[{ data: file }]])
    const store = useConversationsStore()
    const id = store.currentId!
    expect(id).not.toBe('c0')
    expect(env.fake.callsOf('getConversation')).toContainEqual([{ id: id, last: OPEN_WINDOW }])
    expect(useChatStore().messagesFor(id).map((m) => m.content)).toEqual(['Plan four days in Lisbon', 'Day 1: Alfama.'])
    expect(titles(s).sort()).toEqual(['Trip to Lisbon', 'Trip to Lisbon (imported)'])
    expect(s.findAll('[data-testid="conversation-open"]').filter((b) => b.attributes('aria-current') === 'page')).toHaveLength(1)
    expect(s.find('[data-testid="sidebar-notice"]').text()).toBe('Imported “Trip to Lisbon (imported)”.')
    expect(s.find('[data-testid="import-error"]').exists()).toBe(false)
  })

  it('a file that is not JSON shows a clear error and changes nothing', async () => {
    const s = await mountSidebar()
    await useConversationsStore().select('c0')
    await chooseFile(s, 'notes.json', 'this is not json {')
    const err = s.find('[data-testid="import-error"]')
    expect(err.attributes('role')).toBe('alert')
    expect(err.text()).toContain('Couldn\'t import “notes.json”: it is not valid JSON')
    expect(env.fake.callsOf('importConversation')).toEqual([])
    expect(env.fake.conversations.size).toBe(1)
    expect(titles(s)).toEqual(['Trip to Lisbon'])
    expect(useConversationsStore().currentId).toBe('c0')
    // dismissable
    await err.find('button').trigger('click')
    expect(s.find('[data-testid="import-error"]').exists()).toBe(false)
  })

  it('JSON the backend refuses shows its reason and adds nothing', async () => {
    const s = await mountSidebar()
    await chooseFile(s, 'other.json', '{"format":"something.else","version":1}')
    expect(env.fake.callsOf('importConversation')).toHaveLength(1)
    expect(s.find('[data-testid="import-error"]').text()).toContain(
      'Couldn\'t import “other.json”: import conversation: invalid conversation export: format is "something.else", want "parley.conversation"',
    )
    expect(env.fake.conversations.size).toBe(1)
    expect(titles(s)).toEqual(['Trip to Lisbon'])
  })

  it('in the desktop app the Go side asks for the file', async () => {
    env.fake.nativeFileDialogs = true
    const s = await mountSidebar()
    expect(s.find('[data-testid="import-file"]').exists()).toBe(false)
    env.fake.nextImportFile = null // cancelled
    await s.find('[data-testid="import-conversation"]').trigger('click')
    await settle()
    expect(env.fake.callsOf('chooseConversationFile')).toEqual([[]])
    expect(env.fake.callsOf('importConversation')).toEqual([])
    expect(s.find('[data-testid="import-error"]').exists()).toBe(false)
    expect(titles(s)).toEqual(['Trip to Lisbon'])

    env.fake.nextImportFile = env.fake.exportText('c0', 'json')
    await s.find('[data-testid="import-conversation"]').trigger('click')
    await settle()
    await settle()
    expect(titles(s).sort()).toEqual(['Trip to Lisbon', 'Trip to Lisbon (imported)'])
    expect(useConversationsStore().currentId).not.toBe('c0')
    expect(env.fake.callsOf('importConversation')).toEqual([[{ data: env.fake.nextImportFile }]])
  })
})

describe('the assistant profile of new chats', () => {
  it('is chosen in the sidebar and used when the chat is created', async () => {
    env.fake.storedProfiles.set('Reviewer', { name: 'Reviewer', system_prompt: 'Review.', model: '', tools: [] })
    const s = await mountSidebar()
    const select = s.find('[data-testid="new-chat-assistant"]')
    expect(document.querySelector(`label[for="${select.attributes('id')}"]`)!.textContent).toBe('Assistant for new chats')
    expect(select.findAll('option').map((o) => o.text())).toEqual(['Default', 'Reviewer'])
    await select.setValue('Reviewer')
    await useConversationsStore().create()
    await settle()
    expect(env.fake.callsOf('createConversation')).toEqual([[{ assistant: 'Reviewer' }]])
    const tag = s.find('[data-testid="conversation-assistant"]')
    expect(tag.text()).toContain('Reviewer')
  })

  it('is hidden when there is only the default profile', async () => {
    const s = await mountSidebar()
    expect(s.find('[data-testid="new-chat-assistant"]').exists()).toBe(false)
    await useConversationsStore().create()
    expect(env.fake.callsOf('createConversation')).toEqual([[{}]])
  })
})
