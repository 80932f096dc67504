// Conversation control (SPEC §7), as actions of the chat store (spread into
// it in ./chat.ts): editing a sent message, regenerating a reply (also with
// another model), switching branches and changing a card's answer.
//
// Each call cuts the shown path where the new branch starts before it goes
// out, so the events of the new branch land on the right path, and puts the
// old path back when it fails: nothing the user wrote is lost.
import { shallowReactive } from 'vue'
import type { Answers, ConversationDetail, Message, ModelInfo, RunState } from '../types'
import { useTransport, type TransportError } from '../transport'
import { BUSY_TEXT, branchErrorText, pathBefore, pathThrough } from '../lib/branches'
import { useQuestionsStore } from './questions'
import { t } from '../i18n'
import { attempt, loadInto } from './asyncState'
import { OPEN_WINDOW } from './conversationWindow'

export interface BranchState {
  /** The user message being edited in place, per conversation. */
  editing: Record<string, string | null>
  /** The text of each message being edited (kept when sending it fails). */
  editDrafts: Record<string, string>
  /** Why changing a card's answer failed, per question_id. */
  forkErrors: Record<string, string | null>
  /** A changed answer is on its way, per question_id. */
  forking: Record<string, boolean>
  /** Installed models for "Regenerate with…" (loaded when first needed). */
  models: ModelInfo[]
  modelsError: string | null
  /**
   * A regenerated reply on its way, per conversation: the path shown before
   * (put back when the run ends without storing a message, as Go puts the
   * old reply back), its run (empty until the request answered; the run's
   * events may come first) and what to regenerate again on Retry.
   */
  regenerating: Record<string, PendingRegenerate | undefined>
  /** A regenerate whose run failed: Retry regenerates it again. */
  retryRegenerate: Record<string, { messageId: string; model?: string } | undefined>
}

interface PendingRegenerate {
  runId: string
  before: Message[]
  messageId: string
  model?: string
}

export function branchState(): BranchState {
  return { editing: {}, editDrafts: {}, forkErrors: {}, forking: {}, models: [], modelsError: null, regenerating: {}, retryRegenerate: {} }
}

/** What of the chat store the actions use. */
interface Host extends BranchState {
  messages: Record<string, Message[]>
  runStates: Record<string, RunState>
  errors: Record<string, string | null>
  lastUserText: Record<string, string>
  isBusy(conversationId: string | null | undefined): boolean
  listOf(conversationId: string): Message[]
  updateMessage(conversationId: string, messageId: string, patch: Partial<Message>): void
  applyDetail(d: ConversationDetail): void
  startEdit(conversationId: string, messageId: string): boolean
  regenerate(conversationId: string, messageId: string, model?: string): Promise<boolean>
  beginBranch(conversationId: string, path: Message[]): () => void
}

let localSeq = 0

export const branchActions = {
  /** Opens the in-place editor of a user message (false while a run is active). */
  startEdit(this: Host, conversationId: string, messageId: string): boolean {
    const m = this.listOf(conversationId).find((x) => x.id === messageId)
    if (!m || m.role !== 'user' || m.local || this.isBusy(conversationId)) return false
    this.editing[conversationId] = messageId
    this.editDrafts[messageId] = this.editDrafts[messageId] ?? m.content
    return true
  },

  cancelEdit(this: Host, conversationId: string): void {
    const id = this.editing[conversationId]
    if (id) delete this.editDrafts[id]
    this.editing[conversationId] = null
  },

  /** Edits the last message the user sent (the shortcut: Up in an empty composer). */
  editLastUserMessage(this: Host, conversationId: string): boolean {
    const last = [...this.listOf(conversationId)].reverse().find((m) => m.role === 'user' && !m.local)
    return !!last && this.startEdit(conversationId, last.id)
  },

  /**
   * Sends `content` in place of the user message `messageId`: a new
   * sibling under the same parent, which becomes the visible branch.
   */
  async editMessage(this: Host, conversationId: string, messageId: string, content: string): Promise<boolean> {
    const id = conversationId
    const text = content.trim()
    const list = this.listOf(id)
    const old = list.find((m) => m.id === messageId)
    if (!text || !old) return false
    if (this.isBusy(id)) {
      this.errors[id] = BUSY_TEXT
      return false
    }
    const local: Message = {
      id: `local-edit-${Date.now().toString(36)}-${++localSeq}`,
      conversationId: id,
      role: 'user',
      content: text,
      created_at: new Date().toISOString(),
      parent_id: old.parent_id,
      siblings: old.siblings + 1,
      sibling_index: old.siblings,
      local: 'sending',
      // The new version keeps the files of the one it replaces.
      ...(old.attachments?.length ? { attachments: old.attachments } : {}),
    }
    const restore = this.beginBranch(id, [...pathBefore(list, messageId), local])
    this.editing[id] = null
    const failed = (e: TransportError) => {
      restore()
      this.editing[id] = messageId
      this.editDrafts[messageId] = content
      return branchErrorText('send your edited message', e)
    }
    const done = await attempt(this, { key: id, error: 'errors', failed }, async () => {
      await useTransport().send({ id, content: text, parent_id: old.parent_id, ...(old.attachments?.length ? { attachments: old.attachments } : {}) })
      this.updateMessage(id, local.id, { local: 'sent' })
      delete this.editDrafts[messageId]
      this.lastUserText[id] = text
    })
    return done.ok
  },

  /** A new reply beside the reply that `messageId` belongs to, by `model` when given. */
  async regenerate(this: Host, conversationId: string, messageId: string, model?: string): Promise<boolean> {
    const id = conversationId
    const list = this.listOf(id)
    const at = list.findIndex((m) => m.id === messageId)
    if (at < 0) return false
    if (this.isBusy(id)) {
      this.errors[id] = BUSY_TEXT
      return false
    }
    const user = list.slice(0, at).reverse().find((m) => m.role === 'user')
    const pending: PendingRegenerate = { runId: '', before: list, messageId, ...(model ? { model } : {}) }
    const restore = this.beginBranch(id, user ? pathThrough(list, user.id) : [...list])
    this.regenerating[id] = pending
    delete this.retryRegenerate[id]
    const failed = (e: TransportError) => {
      if (this.regenerating[id] === pending) delete this.regenerating[id]
      restore()
      return branchErrorText('regenerate the reply', e)
    }
    const done = await attempt(this, { key: id, error: 'errors', failed }, async () => {
      const { run_id } = await useTransport().regenerate({ id, message_id: messageId, ...(model ? { model } : {}) })
      pending.runId = run_id ?? ''
    })
    return done.ok
  },

  /** A message of the run arrived: the regenerated reply is there to stay. */
  regenerateStored(this: Host, conversationId: string, runId: string | undefined): void {
    const pending = this.regenerating[conversationId]
    if (pending && (!pending.runId || !runId || pending.runId === runId)) delete this.regenerating[conversationId]
  },

  /**
   * The run of a regenerate ended before it stored a message (the model
   * failed, or the user stopped it): the old reply is shown again (Go has
   * put it back on the visible path too), and Retry regenerates again.
   * Returns whether it did so.
   */
  regenerateUnstored(this: Host, conversationId: string, runId: string | undefined, failed: boolean): boolean {
    const pending = this.regenerating[conversationId]
    if (!pending || (pending.runId && runId && pending.runId !== runId)) return false
    delete this.regenerating[conversationId]
    this.messages[conversationId] = pending.before
    if (failed) this.retryRegenerate[conversationId] = { messageId: pending.messageId, ...(pending.model ? { model: pending.model } : {}) }
    return true
  },

  /** Regenerates the newest reply of the conversation (the shortcut). */
  regenerateLast(this: Host, conversationId: string, model?: string): Promise<boolean> {
    const last = [...this.listOf(conversationId)].reverse().find((m) => m.role === 'assistant' && !m.id.startsWith('partial-'))
    return last ? this.regenerate(conversationId, last.id, model) : Promise.resolve(false)
  },

  /** Shows the branch through `messageId` (the < 2/3 > switch). */
  async selectBranch(this: Host, conversationId: string, messageId: string): Promise<boolean> {
    const id = conversationId
    if (this.isBusy(id)) {
      this.errors[id] = BUSY_TEXT
      return false
    }
    // The conversation's error banner stays while it switches (then the detail's state sets it).
    const failed = (e: TransportError) => branchErrorText('switch to that version', e)
    const done = await attempt(this, { failed }, async () => {
      const detail = await useTransport().selectBranch({ id, message_id: messageId, last: OPEN_WINDOW })
      this.editing[id] = null
      this.applyDetail(detail)
    })
    if (!done.ok) this.errors[id] = done.error
    return done.ok
  },

  /**
   * Changes the answer of an answered card: the new answer becomes the
   * tool result of a new branch, which is shown and runs. Errors stay on
   * the card (forkErrors), with the answer the user gave.
   */
  async forkAnswer(this: Host, questionId: string, answers: Answers, comments?: string): Promise<boolean> {
    const card = useQuestionsStore().cards[questionId]
    if (!card) {
      this.forkErrors[questionId] = t('questions.errors.gone')
      return false
    }
    const id = card.conversationId
    if (this.isBusy(id)) {
      this.forkErrors[questionId] = BUSY_TEXT
      return false
    }
    const list = this.listOf(id)
    const result = list.find(
      (m) => m.role === 'tool' && !!card.tool_call_id && m.tool_call_id === card.tool_call_id && (!m.run_id || !card.run_id || m.run_id === card.run_id),
    )
    const restore = this.beginBranch(id, result ? pathThrough(list, result.parent_id) : [...list])
    const failed = (e: TransportError) => {
      restore()
      return e.status === 422 ? e.message : e.status === 404 ? t('questions.errors.gone') : branchErrorText('change the answer', e)
    }
    const done = await attempt(this, { key: questionId, busy: 'forking', error: 'forkErrors', failed }, () =>
      useTransport().forkQuestion({ id, question_id: questionId, answers, ...(comments ? { comments } : {}) }),
    )
    return done.ok
  },

  /** Shows `path` as the conversation while a branch starts; the returned function puts the old one back. */
  beginBranch(this: Host, conversationId: string, path: Message[]): () => void {
    const id = conversationId
    const before = { list: this.listOf(id), state: this.runStates[id] ?? 'idle', error: this.errors[id] ?? null }
    this.messages[id] = shallowReactive(path)
    this.errors[id] = null
    this.runStates[id] = 'requesting'
    return () => {
      this.messages[id] = before.list
      if (this.runStates[id] === 'requesting') this.runStates[id] = before.state
      this.errors[id] = before.error
    }
  },

  /** The installed models, for "Regenerate with…". */
  loadModels(this: Host): Promise<void> {
    return loadInto(this, { error: 'modelsError' }, async () => {
      this.models = await useTransport().listModels()
    })
  },
}
