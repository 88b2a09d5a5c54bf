/**
 * The entry points of a published package, each with its own frozen API report: the main entry
 * ("." in `exports`, the declarations api-extractor.json names) in `api-reports/<unscoped>.api.md`,
 * and every other subpath of `exports` with declarations (e.g. `@runledger/trace/store`, types
 * `./dist/store/index.d.ts`) in `api-reports/<unscoped>-<subpath>.api.md` (`trace-store.api.md`).
 * "./package.json" is no entry point. API Extractor analyses one entry per run, so the gate runs it
 * once per entry (lib/extract.ts), and the classifier, `api:diff`, the changeset gate and the
 * cross-package closure pass go through this list.
 */
import type { PackageInfo } from './workspace.ts';

export interface ApiEntry {
  /** the `exports` key: "." or e.g. "./store" */
  subpath: string;
  /** what consumers import: "@runledger/trace" or "@runledger/trace/store" */
  specifier: string;
  /** the declarations, relative to the package folder; undefined for "." (api-extractor.json says) */
  types: string | undefined;
  /** repo-relative, `/`-separated: "api-reports/trace.api.md", "api-reports/trace-store.api.md" */
  reportPath: string;
}

/** The report of a subpath: "./store" → "trace-store.api.md", "./a/b" → "trace-a-b.api.md". */
export const entryReportFile = (unscoped: string, subpath: string): string =>
  subpath === '.' ? `${unscoped}.api.md` : `${unscoped}-${subpath.replace(/^\.\//, '').split('/').join('-')}.api.md`;

/** The `types` condition of one `exports` target (a nested condition object included), if any. */
function typesOf(target: unknown): string | undefined {
  if (target === null || typeof target !== 'object' || Array.isArray(target)) return undefined;
  const conditions = target as Record<string, unknown>;
  if (typeof conditions.types === 'string') return conditions.types;
  for (const value of Object.values(conditions)) {
    const nested = typesOf(value);
    if (nested !== undefined) return nested;
  }
  return undefined;
}

/**
 * The API entry points of a package, the main entry first, then the subpaths in `exports` order.
 * A subpath whose target has no `types` condition (a plain file such as "./package.json", a
 * stylesheet) is not an API entry point.
 */
export function apiEntries(pkg: Pick<PackageInfo, 'name' | 'unscoped' | 'json'>): ApiEntry[] {
  const main: ApiEntry = {
    subpath: '.',
    specifier: pkg.name,
    types: undefined,
    reportPath: `api-reports/${entryReportFile(pkg.unscoped, '.')}`,
  };
  const exportsField: unknown = pkg.json.exports;
  if (exportsField === null || typeof exportsField !== 'object' || Array.isArray(exportsField)) return [main];
  const subpaths = Object.entries(exportsField as Record<string, unknown>).flatMap(([subpath, target]): ApiEntry[] => {
    if (subpath === '.' || subpath === './package.json' || !subpath.startsWith('./') || subpath.includes('*')) return [];
    const types = typesOf(target);
    if (types === undefined) return [];
    return [
      {
        subpath,
        specifier: `${pkg.name}${subpath.slice(1)}`,
        types: types.replace(/^\.\//, ''),
        reportPath: `api-reports/${entryReportFile(pkg.unscoped, subpath)}`,
      },
    ];
  });
  return [main, ...subpaths];
}

/** How an entry is named in messages: the package for its main entry, else what consumers import. */
export const entryLabel = (pkg: Pick<PackageInfo, 'name'>, entry: ApiEntry): string => (entry.subpath === '.' ? pkg.name : entry.specifier);

/**
 * Reports among `files` (repo-relative paths, e.g. what a commit holds under api-reports/) named
 * like a subpath entry report of `pkg` (`<unscoped>-*.api.md`) whose entry point `pkg` no longer
 * exports: an entry point removed. A report of another package (`store-sqlite.api.md` beside a
 * package "store") is not one of them.
 */
export function formerEntryReports(pkg: PackageInfo, files: Iterable<string>, packages: Iterable<PackageInfo>): string[] {
  const current = new Set(apiEntries(pkg).map((e) => e.reportPath));
  const others = new Set([...packages].filter((p) => p.name !== pkg.name).flatMap((p) => apiEntries(p).map((e) => e.reportPath)));
  const prefix = `api-reports/${pkg.unscoped}-`;
  return [...new Set(files)]
    .filter(
      (f) => f.startsWith(prefix) && f.endsWith('.api.md') && !f.slice(prefix.length).includes('/') && !current.has(f) && !others.has(f),
    )
    .sort();
}
