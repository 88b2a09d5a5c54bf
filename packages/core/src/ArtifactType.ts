/**
 * The shape of a {@link ToolArtifact}'s data: a `table` of rows or a `text`.
 *
 * @public
 */
export const ArtifactType = {
  /** `data` is an array of row objects. */
  TABLE: 'table',
  /** `data` is a string. */
  TEXT: 'text',
} as const;

/**
 * One of the artifact type strings of {@link (ArtifactType:variable)}.
 *
 * @public
 */
export type ArtifactType = (typeof ArtifactType)[keyof typeof ArtifactType];

/**
 * Tells whether a value is one of the artifact type strings.
 *
 * @public
 */
export function isArtifactType(value: unknown): value is ArtifactType {
  return value === ArtifactType.TABLE || value === ArtifactType.TEXT;
}
