import { parseTimeFlag } from './parseTimeFlag.js';
import { UsageError } from './UsageError.js';

/**
 * Reads `export otlp --since`: a span back from `now` (`90m`, `24h`, `7d`) or a date or time
 * (`2026-11-30`, `2026-11-30T08:00:00Z`), not before 1970; returns ms since the epoch.
 *
 * @throws UsageError from `parseSince` for anything else, naming the flag and the form or the rule.
 * @internal
 */
export function parseSince(value: string, now: number): number {
  return parseTimeFlag(value, now, { command: 'export otlp', flag: '--since' });
}

/**
 * Reads `export otlp --headers`: `key=value` pairs separated by commas, values percent-decoded
 * (as `OTEL_EXPORTER_OTLP_HEADERS` is read).
 *
 * @throws UsageError from `parseHeaders` for a pair without `=` or with an empty or invalid key.
 * @internal
 */
export function parseHeaders(value: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of value.split(',')) {
    if (pair.trim() === '') continue;
    const at = pair.indexOf('=');
    const key = at < 0 ? '' : pair.slice(0, at).trim();
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(key)) {
      throw new UsageError(
        `runledger export otlp: --headers must be key=value pairs separated by commas, with header names as keys; got ${JSON.stringify(pair)}`,
      );
    }
    let decoded: string;
    try {
      decoded = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      throw new UsageError(`runledger export otlp: --headers value of ${JSON.stringify(key)} is not valid percent-encoding`);
    }
    headers[key.toLowerCase()] = decoded;
  }
  return headers;
}
