import type { HrTime } from '@opentelemetry/api';

/**
 * A time in ms since the epoch, minus `minusMs` (a duration with up to 2 decimals), as an
 * OpenTelemetry `[seconds, nanoseconds]` pair, exact to the nanosecond: the epoch ms are split
 * before the sub-ms part is subtracted, so no float carries more than 2^53.
 */
export function hrTimeOf(epochMs: number, minusMs = 0): HrTime {
  const wholeMs = Math.floor(epochMs);
  let seconds = Math.floor(wholeMs / 1000);
  let nanos = (wholeMs - seconds * 1000) * 1_000_000 + Math.round((epochMs - wholeMs) * 1_000_000) - Math.round(minusMs * 1_000_000);
  if (nanos < 0 || nanos >= 1_000_000_000) {
    const carry = Math.floor(nanos / 1_000_000_000);
    seconds += carry;
    nanos -= carry * 1_000_000_000;
  }
  return [seconds, nanos];
}
