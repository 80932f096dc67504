// A JSON schema of an object (an MCP elicitation's requested schema, or a
// tool's input schema) as a typed form model (SPEC §6): one field per
// property in the schema's own order, the drafts the form edits, client-side
// checks that mirror the Go side's, and the typed values sent back. Schemas
// come from servers (`unknown` on the wire): everything is read defensively,
// and what is not understood is reported, never guessed.
import { t } from '../i18n'

export type FieldKind = 'string' | 'number' | 'integer' | 'boolean' | 'enum' | 'multi'
export type StringFormat = 'email' | 'uri' | 'date' | 'date-time'

export interface FieldOption {
  /** The option's value as a string (what the draft holds). */
  key: string
  /** Shown to the user: the title, or the value itself. */
  label: string
  /** The value as the schema gives it (sent back as is). */
  value: string | number | boolean
}

export interface SchemaField {
  /** The property name. */
  key: string
  /** The property's title, else its name. */
  title: string
  description?: string
  kind: FieldKind
  required: boolean
  /** enum, multi and boolean (Yes/No): the choices in the schema's order. */
  options: FieldOption[]
  format?: StringFormat
  minLength?: number
  maxLength?: number
  minimum?: number
  maximum?: number
  minItems?: number
  maxItems?: number
  /** The schema's default, when it fits the field. */
  default?: unknown
}

export interface ObjectForm {
  fields: SchemaField[]
  /** Property names whose schema is not one of the kinds above. */
  unsupported: string[]
  /** The schema itself is not an object schema with properties. */
  invalid: boolean
}

/** What the user entered for one field: chosen option keys, or text. */
export interface FieldDraft {
  selected: string[]
  text: string
}

type Obj = Record<string, unknown>

function isObj(v: unknown): v is Obj {
  return !!v && typeof v === 'object' && !Array.isArray(v)
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() ? v : undefined
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined
}

function count(v: unknown): number | undefined {
  const n = num(v)
  return n !== undefined && n >= 0 && Number.isInteger(n) ? n : undefined
}

const FORMATS: readonly StringFormat[] = ['email', 'uri', 'date', 'date-time']

function scalar(v: unknown): v is string | number | boolean {
  return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean'
}

/** Options from `enum` (+ legacy `enumNames`), or `oneOf`/`anyOf` items of `{const, title}`. */
function optionsOf(s: Obj): FieldOption[] | null {
  if (Array.isArray(s.enum)) {
    const names = Array.isArray(s.enumNames) ? s.enumNames : []
    const out: FieldOption[] = []
    s.enum.forEach((v, i) => {
      if (!scalar(v)) return
      out.push({ key: String(v), value: v, label: str(names[i]) ?? String(v) })
    })
    return out.length ? dedupe(out) : null
  }
  const alts = Array.isArray(s.oneOf) ? s.oneOf : Array.isArray(s.anyOf) ? s.anyOf : null
  if (alts) {
    const out: FieldOption[] = []
    for (const alt of alts) {
      if (!isObj(alt) || !scalar(alt.const)) return null
      out.push({ key: String(alt.const), value: alt.const, label: str(alt.title) ?? String(alt.const) })
    }
    return out.length ? dedupe(out) : null
  }
  return null
}

function dedupe(opts: FieldOption[]): FieldOption[] {
  const seen = new Set<string>()
  return opts.filter((o) => (seen.has(o.key) ? false : (seen.add(o.key), true)))
}

function yesNo(): FieldOption[] {
  return [
    { key: 'true', label: t('common.yes'), value: true },
    { key: 'false', label: t('common.no'), value: false },
  ]
}

/** One property's schema as a field; null when it is none of the supported kinds. */
export function parseField(key: string, raw: unknown, required: boolean): SchemaField | null {
  if (!isObj(raw)) return null
  const base = {
    key,
    title: str(raw.title) ?? key,
    ...(str(raw.description) ? { description: str(raw.description) } : {}),
    required,
  }
  const type = Array.isArray(raw.type) ? raw.type.find((t) => t !== 'null') : raw.type
  const options = optionsOf(raw)
  if (options && (type === undefined || type === 'string' || type === 'number' || type === 'integer')) {
    const field: SchemaField = { ...base, kind: 'enum', options }
    if (scalar(raw.default) && options.some((o) => o.key === String(raw.default))) field.default = raw.default
    return field
  }
  switch (type) {
    case 'string': {
      const field: SchemaField = { ...base, kind: 'string', options: [] }
      const format = raw.format
      if (typeof format === 'string' && (FORMATS as readonly string[]).includes(format)) field.format = format as StringFormat
      const minLength = count(raw.minLength)
      const maxLength = count(raw.maxLength)
      if (minLength !== undefined) field.minLength = minLength
      if (maxLength !== undefined) field.maxLength = maxLength
      if (typeof raw.default === 'string') field.default = raw.default
      return field
    }
    case 'number':
    case 'integer': {
      const field: SchemaField = { ...base, kind: type, options: [] }
      const minimum = num(raw.minimum)
      const maximum = num(raw.maximum)
      if (minimum !== undefined) field.minimum = minimum
      if (maximum !== undefined) field.maximum = maximum
      const d = num(raw.default)
      if (d !== undefined && (type === 'number' || Number.isInteger(d))) field.default = d
      return field
    }
    case 'boolean': {
      const field: SchemaField = { ...base, kind: 'boolean', options: yesNo() }
      if (typeof raw.default === 'boolean') field.default = raw.default
      return field
    }
    case 'array': {
      const items = isObj(raw.items) ? optionsOf(raw.items) : null
      if (!items) return null
      const field: SchemaField = { ...base, kind: 'multi', options: items }
      const minItems = count(raw.minItems)
      const maxItems = count(raw.maxItems)
      if (minItems !== undefined) field.minItems = minItems
      if (maxItems !== undefined) field.maxItems = maxItems
      if (Array.isArray(raw.default)) {
        const keys = raw.default.filter(scalar).map(String)
        if (keys.every((k) => items.some((o) => o.key === k))) field.default = raw.default.filter(scalar)
      }
      return field
    }
    default:
      return null
  }
}

/** Reads an object schema: its properties in order, as fields. */
export function parseObjectSchema(schema: unknown): ObjectForm {
  let s: unknown = schema
  if (typeof s === 'string') {
    try {
      s = JSON.parse(s)
    } catch {
      return { fields: [], unsupported: [], invalid: true }
    }
  }
  if (!isObj(s) || (s.type !== undefined && s.type !== 'object')) return { fields: [], unsupported: [], invalid: true }
  const props = s.properties === undefined ? {} : s.properties
  if (!isObj(props)) return { fields: [], unsupported: [], invalid: true }
  const required = new Set(Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === 'string') : [])
  const fields: SchemaField[] = []
  const unsupported: string[] = []
  // Object key order is the schema's order (Go keeps the raw JSON; names
  // that look like integers are the only keys JS would move, rare in schemas).
  for (const [key, raw] of Object.entries(props)) {
    const f = parseField(key, raw, required.has(key))
    if (f) fields.push(f)
    else unsupported.push(key)
  }
  return { fields, unsupported, invalid: false }
}

/**
 * Whether a tool's input schema can be edited as a form: a flat object of
 * string, number, integer, boolean and enum properties, and arguments that
 * fit it (no other keys, every value of its field's type).
 */
export function simpleForm(schema: unknown, args: unknown): SchemaField[] | null {
  const form = parseObjectSchema(schema)
  if (form.invalid || form.unsupported.length || !form.fields.length) return null
  if (form.fields.some((f) => f.kind === 'multi')) return null
  if (args !== undefined && args !== null) {
    if (!isObj(args)) return null
    for (const [k, v] of Object.entries(args)) {
      const f = form.fields.find((x) => x.key === k)
      if (!f || !fits(f, v)) return null
    }
  }
  return form.fields
}

function fits(f: SchemaField, v: unknown): boolean {
  switch (f.kind) {
    case 'string':
      return typeof v === 'string'
    case 'number':
      return typeof v === 'number'
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v)
    case 'boolean':
      return typeof v === 'boolean'
    case 'enum':
      return scalar(v) && f.options.some((o) => o.key === String(v))
    case 'multi':
      return Array.isArray(v) && v.every((x) => scalar(x) && f.options.some((o) => o.key === String(x)))
  }
}

// ---- drafts ------------------------------------------------------------------

/** A draft holding `value` (a default or an argument), or an empty one. */
export function draftFor(f: SchemaField, value: unknown): FieldDraft {
  const d: FieldDraft = { selected: [], text: '' }
  if (value === undefined || value === null) return d
  if (f.kind === 'enum' || f.kind === 'boolean') {
    if (scalar(value) && f.options.some((o) => o.key === String(value))) d.selected = [String(value)]
  } else if (f.kind === 'multi') {
    if (Array.isArray(value)) d.selected = f.options.map((o) => o.key).filter((k) => value.some((v) => scalar(v) && String(v) === k))
  } else if (f.kind === 'string') {
    if (typeof value === 'string') d.text = f.format === 'date-time' ? toLocalDateTime(value) : value
  } else if (typeof value === 'number') {
    d.text = String(value)
  }
  return d
}

/** Drafts for every field, pre-filled from `values` (else the defaults). */
export function initialDrafts(fields: SchemaField[], values?: unknown): Record<string, FieldDraft> {
  const from = isObj(values) ? values : undefined
  return Object.fromEntries(fields.map((f) => [f.key, draftFor(f, from ? from[f.key] : f.default)]))
}

/** Whether the user left the field empty. */
export function isEmpty(f: SchemaField, d: FieldDraft | undefined): boolean {
  if (!d) return true
  return f.kind === 'enum' || f.kind === 'boolean' || f.kind === 'multi' ? d.selected.length === 0 : d.text.trim() === ''
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const LOCAL_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/

function validDate(text: string): boolean {
  const m = DATE.exec(text)
  if (!m) return false
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])))
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3])
}

function validUri(text: string): boolean {
  if (!/^[a-z][a-z0-9+.-]*:/i.test(text) || /\s/.test(text)) return false
  try {
    new URL(text)
    return true
  } catch {
    return false
  }
}


/** The message to show under a field, or null when its value may be sent. */
export function validateField(f: SchemaField, d: FieldDraft | undefined): string | null {
  const draft = d ?? { selected: [], text: '' }
  if (isEmpty(f, draft)) {
    if (!f.required) return null
    if (f.kind === 'multi') return t('questions.errors.chooseSome')
    if (f.kind === 'enum' || f.kind === 'boolean') return t('questions.errors.chooseOne')
    return t('questions.form.required')
  }
  if (f.kind === 'enum' || f.kind === 'boolean') {
    if (draft.selected.length > 1 || !f.options.some((o) => o.key === draft.selected[0])) return t('questions.form.chooseOneOf')
    return null
  }
  if (f.kind === 'multi') {
    const n = draft.selected.filter((k) => f.options.some((o) => o.key === k)).length
    if (f.minItems !== undefined && n < f.minItems) return t('questions.form.minItems', { count: f.minItems })
    if (f.maxItems !== undefined && n > f.maxItems) return t('questions.form.maxItems', { count: f.maxItems })
    return null
  }
  const text = f.kind === 'string' ? draft.text : draft.text.trim()
  if (f.kind === 'string') {
    const len = [...text].length
    if (f.minLength !== undefined && len < f.minLength) return t('questions.form.minLength', { count: f.minLength })
    if (f.maxLength !== undefined && len > f.maxLength) return t('questions.form.maxLength', { count: f.maxLength })
    const v = text.trim()
    if (f.format === 'email' && !EMAIL.test(v)) return t('questions.form.email')
    if (f.format === 'uri' && !validUri(v)) return t('questions.form.uri')
    if (f.format === 'date' && !validDate(v)) return t('questions.form.date')
    if (f.format === 'date-time' && (!LOCAL_DATE_TIME.test(v) || Number.isNaN(Date.parse(v)))) return t('questions.form.dateTime')

    return null
  }
  const n = Number(text)
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text) || !Number.isFinite(n)) {
    return f.kind === 'integer' ? t('questions.form.integer') : t('questions.form.number')
  }
  if (f.kind === 'integer' && !Number.isInteger(n)) return t('questions.form.integer')
  if (f.minimum !== undefined && n < f.minimum) return t('questions.form.minimum', { min: f.minimum })
  if (f.maximum !== undefined && n > f.maximum) return t('questions.form.maximum', { max: f.maximum })
  return null
}

/** One field's value typed per its schema; undefined when left empty. */
export function fieldValue(f: SchemaField, d: FieldDraft | undefined): unknown {
  if (isEmpty(f, d)) return undefined
  const draft = d!
  switch (f.kind) {
    case 'enum':
    case 'boolean':
      return f.options.find((o) => o.key === draft.selected[0])?.value
    case 'multi':
      return f.options.filter((o) => draft.selected.includes(o.key)).map((o) => o.value)
    case 'number':
    case 'integer':
      return Number(draft.text.trim())
    case 'string':
      return f.format === 'date-time' ? fromLocalDateTime(draft.text.trim()) : f.format ? draft.text.trim() : draft.text
  }
}

/** The object to send: every filled field with its typed value, in schema order. */
export function buildValues(fields: SchemaField[], drafts: Record<string, FieldDraft>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const f of fields) {
    const v = fieldValue(f, drafts[f.key])
    if (v !== undefined) out[f.key] = v
  }
  return out
}

/** A value as short display text (review steps and resolved cards). */
export function displayValue(f: SchemaField | undefined, v: unknown): string {
  if (v === undefined || v === null) return ''
  if (f && (f.kind === 'enum' || f.kind === 'boolean')) return f.options.find((o) => o.key === String(v))?.label ?? String(v)
  if (f && f.kind === 'multi' && Array.isArray(v)) return v.map((x) => f.options.find((o) => o.key === String(x))?.label ?? String(x)).join(', ')
  if (typeof v === 'boolean') return v ? t('common.yes') : t('common.no')
  if (Array.isArray(v)) return v.map((x) => displayValue(undefined, x)).join(', ')
  if (typeof v === 'object') return JSON.stringify(v)
  return String(v)
}

// ---- date-time inputs ------------------------------------------------------------

const pad = (n: number) => String(n).padStart(2, '0')

/** An RFC 3339 time as the value of a datetime-local input (local time). */
export function toLocalDateTime(iso: string): string {
  const t = Date.parse(iso)
  if (Number.isNaN(t)) return iso
  const d = new Date(t)
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`
}

/** A datetime-local value (local time) as RFC 3339 in UTC. */
export function fromLocalDateTime(local: string): string {
  const t = Date.parse(local)
  return Number.isNaN(t) ? local : new Date(t).toISOString().replace(/\.000Z$/, 'Z')
}

/** The input type and a hint for a text-like field. */
export function inputFor(f: SchemaField): { type: string; hint: string; inputmode?: 'numeric' | 'decimal' } {
  if (f.kind === 'number' || f.kind === 'integer') {
    const kind = f.kind === 'integer' ? 'integer' : 'number'
    const hint =
      f.minimum !== undefined && f.maximum !== undefined
        ? t(`questions.form.hint.${kind}Range`, { min: f.minimum, max: f.maximum })
        : f.minimum !== undefined
          ? t(`questions.form.hint.${kind}Min`, { min: f.minimum })
          : f.maximum !== undefined
            ? t(`questions.form.hint.${kind}Max`, { max: f.maximum })
            : t(`questions.form.hint.${kind}`)
    return { type: 'text', inputmode: f.kind === 'integer' ? 'numeric' : 'decimal', hint }
  }
  const len =
    f.minLength !== undefined && f.maxLength !== undefined
      ? t('questions.form.hint.lengthRange', { min: f.minLength, max: f.maxLength })
      : f.minLength !== undefined
        ? t('questions.form.hint.lengthMin', { count: f.minLength })
        : f.maxLength !== undefined
          ? t('questions.form.hint.lengthMax', { count: f.maxLength })
          : ''
  switch (f.format) {
    case 'email':
      return { type: 'email', hint: [t('questions.form.hint.email'), len].filter(Boolean).join(' ') }
    case 'uri':
      return { type: 'url', hint: [t('questions.form.hint.uri'), len].filter(Boolean).join(' ') }
    case 'date':
      return { type: 'date', hint: t('questions.form.hint.date') }
    case 'date-time':
      return { type: 'datetime-local', hint: t('questions.form.hint.dateTime') }
    default:
      return { type: 'text', hint: len }
  }
}
