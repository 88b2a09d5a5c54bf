import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InMemoryRunStore } from './InMemoryRunStore.js';
import { checkRunIdPrefix } from './RunSearch.js';
import { canSearchRuns } from './SearchingRunStore.js';
import type { RunStore } from './RunStore.js';
import { RunStoreError } from './RunStoreError.js';

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (RunStoreError.is(error) && error.code === 'invalid_input') return error.message;
    throw error;
  }
  throw new Error('expected an invalid_input RunStoreError');
}

describe('checkRunIdPrefix', () => {
  it('keeps every start of a UUID, in lower case, and 10 ids by default', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.integer({ min: 1, max: 36 }), fc.boolean(), (id, length, upper) => {
        const start = id.slice(0, length);
        expect(checkRunIdPrefix(upper ? start.toUpperCase() : start)).toEqual({ prefix: start.toLowerCase(), limit: 10 });
      }),
    );
  });

  it('reads as null a text no UUID starts with: not hex, a hyphen out of place, too long', () => {
    for (const prefix of [
      'g',
      'run-1',
      'abc%',
      'ab_',
      '-',
      'abcdefgh',
      'abcdef0-',
      'abcdef01x',
      '00000000-0000-4000-8000-0000000000001',
      ' a',
      'ａ',
    ]) {
      expect(checkRunIdPrefix(prefix).prefix).toBeNull();
    }
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), (text) => {
        const { prefix } = checkRunIdPrefix(text);
        const lower = text.toLowerCase();
        const starts = /^[0-9a-f]{0,8}$|^[0-9a-f]{8}-[0-9a-f]{0,4}$|^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{0,4}$/.test(lower);
        if (starts) expect(prefix).toBe(lower);
        if (!/^[0-9a-f-]+$/.test(lower)) expect(prefix).toBeNull();
      }),
    );
  });

  it('caps the limit at 200 and refuses a prefix or limit out of the rule, naming it', () => {
    expect(checkRunIdPrefix('a', 1).limit).toBe(1);
    expect(checkRunIdPrefix('a', 5000).limit).toBe(200);
    expect(checkRunIdPrefix('a', undefined).limit).toBe(10);
    expect(refusal(() => checkRunIdPrefix(''))).toBe(`findRunIdsByPrefix's prefix must be a non-empty string, got ""`);
    expect(refusal(() => checkRunIdPrefix(null))).toContain('prefix');
    expect(refusal(() => checkRunIdPrefix(7))).toContain('prefix');
    for (const limit of [0, -1, 1.5, Number.NaN, '5', null]) {
      expect(refusal(() => checkRunIdPrefix('a', limit))).toContain(`findRunIdsByPrefix's limit must be a positive integer`);
    }
  });
});

describe('canSearchRuns', () => {
  it('holds for a store with all three methods only', () => {
    const store = InMemoryRunStore.create();
    expect(canSearchRuns(store)).toBe(true);
    const partial = { runTotals: store.runTotals.bind(store), listToolCalls: store.listToolCalls.bind(store) } as unknown as RunStore;
    expect(canSearchRuns(partial)).toBe(false);
    expect(canSearchRuns({} as RunStore)).toBe(false);
  });
});
