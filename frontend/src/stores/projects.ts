// Projects (SPEC §14): the list, creating, changing and deleting them, the
// editor that is open (if any), and which project groups the sidebar shows
// collapsed. project:changed (from Go, whoever made the change) keeps the
// list current; the conversations store keeps which conversation is in
// which project (conversation:updated carries project_id).
import { defineStore } from 'pinia'
import type { Project, ProjectChangedEvent, ProjectRequest } from '../types'
import { useTransport } from '../transport'
import { useConversationsStore } from './conversations'
import { attempt, loadInto } from './asyncState'
import { t } from '../i18n'

/** Where the collapsed groups are remembered (one browser profile, one app). */
export const COLLAPSED_KEY = 'parley.projects.collapsed'

interface State {
  items: Project[]
  loading: boolean
  loaded: boolean
  error: string | null
  /** Error of the last rename / delete / move in the sidebar. */
  actionError: string | null
  /** The editor: a project's id, '' for a new project, null when closed. */
  editing: string | null
  saving: boolean
  /** Why the editor's last save failed. */
  editorError: string | null
  /** Project ids whose sidebar group is collapsed. */
  collapsed: Record<string, true>
}

function byName(a: Project, b: Project): number {
  return a.name.localeCompare(b.name, undefined, { sensitivity: 'base' }) || (a.created_at ?? '').localeCompare(b.created_at ?? '')
}

function readCollapsed(): Record<string, true> {
  try {
    const ids = JSON.parse(globalThis.localStorage?.getItem(COLLAPSED_KEY) ?? '[]')
    if (!Array.isArray(ids)) return {}
    return Object.fromEntries(ids.filter((x): x is string => typeof x === 'string').map((id) => [id, true as const]))
  } catch {
    return {}
  }
}

function writeCollapsed(collapsed: Record<string, true>): void {
  try {
    globalThis.localStorage?.setItem(COLLAPSED_KEY, JSON.stringify(Object.keys(collapsed)))
  } catch {
    // private mode, full storage: the groups open again next time
  }
}

export const useProjectsStore = defineStore('projects', {
  state: (): State => ({
    items: [],
    loading: false,
    loaded: false,
    error: null,
    actionError: null,
    editing: null,
    saving: false,
    editorError: null,
    collapsed: readCollapsed(),
  }),

  getters: {
    byId(state) {
      return (id: string | undefined | null): Project | undefined => (id ? state.items.find((p) => p.id === id) : undefined)
    },
    /** The project open in the editor (undefined for a new one, or when closed). */
    editedProject(state): Project | undefined {
      return state.editing ? state.items.find((p) => p.id === state.editing) : undefined
    },
    isCollapsed(state) {
      return (id: string): boolean => !!state.collapsed[id]
    },
  },

  actions: {
    load(): Promise<void> {
      return loadInto(this, { loading: 'loading', loaded: 'loaded', error: 'error' }, async () => {
        this.items = (await useTransport().projects()).sort(byName)
      })
    },

    /** Adds or replaces a project in the list (kept by name). */
    upsert(p: Project): void {
      this.items = [...this.items.filter((x) => x.id !== p.id), p].sort(byName)
    },

    /** Drops a deleted project; its conversations are left in no project. */
    forget(id: string): void {
      this.items = this.items.filter((p) => p.id !== id)
      if (this.collapsed[id]) {
        delete this.collapsed[id]
        writeCollapsed(this.collapsed)
      }
      if (this.editing === id) this.closeEditor()
      useConversationsStore().leftProject(id)
    },

    /** Creates a project; null when refused (editorError says why). */
    async create(req: ProjectRequest): Promise<Project | null> {
      const failed = (err: Error) => t('projects.errors.save', { error: err.message })
      const done = await attempt(this, { busy: 'saving', error: 'editorError', failed }, async () => {
        const p = await useTransport().createProject(req)
        this.upsert(p)
        this.setCollapsed(p.id, false)
        return p
      })
      return done.ok ? done.value : null
    },

    /** Changes a project's fields; null when refused (editorError says why). */
    async update(id: string, req: ProjectRequest): Promise<Project | null> {
      const failed = (err: Error) => t('projects.errors.save', { error: err.message })
      const done = await attempt(this, { busy: 'saving', error: 'editorError', failed }, async () => {
        const p = await useTransport().updateProject({ id, ...req })
        this.upsert(p)
        return p
      })
      return done.ok ? done.value : null
    },

    /** Renames a project from the sidebar (shown at once; put back when refused). */
    async rename(id: string, name: string): Promise<boolean> {
      const item = this.items.find((p) => p.id === id)
      const next = name.trim()
      if (!item || !next || next === item.name) return false
      const before = item.name
      item.name = next
      const failed = (err: Error) => {
        item.name = before
        return t('projects.errors.rename', { error: err.message })
      }
      const done = await attempt(this, { error: 'actionError', failed }, async () => {
        this.upsert(await useTransport().updateProject({ id, name: next }))
      })
      return done.ok
    },

    /**
     * Deletes a project. Its conversations stay, out of any project, unless
     * `withConversations`: then they are deleted too.
     */
    async remove(id: string, withConversations: boolean): Promise<boolean> {
      const conversations = useConversationsStore()
      const inside = conversations.items.filter((c) => c.project_id === id).map((c) => c.id)
      const failed = (err: Error) => t('projects.errors.delete', { error: err.message })
      const done = await attempt(this, { error: 'actionError', failed }, async () => {
        await useTransport().deleteProject({ id, with_conversations: withConversations })
      })
      if (!done.ok) return false
      if (withConversations) for (const c of inside) conversations.forgetDeleted(c)
      this.forget(id)
      return true
    },

    setCollapsed(id: string, collapsed: boolean): void {
      if (collapsed === !!this.collapsed[id]) return
      if (collapsed) this.collapsed[id] = true
      else delete this.collapsed[id]
      writeCollapsed(this.collapsed)
    },

    toggle(id: string): void {
      this.setCollapsed(id, !this.collapsed[id])
    },

    /** Opens the editor: a project's id, or '' for a new project. */
    openEditor(id: string): void {
      this.editorError = null
      this.editing = id
    },

    closeEditor(): void {
      this.editing = null
      this.editorError = null
    },

    // ---- events --------------------------------------------------------------

    /** project:changed: a project was created, changed or deleted (here or by another client). */
    onChanged(p: ProjectChangedEvent): void {
      if (!p?.id) return
      if (p.deleted || !p.project) this.forget(p.id)
      else this.upsert(p.project)
    },
  },
})
