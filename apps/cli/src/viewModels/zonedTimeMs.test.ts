import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { zonedTimeMs } from './zonedTimeMs.js';

const wall = (y: number, mo: number, d: number, h: number, mi: number) => Date.UTC(y, mo - 1, d, h, mi);

describe('zonedTimeMs', () => {
  it('reads a wall-clock time in UTC, in a zone with a fixed offset and in one with summer time', () => {
    expect(zonedTimeMs(wall(2026, 11, 30, 8, 0), 'UTC')).toBe(Date.parse('2026-11-30T08:00:00Z'));
    expect(zonedTimeMs(wall(2026, 11, 30, 8, 0), 'Asia/Kolkata')).toBe(Date.parse('2026-11-30T08:00:00+05:30'));
    expect(zonedTimeMs(wall(2026, 11, 30, 8, 0), 'Europe/Berlin')).toBe(Date.parse('2026-11-30T08:00:00+01:00'));
    expect(zonedTimeMs(wall(2026, 7, 1, 8, 0), 'Europe/Berlin')).toBe(Date.parse('2026-07-01T08:00:00+02:00'));
    expect(zonedTimeMs(wall(2026, 7, 1, 8, 0), 'America/New_York')).toBe(Date.parse('2026-07-01T08:00:00-04:00'));
  });

  it('a repeated hour is its first occurrence; a skipped one lands after the jump', () => {
    // Berlin goes back from 03:00 CEST to 02:00 CET on 2026-10-25: 02:30 happens twice
    expect(zonedTimeMs(wall(2026, 10, 25, 2, 30), 'Europe/Berlin')).toBe(Date.parse('2026-10-25T02:30:00+02:00'));
    // and jumps from 02:00 CET to 03:00 CEST on 2026-03-29: 02:30 never happens
    expect(zonedTimeMs(wall(2026, 3, 29, 2, 30), 'Europe/Berlin')).toBe(Date.parse('2026-03-29T02:30:00+01:00'));
  });

  it('gives back every moment from its wall-clock time in the zone, or the earlier moment of a repeated one', () => {
    const zones = ['UTC', 'Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'Pacific/Chatham'];
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_102_444_800 }), fc.constantFrom(...zones), (seconds, zone) => {
        const moment = seconds * 1000;
        const read = zonedTimeMs(wallOf(moment, zone), zone);
        expect(wallOf(read, zone)).toBe(wallOf(moment, zone));
        expect(read).toBeLessThanOrEqual(moment);
        expect(moment - read).toBeLessThanOrEqual(3_600_000);
      }),
    );
  });
});

/** A moment's wall-clock time in a zone, read as if it were UTC. */
function wallOf(moment: number, timeZone: string): number {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    })
      .formatToParts(moment)
      .map((p) => [p.type, Number(p.value)]),
  );
  return Date.UTC(parts['year']!, parts['month']! - 1, parts['day']!, parts['hour']!, parts['minute']!, parts['second']!);
}
