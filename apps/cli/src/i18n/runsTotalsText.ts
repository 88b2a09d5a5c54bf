import type { Translator } from './Translator.js';

/**
 * The totals of the runs list's filters in words, the same in the app and in `runledger runs list`:
 * `1 run · 2,048 tokens` (each count with its own plural form), or `12+ runs · 3,000+ tokens` when
 * the store stopped counting early.
 *
 * @internal
 */
export function runsTotalsText(
  t: Translator,
  totals: { readonly runs: number; readonly tokens: number; readonly complete: boolean },
): string {
  if (!totals.complete) return t.t('runs.totals.more', { runs: totals.runs, tokens: totals.tokens });
  return t.t('runs.totals', {
    runs: t.t('runs.totals.runs', { count: totals.runs }),
    tokens: t.t('runs.totals.tokens', { count: totals.tokens }),
  });
}
