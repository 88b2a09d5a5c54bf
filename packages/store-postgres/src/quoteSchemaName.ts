const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Checks a PostgreSQL schema name (lower-case letters, digits, `_`; at most 63) and quotes it.
 *
 * @internal
 */
export function quoteSchemaName(name: string): string | null {
  return IDENTIFIER.test(name) ? `"${name}"` : null;
}
