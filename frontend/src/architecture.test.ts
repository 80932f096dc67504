// The layers of the frontend, checked on the source: components talk to
// stores, stores to the transport, and lib is plain code under all of them.
// No module imports back into one that (indirectly) imports it.
import { describe, expect, it } from 'vitest'

// The app's sources as text (.ts and .vue under src; no tests, test helpers
// (test-utils.ts, *.harness.ts) or declarations).
const SOURCES: Record<string, string> = import.meta.glob(['./**/*.ts', './**/*.vue', '!./**/*.test.ts', '!./**/*.d.ts', '!./test-utils.ts', '!./**/*.harness.ts'], {
  query: '?raw',
  import: 'default',
  eager: true,
})

/**
 * Resolves `spec` imported by `from` (both src-relative, e.g. 'stores/chat.ts')
 * to a path, or null when it leaves src (Wails' generated ../wailsjs, which
 * imports nothing of ours: like a package).
 */
function resolvePath(from: string, spec: string): string | null {
  const parts = from.split('/').slice(0, -1)
  for (const seg of spec.split('/')) {
    if (seg === '..') {
      if (parts.length === 0) return null
      parts.pop()
    } else if (seg !== '.') parts.push(seg)
  }
  return parts.join('/')
}

/** The relative modules a file imports or re-exports (static and dynamic), as src-relative paths. */
function importsOf(file: string, text: string, exists: (p: string) => boolean): string[] {
  const specs = new Set<string>()
  const patterns = [
    /\bimport\s+(?:type\s+)?[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g, // import x from '…' (also across lines)
    /\bimport\s*['"]([^'"]+)['"]/g, // import '…'
    /\bexport\s+(?:type\s+)?(?:\*|\{[^}]*\})\s*(?:as\s+\w+\s*)?from\s*['"]([^'"]+)['"]/g, // export … from '…'
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g, // import('…')
  ]
  for (const re of patterns) for (const m of text.matchAll(re)) specs.add(m[1]!)
  const out: string[] = []
  for (const spec of specs) {
    if (!spec.startsWith('.') || spec.endsWith('.css') || spec.endsWith('.json')) continue // packages, styles and data (the catalogues)
    const base = resolvePath(file, spec)
    if (base === null) continue // outside src
    const hit = [base, `${base}.ts`, `${base}.vue`, `${base}/index.ts`].find((c) => /\.(ts|vue)$/.test(c) && exists(c))
    if (!hit) throw new Error(`${file}: cannot resolve import '${spec}'`)
    out.push(hit)
  }
  return out
}

/** The import graph of the app's sources: src-relative path → imported paths. */
function importGraph(): Map<string, string[]> {
  const files = new Map(Object.entries(SOURCES).map(([key, text]) => [key.replace(/^\.\//, ''), text]))
  const graph = new Map<string, string[]>()
  for (const [file, text] of files) graph.set(file, importsOf(file, text, (p) => files.has(p)))
  return graph
}

/** Every import cycle, each as the path of modules from a module back to itself. */
function findCycles(graph: Map<string, string[]>): string[][] {
  const cycles: string[][] = []
  const state = new Map<string, 'active' | 'done'>()
  const stack: string[] = []
  const visit = (node: string): void => {
    state.set(node, 'active')
    stack.push(node)
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'active') cycles.push([...stack.slice(stack.indexOf(next)), next])
      else if (!state.has(next)) visit(next)
    }
    stack.pop()
    state.set(node, 'done')
  }
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node)
  return cycles
}

/** Imports that go against the layers, as "from → to". */
function layerViolations(graph: Map<string, string[]>): string[] {
  const bad: string[] = []
  const under = (p: string, dir: string) => p.startsWith(`${dir}/`)
  for (const [from, tos] of graph) {
    for (const to of tos) {
      const edge = `${from} → ${to}`
      if (under(from, 'lib') && (under(to, 'transport') || under(to, 'stores') || under(to, 'components'))) bad.push(`${edge} (lib is under the stores and the transport)`)
      if (under(from, 'components') && under(to, 'transport')) bad.push(`${edge} (components talk to stores, not to the transport)`)
      if (under(from, 'transport') && (under(to, 'stores') || under(to, 'components'))) bad.push(`${edge} (the transport knows no stores or components)`)
      if (under(from, 'stores') && under(to, 'components')) bad.push(`${edge} (stores know no components)`)
      if (under(from, 'i18n') && !under(to, 'i18n')) bad.push(`${edge} (i18n is under every layer)`)
    }
  }
  return bad
}

/** The in-memory FakeTransport and its helpers: for tests only, never in the bundle. */
const isTestOnly = (p: string) => /^transport\/(fake[^/]*|demo)\.ts$/.test(p)

/** The modules reachable from `entry` through the graph (the entry included). */
function reachable(graph: Map<string, string[]>, entry: string): Set<string> {
  const seen = new Set<string>()
  const todo = [entry]
  while (todo.length > 0) {
    const node = todo.pop()!
    if (seen.has(node)) continue
    seen.add(node)
    todo.push(...(graph.get(node) ?? []))
  }
  return seen
}

/** Imports of the test-only transport by app modules (tests and the fakes themselves may), as "from → to". */
function testOnlyImports(graph: Map<string, string[]>): string[] {
  const bad: string[] = []
  for (const [from, tos] of graph) {
    if (isTestOnly(from)) continue
    for (const to of tos) if (isTestOnly(to)) bad.push(`${from} → ${to} (the fake transport is for tests only)`)
  }
  return bad
}

describe('frontend architecture', () => {
  const graph = importGraph()

  it('reads the imports of the app (sanity)', () => {
    expect(graph.size).toBeGreaterThan(30)
    expect(graph.get('App.vue')).toContain('components/layout/ChatShell.vue')
    expect(graph.get('stores/events.ts')).toContain('transport/index.ts')
  })

  it('has no import cycle', () => {
    const cycles = findCycles(graph).map((c) => c.join(' → '))
    expect(cycles, `import cycles:\n${cycles.join('\n')}`).toEqual([])
  })

  it('keeps the layers: lib under stores and transport, components over stores', () => {
    const bad = layerViolations(graph)
    expect(bad, `imports against the layers:\n${bad.join('\n')}`).toEqual([])
  })

  it('keeps the fake transport (transport/fake*.ts) out of the app: only tests import it', () => {
    const bad = testOnlyImports(graph)
    expect(bad, `app modules importing the fake transport:\n${bad.join('\n')}`).toEqual([])
    const bundled = [...reachable(graph, 'main.ts')]
    expect(bundled).toContain('transport/http.ts')
    expect(bundled.filter(isTestOnly)).toEqual([])
  })
})

describe('the architecture checks themselves', () => {
  it('find a cycle and a wrong-way import', () => {
    const g = new Map([
      ['stores/a.ts', ['stores/b.ts']],
      ['stores/b.ts', ['stores/a.ts', 'lib/x.ts']],
      ['lib/x.ts', ['transport/index.ts']],
      ['components/C.vue', ['transport/index.ts']],
      ['transport/index.ts', []],
    ])
    expect(findCycles(g)).toEqual([['stores/a.ts', 'stores/b.ts', 'stores/a.ts']])
    expect(layerViolations(g)).toHaveLength(2)
  })

  it('find an app module importing the fake transport', () => {
    const g = new Map([
      ['main.ts', ['transport/index.ts']],
      ['transport/index.ts', ['transport/demo.ts']],
      ['transport/demo.ts', ['transport/fake.ts']],
      ['transport/fake.ts', ['transport/fakeData.ts']],
      ['transport/fakeData.ts', []],
    ])
    expect(testOnlyImports(g)).toEqual(['transport/index.ts → transport/demo.ts (the fake transport is for tests only)'])
    expect([...reachable(g, 'main.ts')].filter(isTestOnly).sort()).toEqual(['transport/demo.ts', 'transport/fake.ts', 'transport/fakeData.ts'])
  })

  it('read multi-line, type-only, side-effect and re-export imports', () => {
    const file = 'stores/z.ts'
    const text = [
      "import {\n  a,\n  b,\n} from './chat'",
      "import type { T } from '../types'",
      "import './side'",
      "export { x } from '../lib/cards'",
      "import { ref } from 'vue'",
    ].join('\n')
    const known = new Set(['stores/chat.ts', 'types.ts', 'stores/side.ts', 'lib/cards.ts'])
    expect(importsOf(file, text, (p) => known.has(p)).sort()).toEqual(['lib/cards.ts', 'stores/chat.ts', 'stores/side.ts', 'types.ts'])
  })
})
