/**
 * What a published tarball ships: the file list `pnpm pack` would put in it (the command that
 * publishes), the files no tarball may ship (test helpers, fixtures, benchmarks), and the
 * sources the shipped declaration maps point to, which must ship with them.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Files a published tarball must not ship, each with the reason the message gives.
 * Paths are the tarball's, relative to the package folder, with `/` separators.
 */
export const FORBIDDEN_TARBALL_FILES: ReadonlyArray<{ pattern: RegExp; what: string }> = [
  { pattern: /(^|\/)testing\//, what: 'a test helper (under testing/)' },
  { pattern: /(^|\/)(__fixtures__|fixtures)\//, what: 'a test fixture (under fixtures/)' },
  { pattern: /(^|\/)bench\//, what: 'a benchmark (under bench/)' },
  { pattern: /\.test\.[^/]+$/, what: 'a test (*.test.*)' },
  { pattern: /\.test-d\.[^/]+$/, what: 'a type test (*.test-d.ts)' },
  { pattern: /\.bench\.[^/]+$/, what: 'a benchmark (*.bench.*)' },
];

/**
 * The files `pnpm pack` would put in the package's tarball (`pnpm pack --dry-run --json`).
 * @returns paths relative to the package folder, `/`-separated, sorted
 */
export function tarballFiles(packageDir: string): string[] {
  const r = spawnSync('pnpm', ['pack', '--dry-run', '--json'], {
    cwd: packageDir,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  if (r.status !== 0) throw new Error(`pnpm pack --dry-run failed in ${packageDir}:\n${r.stdout}${r.stderr}`);
  const out = r.stdout;
  const json = JSON.parse(out.slice(out.indexOf('{'), out.lastIndexOf('}') + 1));
  return json.files.map((f: { path: string }) => f.path.split(path.sep).join('/')).sort();
}

/**
 * The shipped files that are test helpers, fixtures or benchmarks.
 * @param files tarball paths
 */
export function forbiddenTarballFiles(files: string[]): { file: string; what: string }[] {
  const found: { file: string; what: string }[] = [];
  for (const file of files) {
    const rule = FORBIDDEN_TARBALL_FILES.find((r) => r.pattern.test(file));
    if (rule) found.push({ file, what: rule.what });
  }
  return found;
}

/**
 * Sources that a shipped source map points to inside the package but the tarball leaves out.
 * Every declaration map (`*.d.ts.map`) counts; a JavaScript map only for sources it does not
 * embed (`sourcesContent`).
 * @param files tarball paths
 */
export function missingMapSources(packageDir: string, files: string[]): { map: string; source: string }[] {
  const shipped = new Set(files);
  const missing: { map: string; source: string }[] = [];
  for (const map of files.filter((f) => f.endsWith('.map'))) {
    const full = path.join(packageDir, map);
    if (!existsSync(full)) continue;
    let json: { sources?: string[]; sourcesContent?: (string | null)[]; sourceRoot?: string };
    try {
      json = JSON.parse(readFileSync(full, 'utf8'));
    } catch {
      continue;
    }
    const declarationMap = map.endsWith('.d.ts.map');
    (json.sources ?? []).forEach((source, i) => {
      if (!declarationMap && typeof json.sourcesContent?.[i] === 'string') return;
      if (/^[a-z][a-z0-9+.-]*:/i.test(source)) return; // a URL, not a file of the package
      const abs = path.resolve(path.dirname(full), json.sourceRoot ?? '', source);
      const rel = path.relative(packageDir, abs).split(path.sep).join('/');
      if (rel.startsWith('../') || path.isAbsolute(rel)) return;
      if (!shipped.has(rel)) missing.push({ map, source: rel });
    });
  }
  return missing;
}

/** The release notes `changeset version` writes into each released package's folder. */
export const CHANGELOG = 'CHANGELOG.md';

/**
 * The package's CHANGELOG.md ships: when the file exists, the tarball lists it; before the first
 * release (no file yet), package.json "files" lists it already. npm and pnpm pack a changelog only
 * when "files" admits it (README, LICENSE and package.json are the only files always packed).
 * @param files tarball paths (only read when CHANGELOG.md exists)
 */
export function changelogProblems(pkg: { name: string; dir: string }, files: string[]): string[] {
  if (existsSync(path.join(pkg.dir, CHANGELOG))) {
    return files.includes(CHANGELOG)
      ? []
      : [
          `${pkg.name}: the tarball leaves out ${CHANGELOG} — list "${CHANGELOG}" in package.json "files" (consumers read the release notes in node_modules; npm and pnpm pack it only when "files" admits it)`,
        ];
  }
  const json = JSON.parse(readFileSync(path.join(pkg.dir, 'package.json'), 'utf8')) as { files?: unknown };
  if (!Array.isArray(json.files) || json.files.includes(CHANGELOG)) return [];
  return [
    `${pkg.name}: package.json "files" does not list ${CHANGELOG}, so the ${CHANGELOG} that \`changeset version\` writes will not ship — add "${CHANGELOG}" to "files"`,
  ];
}

/**
 * The tarball rule of the package lint: no test helpers, fixtures or benchmarks, every
 * source a shipped declaration map points to ships too, and so does CHANGELOG.md.
 * @param files tarball paths (default: asks `pnpm pack --dry-run`)
 * @returns one message per offending file, naming the package and the file
 */
export function tarballProblems(pkg: { name: string; dir: string }, files: string[] = tarballFiles(pkg.dir)): string[] {
  const problems = forbiddenTarballFiles(files).map(
    ({ file, what }) =>
      `${pkg.name}: the tarball ships ${file}, ${what}; published tarballs ship no test helpers, fixtures or benchmarks — exclude it in package.json "files" (e.g. "!src/testing/**")`,
  );
  for (const { map, source } of missingMapSources(pkg.dir, files)) {
    problems.push(`${pkg.name}: the tarball ships ${map}, which points to ${source}, but not ${source} — keep it in package.json "files"`);
  }
  problems.push(...changelogProblems(pkg, files));
  return problems;
}
