// Export and import of a conversation in the FakeTransport (./fake.ts),
// like Go's: the parley.conversation JSON document (version 1), a Markdown
// transcript, and the checks an imported file gets.
import type { Card, ConversationDetail, ExportFormat, Message, Role } from '../types'
import { DEFAULT_PROFILE } from '../types'
import { TransportError } from './transport'
import { ROLES } from './fakeData'

/** A conversation as exported: JSON in Go's parley.conversation format, or a Markdown transcript. */
export function exportText(d: ConversationDetail, cards: Card[], format: ExportFormat): string {
  if (format === 'json') {
    const doc = {
      format: 'parley.conversation',
      version: 1,
      exported_at: new Date().toISOString(),
      conversation: { id: d.id, title: d.title, assistant: d.assistant ?? DEFAULT_PROFILE, pinned: !!d.pinned, created_at: d.created_at, updated_at: d.updated_at },
      messages: d.messages.map((m) => ({ id: m.id, role: m.role, content: m.content, tool_calls: m.tool_calls, tool_call_id: m.tool_call_id, tool_name: m.tool_name, created_at: m.created_at })),
      runs: [],
      cards,
    }
    return JSON.stringify(doc, null, 2)
  }
  const parts = [`# ${d.title || 'Untitled conversation'}`, '', `*Exported from Parley. Assistant: ${d.assistant || DEFAULT_PROFILE}.*`]
  for (const m of d.messages) parts.push('', `## ${m.role === 'user' ? 'You' : m.role === 'assistant' ? 'Assistant' : m.role}`, '', m.content)
  return parts.join('\n') + '\n'
}

export interface ImportedConversation {
  conversation: { title?: string; assistant?: string; pinned?: boolean; created_at?: string; updated_at?: string }
  messages: Partial<Message>[]
}

/** Reads an exported conversation; throws a 400 TransportError saying what is wrong with it. */
export function parseExport(text: string): ImportedConversation {
  const bad = (why: string) => new TransportError(`import conversation: invalid conversation export: ${why}`, 400)
  let doc: {
    format?: unknown
    version?: unknown
    conversation?: { title?: string; assistant?: string; pinned?: boolean; created_at?: string; updated_at?: string } | null
    messages?: Partial<Message>[] | null
  }
  try {
    doc = JSON.parse(text)
  } catch (err) {
    throw bad(err instanceof Error ? err.message : 'not JSON')
  }
  if (!doc || typeof doc !== 'object') throw bad('not a JSON object')
  if (doc.format !== 'parley.conversation') throw bad(`format is ${JSON.stringify(doc.format ?? '')}, want "parley.conversation"`)
  if (typeof doc.version !== 'number' || doc.version < 1) throw bad(`version ${String(doc.version ?? 0)} is not valid`)
  if (doc.version > 1) throw bad(`version ${doc.version} was written by a newer Parley (this one reads up to 1)`)
  const c = doc.conversation
  if (!c || typeof c !== 'object') throw bad('conversation is missing')
  const msgs = doc.messages ?? []
  msgs.forEach((m, i) => {
    if (!ROLES.includes(m.role as Role)) throw bad(`messages[${i}].role ${JSON.stringify(m.role ?? '')} is not one of system, user, assistant, tool`)
  })
  return { conversation: c, messages: msgs }
}

/** Like Go (store.importTitle): "Title (imported)", numbered when `titles` has it. */
export function importTitle(title: string, titles: string[]): string {
  let base = title.trim()
  const mark = /\s*\(imported(?: \d+)?\)$/
  while (mark.test(base)) base = base.replace(mark, '').trim()
  base ||= 'New chat'
  const taken = new Set(titles)
  for (let n = 1; ; n++) {
    const title = `${base} (imported${n > 1 ? ` ${n}` : ''})`
    if (!taken.has(title)) return title
  }
}
