// Memory (SPEC §14): what Parley remembers across conversations. The list
// of Settings → Memory (with the names of the projects memories belong to),
// kept live by `memory:changed` events, its actions, and what follows an
// answer the user asked to remember ("Answer like this next time").
import { defineStore } from 'pinia'
import type { Card, Memory, MemoryChangedEvent, Question } from '../types'
import { useTransport } from '../transport'
import { memoryOfQuestion } from '../lib/memory'
import { attempt, loadInto } from './asyncState'

/** The keys of `errors` and `busy` that are no memory's id. */
export const ADDING = ''
export const DELETING_ALL = '*'

interface State {
  /** Every memory, newest first. */
  memories: Memory[]
  /** Project names by id (a memory of a project says which). */
  projectNames: Record<string, string>
  loaded: boolean
  loading: boolean
  loadError: string | null
  /** The last error of an action, per memory id (ADDING, DELETING_ALL). */
  errors: Record<string, string | null>
  busy: Record<string, boolean>
  /** The memory Settings → Memory shows first (a card's "See memory"). */
  focusId: string | null
}

/** Loads on their way: only the newest one's answer is kept. */
let loads = 0

export const useMemoryStore = defineStore('memory', {
  state: (): State => ({
    memories: [],
    projectNames: {},
    loaded: false,
    loading: false,
    loadError: null,
    errors: {},
    busy: {},
    focusId: null,
  }),

  getters: {
    byId(state): (id: string) => Memory | undefined {
      return (id) => state.memories.find((m) => m.id === id)
    },
    /** The memory made from a question of a card (its "Remember my answer"), if kept. */
    ofQuestion(state): (questionId: string, q: Question, questionCount: number) => Memory | undefined {
      return (questionId, q, questionCount) => memoryOfQuestion(state.memories, questionId, q, questionCount)
    },
  },

  actions: {
    load(): Promise<void> {
      const n = ++loads
      const stale = () => n !== loads
      return loadInto(this, { loading: 'loading', loaded: 'loaded', error: 'loadError', stale }, async () => {
        const t = useTransport()
        const [list, projects] = await Promise.all([t.memories({}), t.projects().catch(() => null)])
        if (stale()) return
        this.memories = list ?? []
        if (projects) this.projectNames = Object.fromEntries(projects.map((p) => [p.id, p.name]))
      })
    },

    /** Loads the list once (later changes come as events). */
    ensureLoaded(): Promise<void> {
      return this.loaded || this.loading ? Promise.resolve() : this.load()
    },

    /** A `memory:changed` event: the list, once asked for, is read again. */
    onChanged(p: MemoryChangedEvent | null | undefined): void {
      if (!p || typeof p !== 'object') return
      if (this.loaded || this.loading || this.loadError !== null) void this.load()
    },

    put(m: Memory): void {
      const i = this.memories.findIndex((x) => x.id === m.id)
      if (i >= 0) this.memories[i] = m
      else this.memories.unshift(m)
    },

    /** Runs an action, keeping its busy and error fields under `key`; resolves true when it worked. */
    async act(key: string, fn: () => Promise<void>): Promise<boolean> {
      return (await attempt(this, { key, busy: 'busy', error: 'errors' }, fn)).ok
    },

    /** Keeps a memory the user typed (for every conversation). */
    create(text: string): Promise<boolean> {
      return this.act(ADDING, async () => this.put(await useTransport().createMemory({ text })))
    },

    setText(id: string, text: string): Promise<boolean> {
      return this.act(id, async () => this.put(await useTransport().updateMemory({ id, text })))
    },

    /** "Answer like this next time": whether the memory answers the same question by itself. */
    setAutoAnswer(id: string, on: boolean): Promise<boolean> {
      return this.act(id, async () => this.put(await useTransport().updateMemory({ id, auto_answer: on })))
    },

    remove(id: string): Promise<boolean> {
      return this.act(id, async () => {
        await useTransport().deleteMemory({ id })
        this.memories = this.memories.filter((m) => m.id !== id)
      })
    },

    removeAll(): Promise<boolean> {
      return this.act(DELETING_ALL, async () => {
        await useTransport().deleteAllMemories()
        this.memories = []
      })
    },

    /**
     * After an answer was sent with "Remember my answer": reads the memories
     * it made, and marks those of the questions in `autoAnswer` to answer
     * the same question next time. Resolves true when all of them were.
     */
    async afterAnswer(card: Pick<Card, 'question_id' | 'questions'>, autoAnswer: readonly string[]): Promise<boolean> {
      // The list as it is now (respond made the memories before it
      // answered), read here rather than through load(): a load started
      // by the memory:changed event makes this one's result stale, and the
      // answer's memories would not be found.
      let list: Memory[]
      try {
        list = (await useTransport().memories({})) ?? []
      } catch {
        list = []
      }
      let ok = true
      for (const text of autoAnswer) {
        const q = card.questions.find((x) => x.question === text)
        const m = q && memoryOfQuestion(list, card.question_id, q, card.questions.length)
        if (!m) ok = false
        else if (!m.auto_answer && !(await this.setAutoAnswer(m.id, true))) ok = false
      }
      await this.load() // the card's marks show what was kept
      return ok
    },
  },
})
