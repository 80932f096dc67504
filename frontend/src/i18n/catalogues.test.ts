// Every catalogue has exactly English's keys, each message parses as ICU
// MessageFormat with the same placeholders (names and kinds) as English's,
// and every key the code asks for exists. The lint of component templates
// (scripts/lint-i18n.mjs) runs here too.
import { describe, expect, it } from 'vitest'
import { IntlMessageFormat } from 'intl-messageformat'
import { LANGUAGES, matchLanguage } from './index'
import { lintComponent } from '../../scripts/lint-i18n.mjs'

type Tree = { [key: string]: string | Tree }

const LOCALE_FILES: Record<string, string> = import.meta.glob('./locales/*.json', { query: '?raw', import: 'default', eager: true })
// The app's sources (no tests, no generated wire types).
const SOURCES: Record<string, string> = import.meta.glob(['../**/*.ts', '../**/*.vue', '!../**/*.test.ts', '!../**/*.d.ts', '!../api/**'], {
  query: '?raw',
  import: 'default',
  eager: true,
})

function flatten(tree: Tree, prefix = '', out: Record<string, string> = {}): Record<string, string> {
  for (const [k, v] of Object.entries(tree)) {
    if (typeof v === 'string') out[prefix + k] = v
    else flatten(v, `${prefix}${k}.`, out)
  }
  return out
}

function catalogue(code: string): Record<string, string> {
  return flatten(JSON.parse(LOCALE_FILES[`./locales/${code}.json`]!) as Tree)
}

interface AstNode {
  type: number
  value?: string
  options?: Record<string, { value: AstNode[] }>
  children?: AstNode[]
}
// Element types of @formatjs/icu-messageformat-parser.
const KIND = ['literal', 'argument', 'number', 'date', 'time', 'select', 'plural', 'pound', 'tag']

/** The placeholders of a message: "name:kind", sorted, once each. */
export function placeholders(message: string, locale = 'en'): string[] {
  const out = new Set<string>()
  const walk = (nodes: AstNode[]) => {
    for (const n of nodes) {
      if (n.value !== undefined && n.type !== 0 && n.type !== 7) out.add(`${n.value}:${KIND[n.type]}`)
      for (const o of Object.values(n.options ?? {})) walk(o.value)
      if (n.children) walk(n.children)
    }
  }
  walk(new IntlMessageFormat(message, locale, undefined, { ignoreTag: true }).getAst() as unknown as AstNode[])
  return [...out].sort()
}

describe('catalogues', () => {
  const en = catalogue('en')

  it('has one file per language of the picker', () => {
    expect(Object.keys(LOCALE_FILES).sort()).toEqual(LANGUAGES.map((l) => `./locales/${l.code}.json`).sort())
    expect(Object.keys(en).length).toBeGreaterThan(100)
  })

  for (const { code } of LANGUAGES.filter((l) => l.code !== 'en')) {
    it(`${code} has English's keys and placeholders`, () => {
      const cat = catalogue(code)
      expect(Object.keys(cat).filter((k) => !(k in en)), `${code} keys English lacks`).toEqual([])
      expect(Object.keys(en).filter((k) => !(k in cat)), `${code} lacks`).toEqual([])
      for (const [key, text] of Object.entries(en)) {
        expect(cat[key]!.trim(), `${code} ${key} is empty`).not.toBe('')
        expect(placeholders(cat[key]!, code), `${code} ${key}: ${cat[key]}`).toEqual(placeholders(text))
      }
    })
  }

  it('tells a changed placeholder apart', () => {
    expect(placeholders('{n} of {count}')).toEqual(placeholders('{count} の {n}'))
    expect(placeholders('{n} of {count}')).not.toEqual(placeholders('{n} von {total}'))
    expect(placeholders('{count, plural, one {# file} other {# files}}')).not.toEqual(placeholders('{count} Dateien'))
  })
})

describe('keys used in the code', () => {
  it('exist in the English catalogue', () => {
    const en = catalogue('en')
    const missing: string[] = []
    let used = 0
    for (const [file, src] of Object.entries(SOURCES)) {
      for (const m of src.matchAll(/(?:\$t|\bt)\(\s*'([a-zA-Z][\w.-]*)'|keypath="([\w.-]+)"/g)) {
        used++
        const key = m[1] ?? m[2]!
        if (!(key in en)) missing.push(`${file}: ${key}`)
      }
      // Keys built from a prefix (`chat.runState.${state}`) must have children.
      for (const m of src.matchAll(/(?:\$t|\bt)\(\s*`([a-zA-Z][\w.-]*)\.\$\{/g)) {
        if (!Object.keys(en).some((k) => k.startsWith(`${m[1]}.`))) missing.push(`${file}: ${m[1]}.*`)
      }
    }
    expect(used).toBeGreaterThan(100)
    expect(missing).toEqual([])
  })
})

describe('the template lint', () => {
  it('finds text, attributes and shown literals outside the catalogue', () => {
    const found = lintComponent(`<template>
  <p>Hello there</p>
  <button aria-label="Close" :title="busy ? 'Saving' : $t('a.b')">×</button>
  <input placeholder="Type here" />
  <span>{{ x === 'on' ? $t('a.on') : 'Off' }}</span>
  <kbd>Ctrl</kbd> <span>{{ $t('a.c', { n: 'x' }) }}</span> <b>Parley</b> <i>· 3 ›</i>
</template>`)
    expect(found.map((p: { text: string }) => p.text)).toEqual(['Hello there', 'Close', 'Saving', 'Type here', 'Off'])
  })

  it('passes every component of the app', () => {
    const problems: string[] = []
    for (const [file, src] of Object.entries(SOURCES)) {
      if (!file.endsWith('.vue')) continue
      for (const p of lintComponent(src, file)) problems.push(`${file}:${p.line} ${p.text}`)
    }
    expect(problems).toEqual([])
  })
})

describe('the system language', () => {
  it('picks the first preference the interface speaks', () => {
    expect(matchLanguage(['de-AT', 'en'])).toBe('de')
    expect(matchLanguage(['ko', 'ja-JP'])).toBe('ja')
    expect(matchLanguage(['zh-TW', 'fr'])).toBe('fr')
    expect(matchLanguage(['zh-Hans-SG'])).toBe('zh-CN')
    expect(matchLanguage(['pt-PT'])).toBe('pt-BR')
    expect(matchLanguage(['es-419'])).toBe('es')
    expect(matchLanguage(['ko'])).toBe('en')
  })
})
