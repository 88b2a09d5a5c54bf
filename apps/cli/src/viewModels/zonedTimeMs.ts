/** One formatter per time zone, reading a moment's wall-clock fields there. */
const FORMATTERS = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let format = FORMATTERS.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    FORMATTERS.set(timeZone, format);
  }
  return format;
}

/** How far the zone's wall clock is ahead of UTC at the moment `ms` (whole seconds), in ms. */
function offsetMs(ms: number, timeZone: string): number {
  const fields: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(ms)) if (part.type !== 'literal') fields[part.type] = Number(part.value);
  const wall = Date.UTC(fields['year']!, fields['month']! - 1, fields['day']!, fields['hour']!, fields['minute']!, fields['second']!);
  return wall - Math.floor(ms / 1000) * 1000;
}

const DAY_MS = 86_400_000;

/**
 * The moment (ms since the epoch) a wall-clock time in a time zone names: `wallMs` is that
 * wall-clock time read as if it were UTC (`Date.UTC(year, month - 1, day, hour, minute, …)`).
 *
 * @remarks
 * As `Temporal`'s "compatible" rule: a wall-clock time the zone repeats (the hour a clock goes
 * back) is its first occurrence; one the zone skips (the hour a clock jumps forward) is read with
 * the offset from before the jump, so it lands after it.
 *
 * @throws RangeError from `Intl` when the time zone is not one it knows.
 * @internal
 */
export function zonedTimeMs(wallMs: number, timeZone: string): number {
  const before = wallMs - offsetMs(wallMs - DAY_MS, timeZone);
  const after = wallMs - offsetMs(wallMs + DAY_MS, timeZone);
  const reads = (moment: number) => moment + offsetMs(moment, timeZone) === wallMs;
  const candidates = [before, after].filter(reads).sort((a, b) => a - b);
  return candidates[0] ?? before;
}
