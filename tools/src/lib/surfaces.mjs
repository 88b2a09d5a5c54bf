// @ts-check
/**
 * The frozen surfaces of a published package, each a file under api-reports/ with its own
 * classifier: the TypeScript API report (`<unscoped>.api.md`, every package) and, for a package
 * with a `bin`, the CLI surface report (`<unscoped>.cli.json`). The gate, `api:diff` and the
 * history check go through this list, so a CLI change counts exactly like an API report change.
 */
import { classifyReports } from './classify.mjs';
import { classifyCliSurface } from './classifyCliSurface.mjs';
import { hasCliSurface } from './cliSurface.mjs';

/**
 * @typedef {object} Surface
 * @property {'api' | 'cli'} kind
 * @property {string} reportPath   repo-relative, `/`-separated, e.g. "api-reports/cli.cli.json"
 * @property {(before: string | undefined, after: string) => import('./classify.mjs').Classification} classify
 */

/**
 * @param {import('./workspace.mjs').PackageInfo} pkg
 * @returns {Surface[]}
 */
export function packageSurfaces(pkg) {
  /** @type {Surface[]} */
  const surfaces = [{ kind: 'api', reportPath: `api-reports/${pkg.unscoped}.api.md`, classify: (before, after) => classifyReports(before, after, { resolveDir: pkg.dir }) }];
  if (hasCliSurface(pkg)) surfaces.push({ kind: 'cli', reportPath: `api-reports/${pkg.unscoped}.cli.json`, classify: classifyCliSurface });
  return surfaces;
}

/**
 * How a surface is named in messages: the package, plus "(CLI)" for its CLI surface.
 * @param {import('./workspace.mjs').PackageInfo} pkg @param {Surface} surface
 */
export const surfaceLabel = (pkg, surface) => (surface.kind === 'cli' ? `${pkg.name} (CLI)` : pkg.name);
