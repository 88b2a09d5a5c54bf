// @ts-check
/** Compares every published package's report at a base commit with its current report. */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { classifyReports } from './classify.mjs';
import { showFile } from './git.mjs';
import { publishedPackages } from './workspace.mjs';

/**
 * @typedef {object} PackageComparison
 * @property {import('./workspace.mjs').PackageInfo} pkg
 * @property {string} reportPath          repo-relative, e.g. "api-reports/core.api.md"
 * @property {string | undefined} before  report at the base (undefined: did not exist)
 * @property {string | undefined} after   current report (undefined: missing)
 * @property {import('./classify.mjs').Classification | undefined} classification  undefined when unchanged
 */

/**
 * @param {{ root: string, baseSha: string | undefined, current?: (pkg: import('./workspace.mjs').PackageInfo, committedPath: string) => string | undefined }} opts
 *   `current` returns the report to compare with (default: the working-tree file)
 * @returns {PackageComparison[]}
 */
export function compareReports({ root, baseSha, current }) {
  return publishedPackages(root).map((pkg) => {
    const reportPath = `api-reports/${pkg.unscoped}.api.md`;
    const abs = path.join(root, reportPath);
    const before = baseSha ? showFile(baseSha, reportPath, root)?.replace(/\r\n/g, '\n') : undefined;
    const after = current ? current(pkg, abs) : existsSync(abs) ? readFileSync(abs, 'utf8').replace(/\r\n/g, '\n') : undefined;
    const classification = after !== undefined && before !== after ? classifyReports(before, after, { resolveDir: pkg.dir }) : undefined;
    return { pkg, reportPath, before, after, classification };
  });
}
