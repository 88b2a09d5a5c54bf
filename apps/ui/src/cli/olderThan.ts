import { UsageError } from './UsageError.js';

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

/**
 * The span of `runledger prune --older-than`: a whole number of minutes (90m), hours (12h), days
 * (30d) or weeks (2w), at least one minute, in ms.
 *
 * @throws UsageError naming the flag and the form it takes.
 * @internal
 */
export function parseOlderThan(value: string): number {
  const match = /^(\d{1,9})([mhdw])$/.exec(value);
  const ms = match === null ? NaN : Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  if (!(ms >= UNIT_MS.m)) {
    throw new UsageError(
      `runledger prune: --older-than must be a duration like 30d, 12h, 90m or 2w (at least 1m), got ${JSON.stringify(value)}`,
    );
  }
  return ms;
}
