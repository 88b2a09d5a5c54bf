/** Names longer than this are not compared (a command line is untrusted text; compare in bounded time). */
const LONGEST_COMPARED = 64;

/** The edit distance of two short strings: insertions, deletions, substitutions and swaps of neighbours. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * The known name a mistyped one most likely meant (`lst` → `list`, `--limt` → `--limit`), or null
 * when none is close: at most one edit for a name of up to 4 characters, two for a longer one, or
 * the start of exactly one known name (3 characters or more).
 *
 * @internal
 */
export function didYouMean(given: string, known: readonly string[]): string | null {
  if (given.length === 0 || given.length > LONGEST_COMPARED) return null;
  const lower = given.toLowerCase();
  const allowed = lower.length <= 4 ? 1 : 2;
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const name of known) {
    const distance = editDistance(lower, name.toLowerCase());
    if (distance <= allowed && distance < bestDistance) {
      best = name;
      bestDistance = distance;
    }
  }
  if (best !== null) return best;
  const starts = lower.length >= 3 ? known.filter((name) => name.toLowerCase().startsWith(lower)) : [];
  return starts.length === 1 ? starts[0]! : null;
}
