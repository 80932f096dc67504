// Fails on user-visible text written into a component template instead of
// the catalogue (src/i18n/locales): text between tags, the attributes people
// read or hear (aria-label, title, placeholder, alt, …), and string literals
// that such a binding or an interpolation shows ({{ busy ? 'Saving' : x }}).
// Text without letters (symbols such as ×, ·, ›, digits) and the allow-list
// below pass. Run: node scripts/lint-i18n.mjs [files…] (default: every .vue
// file under src/).
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse, babelParse } from '@vue/compiler-sfc'

/** Attributes whose value a person reads or hears. */
export const TEXT_ATTRS = new Set([
  'aria-label', 'aria-description', 'aria-placeholder', 'aria-roledescription', 'aria-valuetext',
  'title', 'placeholder', 'alt', 'label',
])

/** Words that are the same in every language: names and symbols. */
export const ALLOWED = new Set(['P', 'Parley', 'MCP', 'Ollama', 'LM Studio', 'llama.cpp', 'JSON', 'Markdown', 'URL', 'API', 'OK', 'ollama.com', 'NAME', 'Authorization'])

const LETTER = /\p{L}/u

function visible(text) {
  const s = text.replace(/\s+/g, ' ').trim()
  return s !== '' && LETTER.test(s) && !ALLOWED.has(s) && !/^[a-z][a-z+]*:\/\/\S+$/.test(s)

}

// Node types of @vue/compiler-core.
const ELEMENT = 1
const TEXT = 2
const INTERPOLATION = 5
const ATTRIBUTE = 6
const DIRECTIVE = 7

/**
 * The string literals an expression can evaluate to: the literal itself,
 * both arms of ?:, either side of || ?? && and +, template literal text.
 * Literals given to calls ($t('key'), fn('x')) or compared (x === 'on') are
 * not shown, so they are not reported.
 */
function shownLiterals(node, out) {
  if (!node) return out
  switch (node.type) {
    case 'StringLiteral':
      out.push(node.value)
      break
    case 'TemplateLiteral':
      for (const q of node.quasis) out.push(q.value.cooked ?? q.value.raw)
      for (const e of node.expressions) shownLiterals(e, out)
      break
    case 'ConditionalExpression':
      shownLiterals(node.consequent, out)
      shownLiterals(node.alternate, out)
      break
    case 'LogicalExpression':
      shownLiterals(node.left, out)
      shownLiterals(node.right, out)
      break
    case 'BinaryExpression':
      if (node.operator === '+') {
        shownLiterals(node.left, out)
        shownLiterals(node.right, out)
      }
      break
    case 'ParenthesizedExpression':
    case 'TSAsExpression':
      shownLiterals(node.expression, out)
      break
  }
  return out
}

function literalsOf(code) {
  try {
    return shownLiterals(babelParse(`(${code})`, { plugins: ['typescript'] }).program.body[0]?.expression, [])
  } catch {
    return []
  }
}

/** Problems of one component's template: [{ line, text, where }]. */
export function lintComponent(source, filename = 'component.vue') {
  const { descriptor, errors } = parse(source, { filename })
  if (errors.length) return [{ line: 1, text: String(errors[0]), where: 'parse' }]
  const problems = []
  const report = (loc, text, where) => {
    if (visible(text)) problems.push({ line: loc.start.line, text: text.replace(/\s+/g, ' ').trim(), where })
  }
  const walk = (node) => {
    if (node.type === TEXT) report(node.loc, node.content, 'text')
    if (node.type === INTERPOLATION) for (const s of literalsOf(node.content.content ?? '')) report(node.loc, s, 'interpolation')
    if (node.type === ELEMENT) {
      for (const p of node.props) {
        if (p.type === ATTRIBUTE && TEXT_ATTRS.has(p.name) && p.value) report(p.loc, p.value.content, p.name)
        if (p.type === DIRECTIVE && p.name === 'bind' && p.arg?.content && TEXT_ATTRS.has(p.arg.content) && p.exp) {
          for (const s of literalsOf(p.exp.content)) report(p.loc, s, `:${p.arg.content}`)
        }
      }
      if (node.tag === 'style' || node.tag === 'code' || node.tag === 'kbd') return
    }
    for (const c of node.children ?? []) walk(c)
  }
  if (descriptor.template?.ast) walk(descriptor.template.ast)
  return problems
}

function vueFiles(dir) {
  const out = []
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) out.push(...vueFiles(p))
    else if (name.endsWith('.vue')) out.push(p)
  }
  return out
}

function defaultRoot() {
  try {
    return fileURLToPath(new URL('..', import.meta.url))
  } catch {
    return process.cwd() // under Vitest, which runs from frontend/
  }
}

/** Every problem in the given files (default: every component under src/). */
export function lintFiles(files, root = defaultRoot()) {
  const list = files?.length ? files : vueFiles(join(root, 'src'))

  const problems = []
  for (const f of list) {
    for (const p of lintComponent(readFileSync(f, 'utf8'), f)) problems.push({ file: relative(root, f), ...p })
  }
  return problems
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const problems = lintFiles(process.argv.slice(2))
  for (const p of problems) console.error(`${p.file}:${p.line}: ${p.where}: "${p.text}" is not from the catalogue (use $t)`)
  if (problems.length) {
    console.error(`\n${problems.length} user-visible strings outside src/i18n/locales`)
    process.exit(1)
  }
  console.log('i18n lint: no text outside the catalogue')
}
