import { describe, expect, it } from 'vitest';
import { crossRealmBrand } from './internal.js';

// A class branded the one way every error class of runledger is (see McpTransportException and
// its copies test for the crossing itself: two module instances and a vm realm).
const BRAND = crossRealmBrand('@runledger/core/test/Branded', () => Branded);

class Branded extends Error {
  constructor(message: string) {
    super(message);
    BRAND.mark(this);
  }
  static is(value: unknown): value is Branded {
    return BRAND.is(value);
  }
  static override [Symbol.hasInstance](value: unknown): boolean {
    return BRAND.hasInstance(this, value);
  }
}

class Special extends Branded {}

describe('crossRealmBrand', () => {
  it('recognises an instance by the registry symbol of its key, also one marked by another copy of the class', () => {
    const error = new Branded('x');
    expect(Branded.is(error)).toBe(true);
    expect(error instanceof Branded).toBe(true);
    // Another copy of the package makes its own brand from the same key: the symbol is the same.
    const other = crossRealmBrand('@runledger/core/test/Branded', () => Branded);
    const fromOtherCopy = new Error('y');
    other.mark(fromOtherCopy as Branded);
    expect(Branded.is(fromOtherCopy)).toBe(true);
    expect(fromOtherCopy instanceof Branded).toBe(true);
  });

  it('refuses what it did not mark: another key, a forged brand, the prototype, primitives', () => {
    const elsewhere = crossRealmBrand('@runledger/core/test/Elsewhere', () => Branded);
    const marked = new Error('z');
    elsewhere.mark(marked as Branded);
    for (const value of [
      marked,
      new Error('plain'),
      Object.create(Branded.prototype),
      { [Symbol.for('@runledger/core/test/Branded')]: 'yes' },
      null,
      undefined,
      'Branded',
    ]) {
      expect(Branded.is(value)).toBe(false);
      expect(value instanceof Branded).toBe(false);
    }
  });

  it('marks with a non-enumerable, non-writable own property that JSON does not show', () => {
    const error = new Branded('x');
    const descriptor = Object.getOwnPropertyDescriptor(error, Symbol.for('@runledger/core/test/Branded'));
    expect(descriptor).toEqual({ value: true, enumerable: false, writable: false, configurable: false });
    expect(JSON.stringify(error)).toBe('{}');
  });

  it('instanceof a subclass is the ordinary prototype-chain test', () => {
    const special = new Special('s');
    expect(special instanceof Special).toBe(true);
    expect(special instanceof Branded).toBe(true);
    expect(Special.is(special)).toBe(true);
    // A plain instance of the base is not an instance of the subclass.
    expect(new Branded('b') instanceof Special).toBe(false);
  });

  it('returns a frozen brand', () => {
    expect(Object.isFrozen(BRAND)).toBe(true);
  });
});
