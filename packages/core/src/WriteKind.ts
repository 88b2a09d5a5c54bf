/**
 * What a writing tool did to a record: `created`, `changed` or `deleted`.
 *
 * @public
 */
export const WriteKind = {
  CREATED: 'created',
  CHANGED: 'changed',
  DELETED: 'deleted',
} as const;

/**
 * One of the write kind strings of {@link (WriteKind:variable)}.
 *
 * @public
 */
export type WriteKind = (typeof WriteKind)[keyof typeof WriteKind];

/**
 * Tells whether a value is one of the write kind strings.
 *
 * @public
 */
export function isWriteKind(value: unknown): value is WriteKind {
  return value === WriteKind.CREATED || value === WriteKind.CHANGED || value === WriteKind.DELETED;
}
