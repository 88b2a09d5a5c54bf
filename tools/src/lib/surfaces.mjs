// @ts-check
/**
 * The frozen surfaces of a published package, each a file under api-reports/ with its own
 * classifier: the TypeScript API report (`<unscoped>.api.md`, every package) and, for a package
 * with a `bin`, the CLI surface report (`<unscoped>.cli.json`). The gate, `api:diff` and the
 * history check go through this list, so a CLI change counts exactly like an API report change.
 */
import { classifyReports } from './classify.mjs';
import { classifyCliSurface } from './classifyCliSurface.mjs';
import { cliSurfaceText, hasCliSurface } from './cliSurface.mjs';

/**
 * The CLI surface of a package without a `bin`: no command, no exit code. A CLI report that goes
 * away (the `bin` removed, or the report deleted) is judged against it, so removing the command
 * line is a breaking change like removing any command of it.
 */
export const NO_CLI_SURFACE = cliSurfaceText({ commands: [], exitCodes: [], program: null });

/**
 * @typedef {object} Surface
 * @property {'api' | 'cli'} kind
 * @property {string} reportPath   repo-relative, `/`-separated, e.g. "api-reports/cli.cli.json"
 * @property {(before: string | undefined, after: string) => import('./classify.mjs').Classification} classify
 * @property {string | undefined} gone  what a missing report means: the empty surface it is judged
 *   as (a CLI that is no more), or undefined where a missing report is an error (the API report)
 */

/** @param {{ unscoped: string }} pkg */
export const cliReportPath = (pkg) => `api-reports/${pkg.unscoped}.cli.json`;

/**
 * The surfaces of a package. The CLI surface is there when the package declares a `bin`, or when a
 * CLI report of it exists anywhere the caller looks (`cliReportSeen`: at the base, in the working
 * tree, in a commit or its parent): a package that drops its `bin` is judged for dropping its CLI.
 * @param {import('./workspace.mjs').PackageInfo} pkg
 * @param {{ cliReportSeen?: boolean }} [opts]
 * @returns {Surface[]}
 */
export function packageSurfaces(pkg, opts = {}) {
  /** @type {Surface[]} */
  const surfaces = [{ kind: 'api', reportPath: `api-reports/${pkg.unscoped}.api.md`, classify: (before, after) => classifyReports(before, after, { resolveDir: pkg.dir }), gone: undefined }];
  const hasBin = hasCliSurface(pkg);
  if (hasBin || opts.cliReportSeen) surfaces.push({ kind: 'cli', reportPath: cliReportPath(pkg), classify: classifyCliSurface, gone: hasBin ? undefined : NO_CLI_SURFACE });
  return surfaces;
}

/**
 * How a surface is named in messages: the package, plus "(CLI)" for its CLI surface.
 * @param {import('./workspace.mjs').PackageInfo} pkg @param {Surface} surface
 */
export const surfaceLabel = (pkg, surface) => (surface.kind === 'cli' ? `${pkg.name} (CLI)` : pkg.name);
