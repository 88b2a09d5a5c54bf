import { describe, expect, it } from 'vitest';
import { ArtifactType, ToolArtifact } from './index.js';

describe('ToolArtifact', () => {
  it('table() holds row objects, text() a string', () => {
    const rows = [{ id: 1 }, { id: 2 }];
    const table = ToolArtifact.table('rows', rows);
    expect(table.type).toBe(ArtifactType.TABLE);
    expect(table.label).toBe('rows');
    expect(table.data).toEqual(rows);
    const text = ToolArtifact.text('note', 'hello');
    expect(text).toMatchObject({ type: 'text', label: 'note', data: 'hello' });
    expect(text.toJSON()).toEqual({ type: 'text', label: 'note', data: 'hello' });
    expect(JSON.stringify(table)).toBe('{"type":"table","label":"rows","data":[{"id":1},{"id":2}]}');
  });

  it('is frozen, and a table keeps its own copy of the row list', () => {
    const rows: Array<Record<string, unknown>> = [{ id: 1 }];
    const table = ToolArtifact.table('rows', rows);
    rows.push({ id: 2 });
    expect(table.data).toEqual([{ id: 1 }]);
    expect(Object.isFrozen(table)).toBe(true);
    expect(Object.isFrozen(table.data)).toBe(true);
    expect(() => (table.data as unknown[]).push({ id: 3 })).toThrow(TypeError);
    expect(() => {
      (table as { label: string }).label = 'other';
    }).toThrow(TypeError);
  });

  it('of() makes either type from its parts, as read back from storage', () => {
    expect(ToolArtifact.of('table', 'rows', [{ a: 1 }]).toJSON()).toEqual({ type: 'table', label: 'rows', data: [{ a: 1 }] });
    expect(ToolArtifact.of('text', 'note', 'n').toJSON()).toEqual({ type: 'text', label: 'note', data: 'n' });
  });

  it('refuses an unknown type, naming the field', () => {
    for (const type of ['json', 'TABLE', '', null, undefined, 3]) {
      expect(() => ToolArtifact.of(type as ArtifactType, 'l', 'x')).toThrow(/ToolArtifact\.type must be one of "table", "text"/);
    }
  });

  it('refuses data that does not fit the type, naming the field', () => {
    expect(() => ToolArtifact.of('text', 'l', 42)).toThrow(/ToolArtifact\.data must be a string for a "text" artifact/);
    expect(() => ToolArtifact.of('table', 'l', 'rows')).toThrow(/ToolArtifact\.data must be an array for a "table" artifact/);
    expect(() => ToolArtifact.table('l', { id: 1 } as unknown as [])).toThrow(/ToolArtifact\.table rows must be an array/);
    expect(() => ToolArtifact.text('l', null as unknown as string)).toThrow(/ToolArtifact\.text text must be a string/);
  });

  it('refuses a label that is not a string, naming the factory', () => {
    expect(() => ToolArtifact.table(1 as unknown as string, [])).toThrow(/ToolArtifact\.table label must be a string/);
    expect(() => ToolArtifact.text(undefined as unknown as string, 'x')).toThrow(/ToolArtifact\.text label must be a string/);
    expect(() => ToolArtifact.of('text', null as unknown as string, 'x')).toThrow(/ToolArtifact\.of label must be a string/);
  });

  it('cannot be constructed directly, through a cast or a subclass', () => {
    const Ctor = ToolArtifact as unknown as new (...args: unknown[]) => ToolArtifact;
    expect(() => new Ctor('table', 'rows', [])).toThrow(/ToolArtifact is made through its factories/);
    expect(() => new Ctor(Symbol('ToolArtifact.construct'), 'bogus', 'l', 1)).toThrow(TypeError);
    const Sub = class extends Ctor {};
    expect(() => new Sub('text', 'l', 'x')).toThrow(TypeError);
  });
});
