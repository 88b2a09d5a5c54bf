/**
 * The frozen surfaces of a published package, each a file under api-reports/ with its own
 * classifier: the TypeScript API report (`<unscoped>.api.md`, every package) and, for a package
 * with a `bin`, the CLI surface report (`<unscoped>.cli.json`). A package with subpath entry
 * points has one API report per entry (`<unscoped>-<subpath>.api.md`, lib/entries.ts). The gate,
 * `api:diff` and the history check go through this list, so a CLI or entry report change counts
 * exactly like a change of the main API report.
 */
import { classifyReports } from './classifier/classify.ts';
import { classifyCliSurface } from './classifyCliSurface.ts';
import { cliSurfaceText, hasCliSurface } from './cliSurface.ts';
import type { Classification } from './classifier/classify.ts';
import { apiEntries } from './entries.ts';
import type { ApiEntry } from './entries.ts';
import type { PackageInfo } from './workspace.ts';

/**
 * The CLI surface of a package without a `bin`: no command, no exit code. A CLI report that goes
 * away (the `bin` removed, or the report deleted) is judged against it, so removing the command
 * line is a breaking change like removing any command of it.
 */
export const NO_CLI_SURFACE = cliSurfaceText({ commands: [], exitCodes: [], program: null });

/**
 * The API surface of an entry point that is no more: a report with no declaration. An entry
 * report that goes away (the subpath removed from `exports`) is judged against it: every item of
 * the entry removed, breaking.
 */
export const NO_API_SURFACE = '```ts\n\n```\n';

export interface Surface {
  kind: 'api' | 'cli';
  /** the entry point of an API surface (a report of an entry point no longer exported has none) */
  entry?: ApiEntry;
  /** how it is named in messages: the package, its subpath entry ("@runledger/trace/store"), "(CLI)" */
  label: string;
  /** repo-relative, `/`-separated, e.g. "api-reports/cli.cli.json" */
  reportPath: string;
  classify: (before: string | undefined, after: string) => Classification;
  /** what a missing report means: the empty surface it is judged as (a CLI that is no more), or undefined where a missing report is an error (the API report) */
  gone: string | undefined;
}

export const cliReportPath = (pkg: { unscoped: string }) => `api-reports/${pkg.unscoped}.cli.json`;

/**
 * The surfaces of a package. The CLI surface is there when the package declares a `bin`, or when a
 * CLI report of it exists anywhere the caller looks (`cliReportSeen`: at the base, in the working
 * tree, in a commit or its parent): a package that drops its `bin` is judged for dropping its CLI.
 * Likewise `formerEntryReports` (lib/entries.ts: reports of entry points the package no longer
 * exports, seen where the caller looks) are surfaces judged as {@link NO_API_SURFACE}.
 */
export function packageSurfaces(pkg: PackageInfo, opts: { cliReportSeen?: boolean; formerEntryReports?: string[] } = {}): Surface[] {
  const classify = (before: string | undefined, after: string) => classifyReports(before, after, { resolveDir: pkg.dir });
  const surfaces: Surface[] = apiEntries(pkg).map((entry) => ({
    kind: 'api',
    entry,
    label: entry.subpath === '.' ? pkg.name : entry.specifier,
    reportPath: entry.reportPath,
    classify,
    gone: undefined,
  }));
  for (const reportPath of opts.formerEntryReports ?? []) {
    surfaces.push({
      kind: 'api',
      label: `${pkg.name} (${reportPath.slice('api-reports/'.length)}, entry point removed)`,
      reportPath,
      classify,
      gone: NO_API_SURFACE,
    });
  }
  const hasBin = hasCliSurface(pkg);
  if (hasBin || opts.cliReportSeen)
    surfaces.push({
      kind: 'cli',
      label: `${pkg.name} (CLI)`,
      reportPath: cliReportPath(pkg),
      classify: classifyCliSurface,
      gone: hasBin ? undefined : NO_CLI_SURFACE,
    });
  return surfaces;
}
