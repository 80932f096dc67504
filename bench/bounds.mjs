// Bounds the benches judge Parley's figures against (issue #42), shared by
// the Chromium bench (bench/ui-cards.mjs) and the window's
// (bench/window-trace-table.mjs).
import { stats } from './stats.mjs'

// The best Submit -> next model request a page could reach: each measured
// round's Go path (the answer received -> the model server saw the next
// request, from the trace) with a bare page's call on top, every pair: in
// Chromium its POST (click -> the request at its server, bench/floor.mjs
// postRounds), in the window the bare chat app's call to Go (Enter -> Go
// received it, bench/windowfloor). null when either side was not measured.
export function submitBound(records, bareCalls) {
  const goPath = records.map((r) => r.marks.server_request - r.marks.answer_received).filter(Number.isFinite)
  if (!goPath.length || !bareCalls?.length) return null
  return { goPath: stats(goPath), post: stats(bareCalls), sum: stats(goPath.flatMap((g) => bareCalls.map((p) => g + p))) }
}
