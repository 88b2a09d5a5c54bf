/**
 * The frozen surface of one package (run from the package folder):
 *
 *   node --import tsx ../../tools/src/api-gate.ts check    fail on any closure error or report drift, print the diff
 *   node --import tsx ../../tools/src/api-gate.ts update   rewrite api-reports/<name>.api.md and the
 *                                          report of each subpath entry (refuses while errors remain)
 *
 * For each entry point (the main entry, and each subpath of "exports": lib/entries.ts), checks, in
 * order: API Extractor's own messages at level "error" (closure rule: forgotten exports,
 * incompatible/missing release tags, ...), @beta/@alpha, deprecations, third-party types, the
 * cross-package closure pass, and finally the report itself. A package with a `bin` has a second
 * frozen surface, its CLI (`api-reports/<name>.cli.json`, see lib/cliSurface.ts), checked and
 * updated the same way by {@link runCliSurfaceGate}.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { extractPackage, crossPackageClosure } from './lib/extract.ts';
import { releaseTagProblems, deprecationProblems, thirdPartyProblems } from './lib/checks.ts';
import { unifiedDiff } from './lib/diff.ts';
import { readPackage, workspacePackages, WORKSPACE_ROOT } from './lib/workspace.ts';
import { classifyReports } from './lib/classifier/classify.ts';
import { classifyCliSurface } from './lib/classifyCliSurface.ts';
import { freshCliSurface, hasCliSurface } from './lib/cliSurface.ts';
import { cliReportPath } from './lib/surfaces.ts';
import { apiEntries, entryLabel, formerEntryReports } from './lib/entries.ts';
import type { ApiEntry } from './lib/entries.ts';
import type { PackageInfo } from './lib/workspace.ts';

export interface GateOptions {
  mode: 'check' | 'update';
  packageDir: string;
  /** where reports live (default: <root>/api-reports) */
  reportDir?: string;
  /** path of deprecations.md (default: <root>/docs/deprecations.md) */
  deprecationsDoc?: string;
  /** third-party allow-list (default: tools/api-allowlist.json) */
  allowList?: string[];
  /** to find sibling packages (default: the monorepo root) */
  workspaceRoot?: string;
}

export interface GateResult {
  ok: boolean;
  /** one sentence per problem, each naming the symbol */
  problems: string[];
  /** unified diff committed → fresh, when the report drifted */
  diff?: string;
  reportPath?: string;
  /** the fresh report */
  report?: string;
  written?: boolean;
}

/**
 * Runs the gate for one package and returns what it found (prints nothing): one result per API
 * entry point (lib/entries.ts), the main entry first. Problems of the package as a whole (its
 * deprecations, an entry report left without its entry) go with the main entry's result.
 */
export function runGate(opts: GateOptions): GateResult[] {
  const root = opts.workspaceRoot ?? WORKSPACE_ROOT;
  const pkg = readPackage(opts.packageDir);
  const reportDir = opts.reportDir ?? path.join(root, 'api-reports');
  const workspace = workspacePackages(root);
  const siblingNames = workspaceDependencies(pkg.json, workspace);
  const siblings = { names: siblingNames, specifiers: siblingNames.flatMap((n) => builtEntrySpecifiers(workspace.get(n))) };
  const entries = apiEntries(pkg);
  const models: unknown[] = [];
  const results = entries.map((entry) => {
    const r = runEntryGate(opts, pkg, entry, { root, reportDir, siblings });
    if (r.model) models.push(r.model);
    return r.result;
  });
  const [main] = results as [GateResult, ...GateResult[]];
  if (models.length > 0) {
    const docPath = opts.deprecationsDoc ?? path.join(root, 'docs', 'deprecations.md');
    const doc = existsSync(docPath) ? readFileSync(docPath, 'utf8') : undefined;
    main.problems.push(...deprecationProblems(pkg.name, models, doc));
  }
  main.problems.push(...leftoverEntryReports(opts.mode, pkg, reportDir, workspace));
  for (const r of results) r.ok = r.ok && r.problems.length === 0;
  return results;
}

/** The gate for one entry point of a package: API Extractor's messages, the checks, the report. */
function runEntryGate(
  opts: GateOptions,
  pkg: PackageInfo,
  entry: ApiEntry,
  ctx: { root: string; reportDir: string; siblings: { names: string[]; specifiers: string[] } },
): { result: GateResult; model: unknown } {
  const label = entryLabel(pkg, entry);
  const reportPath = path.join(ctx.reportDir, path.basename(entry.reportPath));
  const problems: string[] = [];
  if (entry.types !== undefined && !existsSync(path.join(pkg.dir, entry.types))) {
    problems.push(`${label}: ${entry.types} (the "types" of exports["${entry.subpath}"]) does not exist; run "pnpm build"`);
    return { result: { ok: false, problems, reportPath }, model: undefined };
  }
  const declared = (e: ApiEntry) => ({ specifier: e.specifier, types: e.types ?? pkg.json.types ?? 'dist/index.d.ts' });
  const others = apiEntries(pkg).filter((e) => e.subpath !== entry.subpath);
  const extracted = extractPackage(pkg.dir, entry.types, { own: declared(entry), others: others.map(declared) });
  for (const e of extracted.errors) problems.push(`${label}: (${e.id}) ${e.text}${e.where ? ` [${e.where}]` : ''}`);
  if (extracted.model) problems.push(...releaseTagProblems(label, extracted.model));
  if (extracted.report) {
    const allowList = opts.allowList ?? JSON.parse(readFileSync(path.join(ctx.root, 'tools', 'api-allowlist.json'), 'utf8')).packages;
    problems.push(...thirdPartyProblems(label, extracted.report, pkg.json, allowList, pkg.dir));
  }
  if (extracted.errors.length === 0) {
    const closure = { names: ctx.siblings.names, specifiers: [...ctx.siblings.specifiers, ...(entry.subpath === '.' ? [] : [pkg.name])] };
    for (const e of crossPackageClosure(pkg.dir, closure, entry.types, [entry, ...others].map(declared))) {
      problems.push(`${label}: (${e.id}, across packages) ${e.text}${e.where ? ` [${e.where}]` : ''}`);
    }
  }
  const model: unknown = extracted.model ?? undefined;
  if (!extracted.report) return { result: { ok: false, problems, reportPath }, model };
  const committed = existsSync(reportPath) ? readFileSync(reportPath, 'utf8').replace(/\r\n/g, '\n') : undefined;
  const rel = path.relative(ctx.root, reportPath).split(path.sep).join('/');

  if (opts.mode === 'update') {
    if (problems.length > 0) return { result: { ok: false, problems, reportPath, report: extracted.report, written: false }, model };
    if (committed !== extracted.report) {
      mkdirSync(ctx.reportDir, { recursive: true });
      writeFileSync(reportPath, extracted.report);
      return {
        result: {
          ok: true,
          problems,
          reportPath,
          report: extracted.report,
          written: true,
          diff: unifiedDiff(committed ?? '', extracted.report, `a/${rel}`, `b/${rel}`),
        },
        model,
      };
    }
    return { result: { ok: true, problems, reportPath, report: extracted.report, written: false }, model };
  }

  if (committed === undefined) {
    problems.push(`${label}: ${rel} does not exist; run "pnpm api:update" and commit it`);
    return { result: { ok: false, problems, reportPath, report: extracted.report }, model };
  }
  if (committed !== extracted.report) {
    const diff = unifiedDiff(committed, extracted.report, `a/${rel} (committed)`, `b/${rel} (fresh)`);
    const c = classifyReports(committed, extracted.report, { resolveDir: pkg.dir });
    problems.push(
      `${label}: the API report ${rel} is out of date (change: ${c.level}); review the diff below, run "pnpm api:update", and add a changeset ("pnpm changeset") if the change is additive or breaking`,
    );
    return { result: { ok: false, problems, reportPath, report: extracted.report, diff }, model };
  }
  return { result: { ok: problems.length === 0, problems, reportPath, report: extracted.report }, model };
}

/** The import specifiers of a sibling's entry points whose declarations are built. */
function builtEntrySpecifiers(sib: PackageInfo | undefined): string[] {
  if (!sib) return [];
  return apiEntries(sib)
    .filter((e) => existsSync(path.join(sib.dir, e.types ?? sib.json.types ?? 'dist/index.d.ts')))
    .map((e) => e.specifier);
}

/**
 * Entry reports of a package (`<unscoped>-<subpath>.api.md`) whose entry point is no longer in
 * its `exports` (lib/entries.ts, {@link formerEntryReports}): `check` fails — removing an entry
 * point removes its whole surface (breaking) — and `update` deletes the report, so the removal
 * shows in the diff and needs its changeset.
 */
function leftoverEntryReports(
  mode: 'check' | 'update',
  pkg: PackageInfo,
  reportDir: string,
  workspace: Map<string, PackageInfo>,
): string[] {
  if (!existsSync(reportDir)) return [];
  const leftovers = formerEntryReports(
    pkg,
    readdirSync(reportDir).map((f) => `api-reports/${f}`),
    workspace.values(),
  );
  if (mode === 'update') {
    for (const file of leftovers) {
      rmSync(path.join(reportDir, path.basename(file)));
      console.log(`deleted ${file}: ${pkg.name} exports no such entry point any more`);
    }
    return [];
  }
  return leftovers.map(
    (file) =>
      `${pkg.name}: ${file} exists but package.json "exports" has no such entry point: removing an entry point is breaking. Run "pnpm api:update" to delete the report and add a changeset`,
  );
}

/**
 * Workspace packages a package depends on (transitively), i.e. the siblings whose types may
 * appear on its surface.
 */
export function workspaceDependencies(json: Record<string, any>, workspace: Map<string, PackageInfo>) {
  const out = new Set<string>();
  const visit = (j: Record<string, any>) => {
    for (const name of Object.keys({ ...j.dependencies, ...j.peerDependencies })) {
      const sib = workspace.get(name);
      if (!sib || out.has(name)) continue;
      out.add(name);
      visit(sib.json);
    }
  };
  visit(json);
  return [...out].filter((n) => {
    const sib = workspace.get(n) as PackageInfo;
    return existsSync(path.join(sib.dir, sib.json.types ?? 'dist/index.d.ts'));
  });
}

/**
 * The CLI surface of one package with a `bin`: the fresh report from its built
 * `dist/cli-surface.js` against `api-reports/<name>.cli.json`. `check` fails on drift, printing the
 * diff and the classification; `update` rewrites the file.
 */
export function runCliSurfaceGate(opts: {
  mode: 'check' | 'update';
  packageDir: string;
  reportDir?: string;
  workspaceRoot?: string;
}): GateResult {
  const root = opts.workspaceRoot ?? WORKSPACE_ROOT;
  const pkg = readPackage(opts.packageDir);
  const reportPath = path.join(opts.reportDir ?? path.join(root, 'api-reports'), `${pkg.unscoped}.cli.json`);
  const rel = path.relative(root, reportPath).split(path.sep).join('/');
  const fresh = freshCliSurface(pkg.dir);
  if ('error' in fresh) return { ok: false, problems: [`${pkg.name} (CLI): ${fresh.error}`], reportPath };
  const committed = existsSync(reportPath) ? readFileSync(reportPath, 'utf8').replace(/\r\n/g, '\n') : undefined;
  if (opts.mode === 'update') {
    if (committed === fresh.text) return { ok: true, problems: [], reportPath, report: fresh.text, written: false };
    mkdirSync(path.dirname(reportPath), { recursive: true });
    writeFileSync(reportPath, fresh.text);
    return {
      ok: true,
      problems: [],
      reportPath,
      report: fresh.text,
      written: true,
      diff: unifiedDiff(committed ?? '', fresh.text, `a/${rel}`, `b/${rel}`),
    };
  }
  if (committed === undefined)
    return {
      ok: false,
      problems: [`${pkg.name} (CLI): ${rel} does not exist; run "pnpm api:update" and commit it`],
      reportPath,
      report: fresh.text,
    };
  if (committed === fresh.text) return { ok: true, problems: [], reportPath, report: fresh.text };
  const c = classifyCliSurface(committed, fresh.text);
  return {
    ok: false,
    problems: [
      `${pkg.name} (CLI): the CLI surface report ${rel} is out of date (change: ${c.level}); review the diff above, run "pnpm api:update", and add a changeset ("pnpm changeset") if the change is additive or breaking`,
    ],
    reportPath,
    report: fresh.text,
    diff: unifiedDiff(committed, fresh.text, `a/${rel} (committed)`, `b/${rel} (fresh)`),
  };
}

/**
 * A CLI report of a package that declares no `bin` (any more): `check` fails — the command line
 * was removed, a breaking change the gate judges against the empty surface — and `update` deletes
 * the report, so the removal shows in the diff and needs its changeset.
 */
export function leftoverCliReport({
  mode,
  pkg,
  workspaceRoot = WORKSPACE_ROOT,
}: {
  mode: 'check' | 'update';
  pkg: PackageInfo;
  workspaceRoot?: string;
}): GateResult[] {
  const reportPath = path.join(workspaceRoot, cliReportPath(pkg));
  if (!existsSync(reportPath)) return [];
  if (mode === 'update') {
    rmSync(reportPath);
    return [{ ok: true, problems: [], reportPath, written: true, diff: `deleted ${cliReportPath(pkg)}: ${pkg.name} declares no "bin"` }];
  }
  return [
    {
      ok: false,
      problems: [
        `${pkg.name} (CLI): ${cliReportPath(pkg)} exists but the package declares no "bin": its command line was removed (breaking). Run "pnpm api:update" to delete the report and add a changeset`,
      ],
      reportPath,
    },
  ];
}

function print(mode: 'check' | 'update', result: GateResult) {
  if (result.diff && mode === 'check') console.log(result.diff);
  for (const p of result.problems) console.error(`✖ ${p}`);
  if (mode === 'update' && result.ok) {
    const rel = path.relative(WORKSPACE_ROOT, result.reportPath ?? '');
    console.log(result.written ? `updated ${rel}` : `${rel} is up to date`);
    if (result.written && result.diff) console.log(result.diff);
  } else if (mode === 'update') {
    console.error('api:update refused: fix the problems above first (the report was not rewritten)');
  } else if (result.ok) {
    console.log(`✔ ${path.relative(WORKSPACE_ROOT, result.reportPath ?? '')} matches the surface`);
  }
}

function main() {
  const mode = process.argv[2];
  if (mode !== 'check' && mode !== 'update') {
    console.error('usage: api-gate.ts check|update   (run in a package folder)');
    process.exit(2);
  }
  const results = runGate({ mode, packageDir: process.cwd() });
  const pkg = readPackage(process.cwd());
  if (hasCliSurface(pkg)) results.push(runCliSurfaceGate({ mode, packageDir: process.cwd() }));
  else results.push(...leftoverCliReport({ mode, pkg }));
  for (const result of results) print(mode, result);
  process.exit(results.every((r) => r.ok) ? 0 : 1);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main();
