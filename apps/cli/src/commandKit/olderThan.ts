import { durationMs, reachBack } from './reachBack.js';
import { UsageError } from './UsageError.js';

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

/**
 * The span of `runledger prune --older-than`: a whole number of minutes (90m), hours (12h), days
 * (30d) or weeks (2w), at least one minute and reaching no further back from `now` than 1970, in ms.
 *
 * @throws UsageError from `parseOlderThan` naming the flag and the form it takes, or the rule it breaks.
 * @internal
 */
export function parseOlderThan(value: string, now: number): number {
  const ms = durationMs(value, UNIT_MS);
  if (ms === null || !(ms >= UNIT_MS.m)) {
    throw new UsageError(
      `runledger prune: --older-than must be a duration like 30d, 12h, 90m or 2w (at least 1m), got ${JSON.stringify(value)}`,
    );
  }
  reachBack(ms, now, UNIT_MS, { command: 'prune', flag: '--older-than', value });
  return ms;
}
