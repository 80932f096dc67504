// One place where bench scripts record the figures `make bench` sums up
// (bench/summary.mjs prints them with their targets at the end).
//
// A figure is one JSON line in $PARLEY_ARTIFACTS/bench-figures.jsonl:
//   {"id":"card.dom.p95","label":"tool-call chunk -> card in the DOM, p95 (Chromium)",
//    "value":14.2,"unit":"ms","target":16,"cmp":"<=","note":"n=50"}
// cmp is "<=" or ">=" (or absent: a figure without a target). Go programs
// write the same line (see tests/desktop for the window figures).
import { appendFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'

export const figuresFile = () => {
  const dir = process.env.PARLEY_ARTIFACTS || join(process.cwd(), 'test-artifacts')
  mkdirSync(dir, { recursive: true })
  return join(dir, 'bench-figures.jsonl')
}

export function recordFigure({ id, label, value, unit, target, cmp, note }) {
  if (!id || !label) throw new Error('a figure needs an id and a label')
  const line = { id, label, value: value ?? null, unit: unit ?? '', at: new Date().toISOString() }
  if (target !== undefined) Object.assign(line, { target, cmp: cmp ?? '<=' })
  if (note) line.note = note
  appendFileSync(figuresFile(), JSON.stringify(line) + '\n')
}
