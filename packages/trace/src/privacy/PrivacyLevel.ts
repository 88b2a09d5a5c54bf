/**
 * How much of a step's content leaves the process for storage.
 *
 * @remarks
 * - `none`: only the step's identity — kind, round, duration, tool name, server, outcome
 *   (`toolIsError`, `toolOutcome`) and token counts.
 * - `metadata` (the default): every metadata key; content keys are dropped and replaced by
 *   counts and lengths.
 * - `redacted`: everything, with secret-looking strings and e-mail addresses masked and
 *   long strings capped.
 * - `full`: everything, as recorded.
 *
 * Whatever the level, the outcome, tool name, server and token counts survive, and the
 * timeline shows metadata only.
 *
 * @public
 */
export const PrivacyLevel = {
  NONE: 'none',
  METADATA: 'metadata',
  REDACTED: 'redacted',
  FULL: 'full',
} as const;

/**
 * One of the level strings of {@link (PrivacyLevel:variable)}.
 *
 * @public
 */
export type PrivacyLevel = (typeof PrivacyLevel)[keyof typeof PrivacyLevel];

/**
 * Every privacy level, from the least kept to the most.
 *
 * @public
 */
export const PRIVACY_LEVELS: readonly PrivacyLevel[] = Object.freeze([
  PrivacyLevel.NONE,
  PrivacyLevel.METADATA,
  PrivacyLevel.REDACTED,
  PrivacyLevel.FULL,
]);

/**
 * Tells whether a value is one of the privacy level strings.
 *
 * @public
 */
export function isPrivacyLevel(value: unknown): value is PrivacyLevel {
  return typeof value === 'string' && (PRIVACY_LEVELS as readonly string[]).includes(value);
}
