import { describe, expect, it } from 'vitest';
import { ArtifactType, isArtifactType } from './index.js';

describe('ArtifactType', () => {
  it('has exactly table and text', () => {
    expect(ArtifactType).toEqual({ TABLE: 'table', TEXT: 'text' });
  });

  it('isArtifactType accepts the two strings and nothing else', () => {
    expect(isArtifactType('table')).toBe(true);
    expect(isArtifactType('text')).toBe(true);
    for (const value of ['Table', 'TEXT', 'json', '', null, undefined, 1, {}, ['text']]) {
      expect(isArtifactType(value)).toBe(false);
    }
  });
});
