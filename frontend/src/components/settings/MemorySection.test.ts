// Settings → Memory (SPEC §14) against the fake transport: the list with
// where each memory came from, search, edit in place, "Answer like this
// next time", delete one, delete all after a confirmation, add by typing,
// the on/off switch in the shared form, and a card's "See memory".
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mount, type VueWrapper } from '@vue/test-utils'
import { defineComponent, h } from 'vue'
import MemorySection from './MemorySection.vue'
import { provideSettingsForm, type SettingsForm } from './settingsForm'
import type { Memory } from '../../types'
import { settle, setupEnv, type TestEnv } from '../../test-utils'
import { useMemoryStore } from '../../stores/memory'
import { useConversationsStore } from '../../stores/conversations'
import { useSettingsStore } from '../../stores/settings'

let env: TestEnv
let w: VueWrapper | null = null
let form: SettingsForm['form']
beforeEach(() => {
  env = setupEnv()
})
afterEach(() => {
  w?.unmount()
  w = null
  document.body.innerHTML = ''
})

const at = (m: number) => new Date(Date.UTC(2026, 0, 1, 0, m)).toISOString()
function memory(partial: Partial<Memory> & Pick<Memory, 'id' | 'text'>): Memory {
  return { source: { type: 'user' }, project_id: null, auto_answer: false, created_at: at(1), used_at: null, ...partial }
}

async function mountSection() {
  const Host = defineComponent({
    setup() {
      form = provideSettingsForm().form
      return () => h(MemorySection)
    },
  })
  w = mount(Host, { global: { plugins: [env.pinia] }, attachTo: document.body })
  await settle()
  return w
}

const items = () => w!.findAll('[data-testid="memory-item"]')
const texts = () => w!.findAll('[data-testid="memory-text"]').map((x) => x.text())

async function withMemories() {
  env.fake.addConversation({ id: 'c1', title: 'Team note' })
  await useConversationsStore().load()
  const p = await env.fake.createProject({ name: 'Thesis' })
  env.fake.storedMemories = [
    memory({ id: 'm3', text: 'Tone: What tone? — Friendly', source: { type: 'answer', conversationId: 'c1', question_id: 'q1' }, auto_answer: true, used_at: at(5) }),
    memory({ id: 'm2', text: 'The thesis is due in May.', source: { type: 'model', conversationId: 'gone' }, project_id: p.id }),
    memory({ id: 'm1', text: 'I write Go.' }),
  ]
}

describe('Settings → Memory', () => {
  it('lists each memory with its source, project, dates and, for an answer, "Answer like this next time"', async () => {
    await withMemories()
    await mountSection()
    expect(texts()).toEqual(['Tone: What tone? — Friendly', 'The thesis is due in May.', 'I write Go.'])
    const sources = w!.findAll('[data-testid="memory-source"]').map((x) => x.text().replace(/\s+/g, ' '))
    expect(sources).toEqual(['From your answer in Team note', 'Proposed by the assistant in a conversation · Project: Thesis', 'Added by you'])
    expect(items()[0]!.find('[data-testid="memory-dates"]').text()).toMatch(/^Added .+ · last used .+$/)
    expect(items()[2]!.find('[data-testid="memory-dates"]').text()).toMatch(/not used yet$/)
    // Only a remembered answer can answer by itself.
    expect(items().map((i) => i.find('[data-testid="memory-auto-answer"]').exists())).toEqual([true, false, false])
    expect(items()[0]!.find<HTMLInputElement>('[data-testid="memory-auto-answer"]').element.checked).toBe(true)
    expect(w!.find('[data-testid="memory-count"]').text()).toBe('3 memories')
  })

  it('the source links to its conversation (Settings closes)', async () => {
    await withMemories()
    useSettingsStore().openPanel('memory')
    await mountSection()
    await w!.find('[data-testid="memory-conversation"]').trigger('click')
    await settle()
    expect(useSettingsStore().panelOpen).toBe(false)
    expect(useConversationsStore().currentId).toBe('c1')
  })

  it('search filters by every word, any case', async () => {
    await withMemories()
    await mountSection()
    await w!.find('[data-testid="memory-search"]').setValue('thesis MAY')
    expect(texts()).toEqual(['The thesis is due in May.'])
    expect(w!.find('[data-testid="memory-count"]').text()).toBe('1 of 3 memories matches')
    await w!.find('[data-testid="memory-search"]').setValue('nothing like it')
    expect(w!.find('[data-testid="memory-none-match"]').exists()).toBe(true)
  })

  it('edits a memory in place: Enter saves, Escape leaves the editor without leaving Settings', async () => {
    await withMemories()
    await mountSection()
    await items()[2]!.find('[data-testid="memory-edit"]').trigger('click')
    const area = w!.find<HTMLTextAreaElement>('[data-testid="memory-edit-text"]')
    expect(area.element.value).toBe('I write Go.')
    expect(document.activeElement).toBe(area.element)
    await area.setValue('I write Go and Rust.')
    const esc = new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, cancelable: true })
    area.element.dispatchEvent(esc)
    await settle()
    expect(esc.defaultPrevented).toBe(true)
    expect(env.fake.callsOf('updateMemory')).toEqual([])
    expect(texts()[2]).toBe('I write Go.')
    await items()[2]!.find('[data-testid="memory-edit"]').trigger('click')
    await w!.find('[data-testid="memory-edit-text"]').setValue('I write Go and Rust.')
    await w!.find('[data-testid="memory-edit-text"]').trigger('keydown', { key: 'Enter' })
    await settle()
    expect(env.fake.callsOf('updateMemory')).toEqual([[{ id: 'm1', text: 'I write Go and Rust.' }]])
    expect(texts()[2]).toBe('I write Go and Rust.')
  })

  it('turns "Answer like this next time" off and on', async () => {
    await withMemories()
    await mountSection()
    await items()[0]!.find('[data-testid="memory-auto-answer"]').setValue(false)
    await settle()
    expect(env.fake.callsOf('updateMemory')).toEqual([[{ id: 'm3', auto_answer: false }]])
    expect(env.fake.storedMemories[0]!.auto_answer).toBe(false)
  })

  it('deletes one, then all after a confirmation that can be declined', async () => {
    await withMemories()
    await mountSection()
    await items()[1]!.find('[data-testid="memory-delete"]').trigger('click')
    await settle()
    expect(env.fake.callsOf('deleteMemory')).toEqual([[{ id: 'm2' }]])
    expect(texts()).toEqual(['Tone: What tone? — Friendly', 'I write Go.'])
    await w!.find('[data-testid="memory-delete-all"]').trigger('click')
    expect(w!.find('[data-testid="memory-delete-all-confirm"]').text()).toContain('Delete all 2 memories?')
    expect(document.activeElement).toBe(w!.find('[data-testid="memory-delete-all-keep"]').element)
    await w!.find('[data-testid="memory-delete-all-keep"]').trigger('click')
    expect(env.fake.callsOf('deleteAllMemories')).toEqual([])
    await w!.find('[data-testid="memory-delete-all"]').trigger('click')
    await w!.find('[data-testid="memory-delete-all-confirm-button"]').trigger('click')
    await settle()
    expect(env.fake.callsOf('deleteAllMemories')).toEqual([[]])
    expect(w!.find('[data-testid="memory-empty"]').exists()).toBe(true)
  })

  it('adds a memory by typing (Enter adds, Shift+Enter does not); nothing while memory is off', async () => {
    await mountSection()
    expect(w!.find('[data-testid="memory-empty"]').exists()).toBe(true)
    const input = w!.find('[data-testid="memory-new-text"]')
    await input.setValue('I prefer short answers.')
    await input.trigger('keydown', { key: 'Enter', shiftKey: true })
    expect(env.fake.callsOf('createMemory')).toEqual([])
    await input.trigger('keydown', { key: 'Enter' })
    await settle()
    expect(env.fake.callsOf('createMemory')).toEqual([[{ text: 'I prefer short answers.' }]])
    expect(texts()).toEqual(['I prefer short answers.'])
    expect((input.element as HTMLTextAreaElement).value).toBe('')

    // Too long: the counter says so and Add is off.
    await input.setValue('x'.repeat(501))
    expect(w!.find('[data-testid="memory-add"]').attributes('disabled')).toBeDefined()
    expect(w!.find('#memory-new-foot .counter').classes()).toContain('over')

    // Saved off: adding is off, and says why.
    useSettingsStore().settings = { ...env.fake.settings, memory: 'off' }
    await settle()
    expect(w!.find('[data-testid="memory-new-text"]').attributes('disabled')).toBeDefined()
    expect(w!.find('#memory-new-foot').text()).toContain('Memory is off')
  })

  it('the switch edits the shared form (saved with Save), and says what off means', async () => {
    await mountSection()
    const sw = w!.find<HTMLInputElement>('[data-testid="memory-enabled"]')
    expect(sw.element.checked).toBe(true)
    expect(document.getElementById(sw.attributes('aria-describedby')!)!.textContent).toContain('keeps nothing new')
    await sw.setValue(false)
    expect(form.memory).toBe('off')
    await sw.setValue(true)
    expect(form.memory).toBe('on')
  })

  it('a card’s "See memory" shows that memory first: search cleared, focused', async () => {
    await withMemories()
    const store = useMemoryStore()
    store.focusId = 'm1'
    await mountSection()
    await settle()
    expect(document.activeElement?.getAttribute('data-memory-id')).toBe('m1')
    expect(items()[2]!.classes()).toContain('focused')
  })

  it('follows memory:changed while open', async () => {
    const { connectEvents } = await import('../../stores/events')
    const off = connectEvents()
    try {
      await mountSection()
      env.fake.storedMemories = [memory({ id: 'm9', text: 'Remembered elsewhere.' })]
      env.fake.emit('memory:changed', { conversationId: 'c1', ids: ['m9'] })
      await settle()
      expect(texts()).toEqual(['Remembered elsewhere.'])
    } finally {
      off()
    }
  })
})
