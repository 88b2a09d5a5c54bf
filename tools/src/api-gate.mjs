#!/usr/bin/env node
// @ts-check
/**
 * The frozen surface of one package (run from the package folder):
 *
 *   node ../../tools/src/api-gate.mjs check    fail on any closure error or report drift, print the diff
 *   node ../../tools/src/api-gate.mjs update   rewrite api-reports/<name>.api.md (refuses while errors remain)
 *
 * Checks, in order: API Extractor's own messages at level "error" (closure rule: forgotten exports,
 * incompatible/missing release tags, ...), @beta/@alpha, deprecations, third-party types, the
 * cross-package closure pass, and finally the report itself. A package with a `bin` has a second
 * frozen surface, its CLI (`api-reports/<name>.cli.json`, see lib/cliSurface.mjs), checked and
 * updated the same way by {@link runCliSurfaceGate}.
 */
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { extractPackage, crossPackageClosure } from './lib/extract.mjs';
import { releaseTagProblems, deprecationProblems, thirdPartyProblems } from './lib/checks.mjs';
import { unifiedDiff } from './lib/diff.mjs';
import { readPackage, workspacePackages, WORKSPACE_ROOT } from './lib/workspace.mjs';
import { classifyReports } from './lib/classify.mjs';
import { classifyCliSurface } from './lib/classifyCliSurface.mjs';
import { freshCliSurface, hasCliSurface } from './lib/cliSurface.mjs';

/**
 * @typedef {object} GateOptions
 * @property {'check' | 'update'} mode
 * @property {string} packageDir
 * @property {string} [reportDir]        where reports live (default: <root>/api-reports)
 * @property {string} [deprecationsDoc]  path of deprecations.md (default: <root>/docs/deprecations.md)
 * @property {string[]} [allowList]      third-party allow-list (default: tools/api-allowlist.json)
 * @property {string} [workspaceRoot]    to find sibling packages (default: the monorepo root)
 */

/**
 * @typedef {object} GateResult
 * @property {boolean} ok
 * @property {string[]} problems     one sentence per problem, each naming the symbol
 * @property {string} [diff]         unified diff committed → fresh, when the report drifted
 * @property {string} [reportPath]
 * @property {string} [report]       the fresh report
 * @property {boolean} [written]
 */

/**
 * Runs the gate for one package and returns what it found (prints nothing).
 * @param {GateOptions} opts
 * @returns {GateResult}
 */
export function runGate(opts) {
  const root = opts.workspaceRoot ?? WORKSPACE_ROOT;
  const pkg = readPackage(opts.packageDir);
  const reportDir = opts.reportDir ?? path.join(root, 'api-reports');
  const reportPath = path.join(reportDir, `${pkg.unscoped}.api.md`);
  const problems = [];

  const extracted = extractPackage(pkg.dir);
  for (const e of extracted.errors) problems.push(`${pkg.name}: (${e.id}) ${e.text}${e.where ? ` [${e.where}]` : ''}`);
  if (extracted.model) {
    problems.push(...releaseTagProblems(pkg.name, extracted.model));
    const docPath = opts.deprecationsDoc ?? path.join(root, 'docs', 'deprecations.md');
    const doc = existsSync(docPath) ? readFileSync(docPath, 'utf8') : undefined;
    problems.push(...deprecationProblems(pkg.name, extracted.model, doc));
  }
  if (extracted.report) {
    const allowList = opts.allowList ?? JSON.parse(readFileSync(path.join(root, 'tools', 'api-allowlist.json'), 'utf8')).packages;
    problems.push(...thirdPartyProblems(pkg.name, extracted.report, pkg.json, allowList, pkg.dir));
  }
  const siblings = workspaceDependencies(pkg.json, workspacePackages(root));
  if (extracted.errors.length === 0) {
    for (const e of crossPackageClosure(pkg.dir, siblings)) {
      problems.push(`${pkg.name}: (${e.id}, across packages) ${e.text}${e.where ? ` [${e.where}]` : ''}`);
    }
  }

  if (!extracted.report) return { ok: false, problems, reportPath };
  const committed = existsSync(reportPath) ? readFileSync(reportPath, 'utf8').replace(/\r\n/g, '\n') : undefined;
  const rel = path.relative(root, reportPath).split(path.sep).join('/');

  if (opts.mode === 'update') {
    if (problems.length > 0) return { ok: false, problems, reportPath, report: extracted.report, written: false };
    if (committed !== extracted.report) {
      mkdirSync(reportDir, { recursive: true });
      writeFileSync(reportPath, extracted.report);
      return { ok: true, problems, reportPath, report: extracted.report, written: true, diff: unifiedDiff(committed ?? '', extracted.report, `a/${rel}`, `b/${rel}`) };
    }
    return { ok: true, problems, reportPath, report: extracted.report, written: false };
  }

  if (committed === undefined) {
    problems.push(`${pkg.name}: ${rel} does not exist; run "pnpm api:update" and commit it`);
    return { ok: false, problems, reportPath, report: extracted.report };
  }
  if (committed !== extracted.report) {
    const diff = unifiedDiff(committed, extracted.report, `a/${rel} (committed)`, `b/${rel} (fresh)`);
    const c = classifyReports(committed, extracted.report);
    problems.push(
      `${pkg.name}: the API report ${rel} is out of date (change: ${c.level}); review the diff below, run "pnpm api:update", and add a changeset ("pnpm changeset") if the change is additive or breaking`,
    );
    return { ok: false, problems, reportPath, report: extracted.report, diff };
  }
  return { ok: problems.length === 0, problems, reportPath, report: extracted.report };
}

/**
 * Workspace packages a package depends on (transitively), i.e. the siblings whose types may
 * appear on its surface.
 * @param {Record<string, any>} json
 * @param {Map<string, import('./lib/workspace.mjs').PackageInfo>} workspace
 */
export function workspaceDependencies(json, workspace) {
  const out = new Set();
  /** @param {Record<string, any>} j */
  const visit = (j) => {
    for (const name of Object.keys({ ...j.dependencies, ...j.peerDependencies })) {
      const sib = workspace.get(name);
      if (!sib || out.has(name)) continue;
      out.add(name);
      visit(sib.json);
    }
  };
  visit(json);
  return [...out].filter((n) => {
    const sib = /** @type {import('./lib/workspace.mjs').PackageInfo} */ (workspace.get(n));
    return existsSync(path.join(sib.dir, sib.json.types ?? 'dist/index.d.ts'));
  });
}

/**
 * The CLI surface of one package with a `bin`: the fresh report from its built
 * `dist/cli-surface.js` against `api-reports/<name>.cli.json`. `check` fails on drift, printing the
 * diff and the classification; `update` rewrites the file.
 * @param {{ mode: 'check' | 'update', packageDir: string, reportDir?: string, workspaceRoot?: string }} opts
 * @returns {GateResult}
 */
export function runCliSurfaceGate(opts) {
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
    return { ok: true, problems: [], reportPath, report: fresh.text, written: true, diff: unifiedDiff(committed ?? '', fresh.text, `a/${rel}`, `b/${rel}`) };
  }
  if (committed === undefined) return { ok: false, problems: [`${pkg.name} (CLI): ${rel} does not exist; run "pnpm api:update" and commit it`], reportPath, report: fresh.text };
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

/** @param {'check' | 'update'} mode @param {GateResult} result */
function print(mode, result) {
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
    console.error('usage: api-gate.mjs check|update   (run in a package folder)');
    process.exit(2);
  }
  const results = [runGate({ mode, packageDir: process.cwd() })];
  if (hasCliSurface(readPackage(process.cwd()))) results.push(runCliSurfaceGate({ mode, packageDir: process.cwd() }));
  for (const result of results) print(mode, result);
  process.exit(results.every((r) => r.ok) ? 0 : 1);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main();
