#!/usr/bin/env node
// @ts-check
/**
 * Packaging lint for one published package (run from the package folder, after build):
 *   publint --strict           the package.json / exports / files are right for npm
 *   attw --pack --profile esm-only   the packed types resolve like the JavaScript does
 *
 * Profile "esm-only": runledger packages are ESM-only ("type": "module", exports has only
 * "types" + "import"). attw's default profile also demands that `require()` from CommonJS
 * (node16-cjs) and the legacy node10 resolution work, which an ESM-only package cannot offer
 * by design; "esm-only" ignores exactly those two resolution modes and keeps every other
 * problem (false ESM/CJS, missing or untyped exports, masquerading types) an error.
 * CommonJS consumers use `await import()` (Node 20.19+ can also require(esm)).
 *
 *   tarball contents   what `pnpm pack` ships: no test helpers, fixtures or benchmarks
 *                      (testing/, fixtures/, bench/, *.test.*, *.test-d.ts, *.bench.*), and
 *                      every source a shipped declaration map points to (src/ ships for them)
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { tarballProblems } from './lib/tarball.mjs';
import { readPackage, WORKSPACE_ROOT } from './lib/workspace.mjs';

const bin = (/** @type {string} */ name) => path.join(WORKSPACE_ROOT, 'node_modules', '.bin', name);

/**
 * @param {string} packageDir
 * @returns {{ ok: boolean, failures: string[] }}
 */
export function lintPackage(packageDir) {
  const pkg = readPackage(packageDir);
  const failures = [];
  if (pkg.json.private) return { ok: true, failures };
  const env = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' };
  const steps = [
    { name: 'publint --strict', cmd: bin('publint'), args: ['--strict'] },
    { name: 'attw --pack --profile esm-only', cmd: bin('attw'), args: ['--pack', '.', '--profile', 'esm-only', '--format', 'table-flipped'] },
  ];
  for (const s of steps) {
    const r = spawnSync(s.cmd, s.args, { cwd: pkg.dir, env, encoding: 'utf8' });
    const out = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim();
    if (r.status !== 0) failures.push(`${pkg.name}: ${s.name} failed\n${out}`);
    else console.log(`✔ ${pkg.name}: ${s.name}`);
  }
  const problems = tarballProblems(pkg);
  if (problems.length > 0) failures.push(...problems);
  else console.log(`✔ ${pkg.name}: tarball contents (no test helpers, fixtures or benchmarks; declaration map sources ship)`);
  return { ok: failures.length === 0, failures };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const r = lintPackage(process.cwd());
  for (const f of r.failures) console.error(`✖ ${f}`);
  process.exit(r.ok ? 0 : 1);
}
