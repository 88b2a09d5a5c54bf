import { describe, expect, it } from 'vitest';
import { parseOlderThan } from './olderThan.js';
import { UsageError } from './UsageError.js';

const NOW = Date.parse('2026-12-01T12:00:00Z');

describe('parseOlderThan', () => {
  it('reads minutes, hours, days and weeks', () => {
    expect(parseOlderThan('90m', NOW)).toBe(90 * 60_000);
    expect(parseOlderThan('12h', NOW)).toBe(12 * 3_600_000);
    expect(parseOlderThan('30d', NOW)).toBe(30 * 86_400_000);
    expect(parseOlderThan('2w', NOW)).toBe(14 * 86_400_000);
  });

  it('refuses anything else, naming the flag and the form', () => {
    for (const bad of ['', '30', 'd', '30s', '0d', '-1d', '1.5d', '30 d', '30D', '1y']) {
      expect(() => parseOlderThan(bad, NOW)).toThrow(UsageError);
      expect(() => parseOlderThan(bad, NOW)).toThrow(/--older-than must be a duration like 30d/);
    }
  });

  it('refuses a span reaching before 1970, naming the flag, the rule and the furthest it takes', () => {
    const days = Math.floor(NOW / 86_400_000);
    expect(parseOlderThan(`${days}d`, NOW)).toBe(days * 86_400_000);
    for (const bad of [`${days + 1}d`, '9999999999d', '100000000d', `${'9'.repeat(400)}w`]) {
      expect(() => parseOlderThan(bad, NOW), bad).toThrow(
        `runledger prune: --older-than must not reach back before 1970-01-01 (at most ${bad.endsWith('w') ? Math.floor(NOW / 604_800_000) : days}${bad.slice(-1)} from now), got "${bad}"`,
      );
    }
  });
});
