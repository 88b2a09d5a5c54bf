import { checkRunIdPrefix } from '@runledger/trace/store';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runIdsByPrefixStatement } from './runIdsByPrefixStatement.js';

const uuids = fc.uuid({ version: 4 });

describe('runIdsByPrefixStatement', () => {
  it('bounds exactly the UUIDs that start with the prefix, in any case (generated)', () => {
    fc.assert(
      fc.property(uuids, fc.integer({ min: 1, max: 36 }), uuids, fc.boolean(), (id, length, other, upper) => {
        const given = id.slice(0, length);
        const { prefix, limit } = checkRunIdPrefix(upper ? given.toUpperCase() : given);
        const statement = runIdsByPrefixStatement(prefix!, limit, '"s"');
        const [low, high] = statement.values as [string, string];
        // a uuid orders as its lower-case text
        expect(low <= id && id <= high).toBe(true);
        expect(low <= other && other <= high).toBe(other.startsWith(given));
      }),
    );
    expect(runIdsByPrefixStatement('12345678-', 10, '"s"').values).toEqual([
      '12345678-0000-0000-0000-000000000000',
      '12345678-ffff-ffff-ffff-ffffffffffff',
    ]);
  });
});
