import { describe, expect, it } from 'vitest';
import { parseOlderThan } from './olderThan.js';
import { UsageError } from './UsageError.js';

describe('parseOlderThan', () => {
  it('reads minutes, hours, days and weeks', () => {
    expect(parseOlderThan('90m')).toBe(90 * 60_000);
    expect(parseOlderThan('12h')).toBe(12 * 3_600_000);
    expect(parseOlderThan('30d')).toBe(30 * 86_400_000);
    expect(parseOlderThan('2w')).toBe(14 * 86_400_000);
  });

  it('refuses anything else, naming the flag and the form', () => {
    for (const bad of ['', '30', 'd', '30s', '0d', '-1d', '1.5d', '30 d', '30D', '1y', '9999999999d']) {
      expect(() => parseOlderThan(bad)).toThrow(UsageError);
      expect(() => parseOlderThan(bad)).toThrow(/--older-than must be a duration like 30d/);
    }
  });
});
