import { crossRealmBrand } from './crossRealmBrand.js';
import { keepShapeAlive } from './keepShapeAlive.js';
import { isWriteKind, WriteKind } from './WriteKind.js';

/**
 * Whether an object was made by this copy's WriteTarget constructor: it carries the class's
 * private field, which a prototype, a cast or a proxy cannot forge. Set in the class's static block.
 */
let hasGenuineMark: (value: object) => boolean;
const CONSTRUCT = Symbol('WriteTarget.construct');
/** A target made by any copy of the package: the brand on the prototype, a frozen target with its own `kind`. */
const BRAND = crossRealmBrand('@runledger/core/WriteTarget', () => WriteTarget, { ownField: 'kind' });

/**
 * The record a writing tool created, changed or deleted: one value holding the resource, its id
 * and the kind of write.
 *
 * @public
 */
export class WriteTarget {
  /** The kind of resource, e.g. `ticket` or `page`. */
  readonly resource: string;
  /** The id of the record within the resource. */
  readonly id: string;
  /** What the tool did to the record. */
  readonly kind: WriteKind;
  /** Only this class's constructor sets it; see {@link isGenuineWriteTarget}. */
  readonly #genuine = true;

  static {
    hasGenuineMark = (value) => #genuine in value;
    BRAND.mark(WriteTarget.prototype);
  }

  private constructor(token: symbol, resource: string, id: string, kind: WriteKind) {
    if (token !== CONSTRUCT) {
      throw new TypeError('WriteTarget is made through its factories: created(), changed(), deleted(), of()');
    }
    this.resource = resource;
    this.id = id;
    this.kind = kind;
    Object.freeze(this);
  }

  /** A record the tool created. */
  static created(resource: string, id: string): WriteTarget {
    return WriteTarget.of(resource, id, WriteKind.CREATED);
  }

  /** A record the tool changed. */
  static changed(resource: string, id: string): WriteTarget {
    return WriteTarget.of(resource, id, WriteKind.CHANGED);
  }

  /** A record the tool deleted. */
  static deleted(resource: string, id: string): WriteTarget {
    return WriteTarget.of(resource, id, WriteKind.DELETED);
  }

  /**
   * Makes a write target from its parts, as read back from storage.
   *
   * @throws TypeError from `WriteTarget.of` when resource or id is empty, or kind is unknown.
   */
  static of(resource: string, id: string, kind: WriteKind): WriteTarget {
    if (typeof resource !== 'string' || resource.length === 0) {
      throw new TypeError('WriteTarget.resource must be a non-empty string');
    }
    if (typeof id !== 'string' || id.length === 0) {
      throw new TypeError('WriteTarget.id must be a non-empty string');
    }
    if (!isWriteKind(kind)) {
      throw new TypeError(
        `WriteTarget.kind must be one of "created", "changed", "deleted", got ${typeof kind === 'string' ? JSON.stringify(kind) : String(kind as unknown)}`,
      );
    }
    return new WriteTarget(CONSTRUCT, resource, id, kind);
  }

  /**
   * Tells whether a value is a WriteTarget, also one made by another copy of this package (a
   * second `node_modules` folder, a `vm` realm).
   */
  static is(value: unknown): value is WriteTarget {
    return typeof value === 'object' && value !== null && (#genuine in value || BRAND.is(value));
  }

  /** Makes `instanceof WriteTarget` work like {@link WriteTarget.is}, also across copies of this package. */
  static [Symbol.hasInstance](value: unknown): boolean {
    return BRAND.hasInstance(this, value);
  }

  /** The target as a plain object (`resource`, `id`, `kind`). */
  toJSON(): { resource: string; id: string; kind: WriteKind } {
    return { resource: this.resource, id: this.id, kind: this.kind };
  }
}

/**
 * Tells whether a value is a write target made by this copy of the package's factories (not an
 * object whose prototype was set to `WriteTarget.prototype`).
 *
 * @internal
 */
export function isGenuineWriteTarget(value: unknown): value is WriteTarget {
  return typeof value === 'object' && value !== null && hasGenuineMark(value);
}

// See keepShapeAlive.
keepShapeAlive(WriteTarget.created('shape', 'kept'));
