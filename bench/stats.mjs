// Summary statistics shared by the bench scripts: nearest-rank quantiles
// and the milliseconds as the tables print them.

/** The nearest-rank quantile p (0..1) of xs; undefined for no samples. */
export const quantile = (xs, p) => {
  if (!xs.length) return undefined
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))]
}

/** n, p50, p95, min, max and mean of xs. */
export function stats(xs) {
  const s = [...xs].sort((a, b) => a - b)
  return { n: s.length, p50: quantile(s, 0.5), p95: quantile(s, 0.95), min: s[0], max: s.at(-1), mean: s.reduce((a, b) => a + b, 0) / s.length }
}

/** Milliseconds as the bench tables print them ('-' for none). */
export const ms = (x) => (x === undefined || Number.isNaN(x) ? '-' : x >= 100 ? `${x.toFixed(0)} ms` : `${x.toFixed(1)} ms`)
