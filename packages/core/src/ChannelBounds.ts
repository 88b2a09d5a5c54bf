/**
 * Byte limits for the channels of a {@link ToolResult}: the content sent to the model and the
 * run-only artifacts.
 *
 * @public
 */
export interface ChannelBounds {
  /** The most UTF-8 bytes the content may take, truncation marker included. Inclusive. */
  readonly contentBytes?: number;
  /** The most UTF-8 bytes the JSON of all artifacts together may take. Inclusive. */
  readonly artifactBytes?: number;
}

/**
 * The limits used where a {@link ChannelBounds} field is not given: 50 000 bytes each.
 *
 * @public
 */
export const DEFAULT_CHANNEL_BOUNDS: Readonly<Required<ChannelBounds>> = Object.freeze({
  contentBytes: 50_000,
  artifactBytes: 50_000,
});

/**
 * Fills in the defaults and checks each limit is a positive safe integer.
 *
 * @throws RangeError naming the field, e.g. `ChannelBounds.contentBytes must be a positive integer`.
 * @internal
 */
export function resolveChannelBounds(bounds: ChannelBounds | undefined): Readonly<Required<ChannelBounds>> {
  if (bounds === undefined) {
    return DEFAULT_CHANNEL_BOUNDS;
  }
  const resolved = {
    contentBytes: bounds?.contentBytes ?? DEFAULT_CHANNEL_BOUNDS.contentBytes,
    artifactBytes: bounds?.artifactBytes ?? DEFAULT_CHANNEL_BOUNDS.artifactBytes,
  };
  for (const field of ['contentBytes', 'artifactBytes'] as const) {
    const value = resolved[field];
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new RangeError(`ChannelBounds.${field} must be a positive integer, got ${String(value)}`);
    }
  }
  return resolved;
}
