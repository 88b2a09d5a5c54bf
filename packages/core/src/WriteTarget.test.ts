import { describe, expect, it } from 'vitest';
import { WriteKind, WriteTarget } from './index.js';

describe('WriteTarget', () => {
  it.each([
    ['created', WriteTarget.created('ticket', 'T-1')],
    ['changed', WriteTarget.changed('ticket', 'T-1')],
    ['deleted', WriteTarget.deleted('ticket', 'T-1')],
    ['created', WriteTarget.of('ticket', 'T-1', WriteKind.CREATED)],
  ])('holds resource, id and the kind %s in one value', (kind, target) => {
    expect(target.resource).toBe('ticket');
    expect(target.id).toBe('T-1');
    expect(target.kind).toBe(kind);
    expect(target.toJSON()).toEqual({ resource: 'ticket', id: 'T-1', kind });
    expect(JSON.parse(JSON.stringify(target))).toEqual({ resource: 'ticket', id: 'T-1', kind });
  });

  it('is immutable', () => {
    const target = WriteTarget.created('page', '9');
    expect(Object.isFrozen(target)).toBe(true);
    expect(() => {
      (target as { kind: string }).kind = 'deleted';
    }).toThrow(TypeError);
    expect(target.kind).toBe('created');
  });

  it('refuses an empty or non-string resource, naming the field', () => {
    for (const resource of ['', undefined, null, 1, {}]) {
      expect(() => WriteTarget.created(resource as string, '1')).toThrow(/WriteTarget\.resource must be a non-empty string/);
      expect(() => WriteTarget.of(resource as string, '1', 'changed')).toThrow(TypeError);
    }
  });

  it('refuses an empty or non-string id, naming the field', () => {
    for (const id of ['', undefined, null, 42, {}]) {
      expect(() => WriteTarget.deleted('ticket', id as string)).toThrow(/WriteTarget\.id must be a non-empty string/);
    }
  });

  it('refuses an unknown kind, naming the field and the allowed values', () => {
    for (const kind of ['updated', 'Created', '', null, undefined, 1, Symbol('created')]) {
      expect(() => WriteTarget.of('ticket', '1', kind as WriteKind)).toThrow(
        /WriteTarget\.kind must be one of "created", "changed", "deleted", got /,
      );
    }
    expect(() => WriteTarget.of('ticket', '1', 'updated' as WriteKind)).toThrow(/got "updated"/);
  });

  it('cannot be constructed directly, through a cast or a subclass', () => {
    const Ctor = WriteTarget as unknown as new (...args: unknown[]) => WriteTarget;
    expect(() => new Ctor('ticket', '1', 'created')).toThrow(/WriteTarget is made through its factories/);
    expect(() => new Ctor(Symbol('WriteTarget.construct'), '', '', 'exploded')).toThrow(TypeError);
    const Sub = class extends Ctor {};
    expect(() => new Sub('ticket', '1', 'created')).toThrow(TypeError);
  });
});
