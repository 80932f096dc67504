// What the approval and elicitation cards (SPEC §6) keep while the user
// works on them (in the questions store by question_id, so switching
// conversations loses nothing), and the texts their outcomes show.
import type { FieldDraft } from './schemaForm'

export interface McpCardDraft {
  /** Elicitation: the shown step (fields.length is the review). */
  step: number
  /** The form's fields by property name (elicitation, or an approval's edit form). */
  fields: Record<string, FieldDraft>
  /** Approval: the arguments are being edited. */
  editing: boolean
  /** Approval: the raw JSON text (when the schema is not simple). */
  rawJson: string
  /** Approval: the reject reason is being written. */
  rejecting: boolean
  reason: string
}

export function emptyMcpDraft(): McpCardDraft {
  return { step: 0, fields: {}, editing: false, rawJson: '', rejecting: false, reason: '' }
}

/** Pretty JSON of a value from the wire (arguments, content). */
export function prettyJson(v: unknown): string {
  if (v === undefined) return '{}'
  try {
    return JSON.stringify(v, null, 2) ?? String(v)
  } catch {
    return String(v)
  }
}

/** Same JSON value (key order ignored). */
export function sameJson(a: unknown, b: unknown): boolean {
  const norm = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(norm)
      : v && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([x], [y]) => x.localeCompare(y)).map(([k, x]) => [k, norm(x)]))
        : v
  return JSON.stringify(norm(a)) === JSON.stringify(norm(b))
}
