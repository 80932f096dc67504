import { describe, expect, it } from 'vitest'
import {
  buildValues,
  displayValue,
  fromLocalDateTime,
  initialDrafts,
  inputFor,
  parseObjectSchema,
  simpleForm,
  toLocalDateTime,
  validateField,
  type SchemaField,
} from './schemaForm'

// Every field type SPEC §6 names, in the shapes MCP servers send them.
const SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Your name', description: 'As you like to be called', minLength: 2, maxLength: 20 },
    email: { type: 'string', format: 'email', title: 'Email' },
    site: { type: 'string', format: 'uri' },
    born: { type: 'string', format: 'date', title: 'Birthday' },
    meeting: { type: 'string', format: 'date-time', title: 'Meeting' },
    age: { type: 'integer', minimum: 0, maximum: 150, default: 30 },
    score: { type: 'number', minimum: 0.5, maximum: 9.5 },
    subscribe: { type: 'boolean', title: 'Subscribe?', default: true },
    colour: { type: 'string', enum: ['red', 'green', 'blue', 'cyan', 'magenta', 'yellow'], default: 'blue' },
    size: { type: 'string', oneOf: [{ const: 's', title: 'Small' }, { const: 'm', title: 'Medium' }, { const: 'l', title: 'Large' }] },
    legacy: { type: 'string', enum: ['a', 'b'], enumNames: ['Option A', 'Option B'] },
    tags: { type: 'array', items: { type: 'string', enum: ['x', 'y', 'z'] }, minItems: 1, maxItems: 2, default: ['y'] },
    titledTags: { type: 'array', items: { anyOf: [{ const: 'p', title: 'Pears' }, { const: 'q', title: 'Quinces' }] } },
  },
  required: ['name', 'email', 'age', 'colour', 'tags'],
}

const byKey = (fields: SchemaField[], key: string) => fields.find((f) => f.key === key)!

describe('parseObjectSchema', () => {
  const { fields, unsupported, invalid } = parseObjectSchema(SCHEMA)

  it('keeps the schema order and reads every field type', () => {
    expect(invalid).toBe(false)
    expect(unsupported).toEqual([])
    expect(fields.map((f) => [f.key, f.kind])).toEqual([
      ['name', 'string'],
      ['email', 'string'],
      ['site', 'string'],
      ['born', 'string'],
      ['meeting', 'string'],
      ['age', 'integer'],
      ['score', 'number'],
      ['subscribe', 'boolean'],
      ['colour', 'enum'],
      ['size', 'enum'],
      ['legacy', 'enum'],
      ['tags', 'multi'],
      ['titledTags', 'multi'],
    ])
  })

  it('reads titles, descriptions, required, constraints and formats', () => {
    expect(byKey(fields, 'name')).toMatchObject({ title: 'Your name', description: 'As you like to be called', required: true, minLength: 2, maxLength: 20 })
    expect(byKey(fields, 'site')).toMatchObject({ title: 'site', required: false, format: 'uri' })
    expect(byKey(fields, 'born').format).toBe('date')
    expect(byKey(fields, 'meeting').format).toBe('date-time')
    expect(byKey(fields, 'age')).toMatchObject({ minimum: 0, maximum: 150, default: 30, required: true })
    expect(byKey(fields, 'score')).toMatchObject({ minimum: 0.5, maximum: 9.5 })
    expect(byKey(fields, 'tags')).toMatchObject({ minItems: 1, maxItems: 2, default: ['y'] })
  })

  it('gives options from enum (more than four), oneOf titles, legacy enumNames, booleans and arrays', () => {
    expect(byKey(fields, 'colour').options.map((o) => o.label)).toEqual(['red', 'green', 'blue', 'cyan', 'magenta', 'yellow'])
    expect(byKey(fields, 'size').options).toEqual([
      { key: 's', label: 'Small', value: 's' },
      { key: 'm', label: 'Medium', value: 'm' },
      { key: 'l', label: 'Large', value: 'l' },
    ])
    expect(byKey(fields, 'legacy').options.map((o) => [o.key, o.label])).toEqual([
      ['a', 'Option A'],
      ['b', 'Option B'],
    ])
    expect(byKey(fields, 'subscribe').options.map((o) => [o.label, o.value])).toEqual([
      ['Yes', true],
      ['No', false],
    ])
    expect(byKey(fields, 'titledTags').options.map((o) => o.label)).toEqual(['Pears', 'Quinces'])
  })

  it('is defensive: not an object, bad properties, unknown kinds, defaults that do not fit', () => {
    expect(parseObjectSchema(null).invalid).toBe(true)
    expect(parseObjectSchema('not json').invalid).toBe(true)
    expect(parseObjectSchema({ type: 'array' }).invalid).toBe(true)
    expect(parseObjectSchema({ type: 'object', properties: [] }).invalid).toBe(true)
    expect(parseObjectSchema(JSON.stringify({ type: 'object', properties: { a: { type: 'string' } } })).fields).toHaveLength(1)
    const odd = parseObjectSchema({
      type: 'object',
      properties: { nested: { type: 'object' }, list: { type: 'array', items: { type: 'string' } }, junk: 5, colour: { enum: ['r'], default: 'x' }, n: { type: 'integer', default: 1.5 } },
      required: 'nested',
    })
    expect(odd.unsupported).toEqual(['nested', 'list', 'junk'])
    expect(odd.fields.map((f) => [f.key, f.default, f.required])).toEqual([
      ['colour', undefined, false],
      ['n', undefined, false],
    ])
  })
})

describe('drafts, checks and typed values', () => {
  const { fields } = parseObjectSchema(SCHEMA)

  it('pre-fills defaults', () => {
    const d = initialDrafts(fields)
    expect(d.age).toEqual({ selected: [], text: '30' })
    expect(d.subscribe!.selected).toEqual(['true'])
    expect(d.colour!.selected).toEqual(['blue'])
    expect(d.tags!.selected).toEqual(['y'])
    expect(d.name).toEqual({ selected: [], text: '' })
  })

  it('requires the required fields only', () => {
    const d = initialDrafts(fields)
    expect(validateField(byKey(fields, 'name'), d.name)).toBe('This field is required.')
    expect(validateField(byKey(fields, 'site'), d.site)).toBeNull()
    expect(validateField(byKey(fields, 'size'), d.size)).toBeNull()
    d.tags!.selected = []
    expect(validateField(byKey(fields, 'tags'), d.tags)).toBe('Choose at least one option.')
  })

  it('checks lengths, formats, numbers and bounds, and item counts', () => {
    const check = (key: string, text: string) => validateField(byKey(fields, key), { selected: [], text })
    expect(check('name', 'A')).toBe('Use at least 2 characters.')
    expect(check('name', 'x'.repeat(21))).toBe('Use at most 20 characters.')
    expect(check('name', 'Ann')).toBeNull()
    expect(check('email', 'ann@')).toContain('email address')
    expect(check('email', 'ann@example.com')).toBeNull()
    expect(check('site', 'example.com')).toContain('full address')
    expect(check('site', 'https://example.com/x')).toBeNull()
    expect(check('born', '2026-02-30')).toContain('date')
    expect(check('born', '2026-02-28')).toBeNull()
    expect(check('meeting', 'tomorrow')).toContain('date and time')
    expect(check('meeting', '2026-05-01T10:30')).toBeNull()
    expect(check('age', '12.5')).toBe('Enter a whole number.')
    expect(check('age', 'ten')).toBe('Enter a whole number.')
    expect(check('age', '151')).toBe('Enter 150 or less.')
    expect(check('age', '-1')).toBe('Enter 0 or more.')
    expect(check('score', '0.1')).toBe('Enter 0.5 or more.')
    expect(check('score', '1e1')).toBe('Enter 9.5 or less.')
    expect(check('score', '2.5')).toBeNull()
    expect(validateField(byKey(fields, 'tags'), { selected: ['x', 'y', 'z'], text: '' })).toBe('Choose at most 2 options.')
  })

  it('builds values typed per schema, leaving out empty optional fields', () => {
    const d = initialDrafts(fields)
    d.name!.text = 'Ann'
    d.email!.text = ' ann@example.com '
    d.meeting!.text = '2026-05-01T10:30'
    d.score!.text = '2.5'
    d.subscribe!.selected = ['false']
    d.legacy!.selected = ['b']
    d.titledTags!.selected = ['q', 'p']
    const v = buildValues(fields, d)
    expect(v).toEqual({
      name: 'Ann',
      email: 'ann@example.com',
      meeting: new Date('2026-05-01T10:30').toISOString().replace('.000Z', 'Z'),
      age: 30,
      score: 2.5,
      subscribe: false,
      colour: 'blue',
      legacy: 'b',
      tags: ['y'],
      titledTags: ['p', 'q'],
    })
    expect(Object.keys(v)).toEqual(['name', 'email', 'meeting', 'age', 'score', 'subscribe', 'colour', 'legacy', 'tags', 'titledTags'])
  })

  it('shows values with their option titles', () => {
    expect(displayValue(byKey(fields, 'size'), 'm')).toBe('Medium')
    expect(displayValue(byKey(fields, 'subscribe'), false)).toBe('No')
    expect(displayValue(byKey(fields, 'titledTags'), ['p', 'q'])).toBe('Pears, Quinces')
    expect(displayValue(undefined, { a: 1 })).toBe('{"a":1}')
  })

  it('picks input types and hints for formats and bounds', () => {
    expect(inputFor(byKey(fields, 'email')).type).toBe('email')
    expect(inputFor(byKey(fields, 'site')).type).toBe('url')
    expect(inputFor(byKey(fields, 'born')).type).toBe('date')
    expect(inputFor(byKey(fields, 'meeting')).type).toBe('datetime-local')
    expect(inputFor(byKey(fields, 'age'))).toEqual({ type: 'text', inputmode: 'numeric', hint: 'A whole number from 0 to 150.' })
    expect(inputFor(byKey(fields, 'name')).hint).toBe('2–20 characters.')
  })

  it('round-trips date-times through the local input', () => {
    const iso = '2026-05-01T08:30:00Z'
    expect(fromLocalDateTime(toLocalDateTime(iso))).toBe(iso)
  })
})

describe('simpleForm (approval edits)', () => {
  const schema = {
    type: 'object',
    properties: { message: { type: 'string' }, count: { type: 'integer' }, loud: { type: 'boolean' }, mode: { enum: ['a', 'b'] } },
    required: ['message'],
  }

  it('gives fields for a flat schema whose arguments fit it', () => {
    expect(simpleForm(schema, { message: 'hi', count: 2, loud: true, mode: 'b' })!.map((f) => f.key)).toEqual(['message', 'count', 'loud', 'mode'])
    expect(simpleForm(schema, {})).not.toBeNull()
    const f = simpleForm(schema, { message: 'hi', count: 2 })!
    expect(initialDrafts(f, { message: 'hi', count: 2 }).count!.text).toBe('2')
  })

  it('falls back to raw JSON for nested schemas, arrays, unknown keys or ill-typed arguments', () => {
    expect(simpleForm({ type: 'object', properties: { opts: { type: 'object' } } }, {})).toBeNull()
    expect(simpleForm({ type: 'object', properties: { tags: { type: 'array', items: { enum: ['a'] } } } }, {})).toBeNull()
    expect(simpleForm(schema, { message: 'hi', extra: 1 })).toBeNull()
    expect(simpleForm(schema, { message: 5 })).toBeNull()
    expect(simpleForm(schema, { count: 1.5 })).toBeNull()
    expect(simpleForm(schema, [1])).toBeNull()
    expect(simpleForm(undefined, {})).toBeNull()
    expect(simpleForm({ type: 'object', properties: {} }, {})).toBeNull()
  })
})
