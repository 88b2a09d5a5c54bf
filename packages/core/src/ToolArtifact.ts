import { crossRealmBrand } from './crossRealmBrand.js';
import { keepShapeAlive } from './keepShapeAlive.js';
import { ArtifactType, isArtifactType } from './ArtifactType.js';

/**
 * Whether an object was made by this copy's ToolArtifact constructor: it carries the class's
 * private field, which a prototype, a cast or a proxy cannot forge. Set in the class's static block.
 */
let hasGenuineMark: (value: object) => boolean;
const CONSTRUCT = Symbol('ToolArtifact.construct');
/** An artifact made by any copy of the package: the brand on the prototype, a frozen artifact with its own `type`. */
const BRAND = crossRealmBrand('@runledger/core/ToolArtifact', () => ToolArtifact, { ownField: 'type' });

/**
 * Structured output of a tool call that is kept for the run (shown to the operator, stored with
 * the run) and never sent to the model.
 *
 * @remarks
 * A `table` artifact holds an array of row objects, a `text` artifact a string. Artifacts are
 * frozen when made; their JSON size is bounded by {@link ToolResult.withBoundedChannels}.
 *
 * @public
 */
export class ToolArtifact {
  /** What kind of data this artifact holds. */
  readonly type: ArtifactType;
  /** A short human-readable label. */
  readonly label: string;
  /** The data: row objects for `table`, a string for `text`. */
  readonly data: unknown;
  /** Only this class's constructor sets it; see {@link isGenuineToolArtifact}. */
  readonly #genuine = true;

  static {
    hasGenuineMark = (value) => #genuine in value;
    BRAND.mark(ToolArtifact.prototype);
  }

  private constructor(token: symbol, type: ArtifactType, label: string, data: unknown) {
    if (token !== CONSTRUCT) {
      throw new TypeError('ToolArtifact is made through its factories: table(), text(), of()');
    }
    this.type = type;
    this.label = label;
    this.data = data;
    Object.freeze(this);
  }

  /**
   * Makes a `table` artifact from an array of row objects.
   *
   * @throws TypeError from `ToolArtifact.table` when the label is not a string or rows is not an array.
   */
  static table(label: string, rows: readonly Readonly<Record<string, unknown>>[]): ToolArtifact {
    assertLabel('ToolArtifact.table', label);
    if (!Array.isArray(rows)) {
      throw new TypeError(`ToolArtifact.table rows must be an array, got ${typeof rows}`);
    }
    return new ToolArtifact(CONSTRUCT, ArtifactType.TABLE, label, Object.freeze([...rows]));
  }

  /**
   * Makes a `text` artifact.
   *
   * @throws TypeError from `ToolArtifact.text` when the label or the text is not a string.
   */
  static text(label: string, text: string): ToolArtifact {
    assertLabel('ToolArtifact.text', label);
    if (typeof text !== 'string') {
      throw new TypeError(`ToolArtifact.text text must be a string, got ${typeof text}`);
    }
    return new ToolArtifact(CONSTRUCT, ArtifactType.TEXT, label, text);
  }

  /**
   * Makes an artifact of any type from its parts, as read back from storage.
   *
   * @throws TypeError from `ToolArtifact.of` when the type is unknown, the label is not a string,
   * or the data does not fit the type (an array for `table`, a string for `text`).
   */
  static of(type: ArtifactType, label: string, data: unknown): ToolArtifact {
    if (!isArtifactType(type)) {
      throw new TypeError(`ToolArtifact.type must be one of "table", "text", got ${describeValue(type)}`);
    }
    assertLabel('ToolArtifact.of', label);
    if (type === ArtifactType.TABLE) {
      if (!Array.isArray(data)) {
        throw new TypeError(`ToolArtifact.data must be an array for a "table" artifact, got ${typeof data}`);
      }
      return new ToolArtifact(CONSTRUCT, type, label, Object.freeze([...data]));
    }
    if (typeof data !== 'string') {
      throw new TypeError(`ToolArtifact.data must be a string for a "text" artifact, got ${typeof data}`);
    }
    return new ToolArtifact(CONSTRUCT, type, label, data);
  }

  /**
   * Tells whether a value is a ToolArtifact, also one made by another copy of this package (a
   * second `node_modules` folder, a `vm` realm).
   */
  static is(value: unknown): value is ToolArtifact {
    return typeof value === 'object' && value !== null && (#genuine in value || BRAND.is(value));
  }

  /** Makes `instanceof ToolArtifact` work like {@link ToolArtifact.is}, also across copies of this package. */
  static [Symbol.hasInstance](value: unknown): boolean {
    return BRAND.hasInstance(this, value);
  }

  /** The artifact as a plain object (`type`, `label`, `data`). */
  toJSON(): { type: ArtifactType; label: string; data: unknown } {
    return { type: this.type, label: this.label, data: this.data };
  }
}

function assertLabel(where: string, label: unknown): void {
  if (typeof label !== 'string') {
    throw new TypeError(`${where} label must be a string, got ${typeof label}`);
  }
}

function describeValue(value: unknown): string {
  try {
    return typeof value === 'string' ? JSON.stringify(value) : String(value);
  } catch {
    return typeof value;
  }
}

/**
 * Tells whether a value is an artifact made by this copy of the package's factories (not an
 * object whose prototype was set to `ToolArtifact.prototype`).
 *
 * @internal
 */
export function isGenuineToolArtifact(value: unknown): value is ToolArtifact {
  return typeof value === 'object' && value !== null && hasGenuineMark(value);
}

// See keepShapeAlive. A table's frozen rows array has a hidden class of its own, by element kind.
keepShapeAlive(ToolArtifact.table('', [{}]));
keepShapeAlive(ToolArtifact.text('', ''));
