import { ArtifactType, isArtifactType } from './ArtifactType.js';

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

  private constructor(type: ArtifactType, label: string, data: unknown) {
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
    return new ToolArtifact(ArtifactType.TABLE, label, rows);
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
    return new ToolArtifact(ArtifactType.TEXT, label, text);
  }

  /**
   * Makes an artifact of any type from its parts, as read back from storage.
   *
   * @throws TypeError from `ToolArtifact.of` when the type is unknown or the label is not a string.
   */
  static of(type: ArtifactType, label: string, data: unknown): ToolArtifact {
    if (!isArtifactType(type)) {
      throw new TypeError(`ToolArtifact.type must be one of "table", "text", got ${JSON.stringify(type)}`);
    }
    assertLabel('ToolArtifact.of', label);
    return new ToolArtifact(type, label, data);
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
