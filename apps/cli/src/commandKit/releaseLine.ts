/**
 * The release line of a semver version: the part that, by the 0.x rule, may break between
 * releases — `major.minor` below 1.0 (a 0.x minor may break), `major` from 1.0 on. Two versions
 * of the same line are compatible; a CLI built against one line must not run on another.
 *
 * @throws Error from `releaseLine` when the version is not `major.minor.patch` (with an optional pre-release or build suffix).
 * @internal
 */
export function releaseLine(version: string): string {
  const match = /^(\d+)\.(\d+)\.(\d+)(?:[-+].*)?$/.exec(version);
  if (match === null) throw new Error(`releaseLine: version must be major.minor.patch, got ${JSON.stringify(version)}`);
  return match[1] === '0' ? `0.${match[2]}` : match[1]!;
}
