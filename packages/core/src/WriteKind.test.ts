import { describe, expect, it } from 'vitest';
import { isWriteKind, WriteKind } from './index.js';

describe('WriteKind', () => {
  it('has exactly created, changed and deleted', () => {
    expect(WriteKind).toEqual({ CREATED: 'created', CHANGED: 'changed', DELETED: 'deleted' });
  });

  it('isWriteKind accepts the three strings and nothing else', () => {
    for (const kind of Object.values(WriteKind)) {
      expect(isWriteKind(kind)).toBe(true);
    }
    for (const value of ['create', 'updated', 'Deleted', '', null, undefined, true, 0, {}]) {
      expect(isWriteKind(value)).toBe(false);
    }
  });
});
