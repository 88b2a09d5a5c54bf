// @ts-check
/** Compares every frozen surface of every published package at a base commit with its current report. */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { showFile } from './git.mjs';
import { packageSurfaces, surfaceLabel } from './surfaces.mjs';
import { publishedPackages } from './workspace.mjs';

/**
 * @typedef {object} PackageComparison
 * @property {import('./workspace.mjs').PackageInfo} pkg
 * @property {import('./surfaces.mjs').Surface} surface  which report: the API report or the CLI surface
 * @property {string} label               the package, with "(CLI)" for its CLI surface
 * @property {string} reportPath          repo-relative, e.g. "api-reports/core.api.md"
 * @property {string | undefined} before  report at the base (undefined: did not exist)
 * @property {string | undefined} after   current report (undefined: missing)
 * @property {import('./classify.mjs').Classification | undefined} classification  undefined when unchanged
 */

/**
 * @param {{ root: string, baseSha: string | undefined, current?: (pkg: import('./workspace.mjs').PackageInfo, committedPath: string, surface: import('./surfaces.mjs').Surface) => string | undefined }} opts
 *   `current` returns the report to compare with (default: the working-tree file)
 * @returns {PackageComparison[]}
 */
export function compareReports({ root, baseSha, current }) {
  return publishedPackages(root).flatMap((pkg) =>
    packageSurfaces(pkg).map((surface) => {
      const { reportPath } = surface;
      const abs = path.join(root, reportPath);
      const before = baseSha ? showFile(baseSha, reportPath, root)?.replace(/\r\n/g, '\n') : undefined;
      const after = current ? current(pkg, abs, surface) : existsSync(abs) ? readFileSync(abs, 'utf8').replace(/\r\n/g, '\n') : undefined;
      const classification = after !== undefined && before !== after ? surface.classify(before, after) : undefined;
      return { pkg, surface, label: surfaceLabel(pkg, surface), reportPath, before, after, classification };
    }),
  );
}
