/** A value that starts like a URL (`mysql://`, `postgres://`): a scheme and `://`. */
const URL_LIKE = /^([a-z][a-z0-9+.-]*):\/\//i;

/**
 * The query parameters of a connection URL that hold a secret: the ones libpq and the pg driver
 * (pg-connection-string passes every query parameter on as a setting) read as one — `password`
 * and `sslpassword` (the passphrase of the client key). `sslkey`, `sslcert`, `sslrootcert` and
 * `passfile` name files, not secrets, and stay readable. Matched in any case, so that no spelling
 * prints a secret.
 */
const SECRET_PARAMETERS: ReadonlySet<string> = new Set(['password', 'sslpassword']);

/** What a secret is printed as. */
const MASK = '***';

/**
 * A connection URL as it may be printed: the password of `user:pass@` and every secret query
 * parameter (`?password=`, `?sslpassword=`) replaced by `***`, the rest kept; a value that does
 * not parse as a URL is named by its scheme alone (`postgres://…`). The one place the CLI masks a
 * URL: the banner of `serve`, every message that names the store and every refusal of a flag.
 *
 * @internal
 */
export function maskedPostgresUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${URL_LIKE.exec(url)?.[0] ?? ''}…`;
  }
  if (parsed.password !== '') parsed.password = MASK;
  const entries = [...parsed.searchParams];
  if (entries.some(([name]) => SECRET_PARAMETERS.has(name.toLowerCase()))) {
    parsed.search = new URLSearchParams(
      entries.map(([name, value]): [string, string] => [name, SECRET_PARAMETERS.has(name.toLowerCase()) ? MASK : value]),
    ).toString();
  }
  return parsed.toString();
}
