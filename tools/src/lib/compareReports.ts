/** Compares every frozen surface of every published package at a base commit with its current report. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { formerEntryReports } from './entries.ts';
import { listFiles, showFile } from './git.ts';
import { cliReportPath, packageSurfaces } from './surfaces.ts';
import { publishedPackages } from './workspace.ts';
import type { PackageInfo } from './workspace.ts';
import type { Surface } from './surfaces.ts';
import type { Classification } from './classifier/classify.ts';

export interface PackageComparison {
  pkg: PackageInfo;
  /** which report: the API report or the CLI surface */
  surface: Surface;
  /** the package, its subpath entry ("@runledger/trace/store"), or "(CLI)" for its CLI surface */
  label: string;
  /** repo-relative, e.g. "api-reports/core.api.md" */
  reportPath: string;
  /** report at the base (undefined: did not exist) */
  before: string | undefined;
  /** current report (undefined: missing) */
  after: string | undefined;
  /** undefined when unchanged */
  classification: Classification | undefined;
}

/**
 *   `current` returns the report to compare with (default: the working-tree file)
 *   `baseOf` the base of one package when it is not `baseSha` (the gate: its last release)
 */
export function compareReports({
  root,
  baseSha,
  current,
  baseOf,
}: {
  root: string;
  baseSha: string | undefined;
  current?: (pkg: PackageInfo, committedPath: string, surface: Surface) => string | undefined;
  baseOf?: (pkg: PackageInfo) => string | undefined;
}): PackageComparison[] {
  const packages = publishedPackages(root);
  // every report at the base and in the working tree: an entry point's report seen there whose
  // entry the package no longer exports is judged as removed
  const reportsDir = path.join(root, 'api-reports');
  const reportsNow = existsSync(reportsDir) ? readdirSync(reportsDir).map((f) => `api-reports/${f}`) : [];
  const reportsAt: Map<string | undefined, string[]> = new Map();
  const reportsSeen = (sha: string | undefined) => {
    let seen = reportsAt.get(sha);
    if (!seen) reportsAt.set(sha, (seen = [...(sha ? listFiles(sha, 'api-reports', root) : []), ...reportsNow]));
    return seen;
  };
  return packages.flatMap((pkg) => {
    const pkgBase = baseOf ? baseOf(pkg) : baseSha;
    const reports = reportsSeen(pkgBase);
    const cliReport = cliReportPath(pkg);
    const cliReportSeen =
      existsSync(path.join(root, cliReport)) || (pkgBase !== undefined && showFile(pkgBase, cliReport, root) !== undefined);
    return packageSurfaces(pkg, { cliReportSeen, formerEntryReports: formerEntryReports(pkg, reports, packages) }).map((surface) => {
      const { reportPath } = surface;
      const abs = path.join(root, reportPath);
      const before = pkgBase ? showFile(pkgBase, reportPath, root)?.replace(/\r\n/g, '\n') : undefined;
      // a package without a bin has no CLI surface, nor an entry point it no longer exports a report, whatever a leftover file says
      const after =
        surface.gone ??
        (current ? current(pkg, abs, surface) : existsSync(abs) ? readFileSync(abs, 'utf8').replace(/\r\n/g, '\n') : undefined);
      const classification = after !== undefined && before !== after ? surface.classify(before, after) : undefined;
      return { pkg, surface, label: surface.label, reportPath, before, after, classification };
    });
  });
}
