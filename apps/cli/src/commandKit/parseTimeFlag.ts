import { durationMs, notBefore1970, reachBack } from './reachBack.js';
import { UsageError } from './UsageError.js';

const UNITS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * Reads a time flag (`export otlp --since`, `runs list --since` and `--until`): a span back from
 * `now` (`90m`, `24h`, `7d`) or a date or time (`2026-11-30`, `2026-11-30T08:00:00Z`), not before
 * 1970; returns ms since the epoch.
 *
 * @throws UsageError from `parseTimeFlag` for anything else, naming the command, the flag and the form or the rule.
 * @internal
 */
export function parseTimeFlag(value: string, now: number, flag: { readonly command: string; readonly flag: string }): number {
  const given = { ...flag, value };
  const span = durationMs(value, UNITS);
  if (span !== null) return reachBack(span, now, UNITS, given);
  if (/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value)) {
    const at = Date.parse(value);
    if (Number.isFinite(at)) return notBefore1970(at, given);
  }
  throw new UsageError(
    `runledger ${flag.command}: ${flag.flag} must be a date or time such as 2026-11-30 or 2026-11-30T08:00:00Z, or a span back from now such as 90m, 24h or 7d, got ${JSON.stringify(value)}`,
  );
}
