/**
 * Packaging lint for one published package (run from the package folder, after build):
 *   publint --strict           the package.json / exports / files are right for npm
 *   attw --pack --ignore-rules cjs-resolves-to-esm
 *                              the packed types resolve like the JavaScript does, in every
 *                              resolution mode: node10, node16 from CommonJS, node16 from ESM, bundler
 *   exports conditions         every subpath lists "types" first and ends with "default", so
 *                              `require()` resolves (lib/exportConditions.ts)
 *
 * runledger packages are one ESM build ("type": "module") that CommonJS loads with require(esm)
 * (Node ≥ 20.19 and ≥ 22.12, which "engines" demands; TypeScript ≥ 5.8 with module "nodenext").
 * attw's rule cjs-resolves-to-esm ("ESM (dynamic import only)") describes older Node and
 * TypeScript's module "node16", where require() of ESM is an error; it is the one rule ignored.
 * Every other problem in every resolution mode (no resolution, untyped or masquerading types,
 * false ESM/CJS, missing exports) stays an error. docs/api-surface.md "Packaging" says why.
 *
 *   tarball contents   what `pnpm pack` ships: no test helpers, fixtures or benchmarks
 *                      (testing/, fixtures/, bench/, *.test.*, *.test-d.ts, *.bench.*), and
 *                      every source a shipped declaration map points to (src/ ships for them)
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { exportConditionProblems, publishedExportsProblems } from './lib/exportConditions.ts';
import { tarballProblems } from './lib/tarball.ts';
import { readPackage, WORKSPACE_ROOT } from './lib/workspace.ts';

const bin = (name: string) => path.join(WORKSPACE_ROOT, 'node_modules', '.bin', name);
export function lintPackage(packageDir: string): { ok: boolean; failures: string[] } {
  const pkg = readPackage(packageDir);
  const failures: string[] = [];
  if (pkg.json.private) return { ok: true, failures };
  const env = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' };
  const steps = [
    { name: 'publint --strict', cmd: bin('publint'), args: ['--strict'] },
    {
      name: 'attw --pack --ignore-rules cjs-resolves-to-esm',
      cmd: bin('attw'),
      args: ['--pack', '.', '--ignore-rules', 'cjs-resolves-to-esm', '--format', 'table-flipped'],
    },
  ];
  for (const s of steps) {
    const r = spawnSync(s.cmd, s.args, { cwd: pkg.dir, env, encoding: 'utf8' });
    const out = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim();
    if (r.status !== 0) failures.push(`${pkg.name}: ${s.name} failed\n${out}`);
    else console.log(`✔ ${pkg.name}: ${s.name}`);
  }
  const conditions = exportConditionProblems(pkg);
  if (conditions.length > 0) failures.push(...conditions);
  else console.log(`✔ ${pkg.name}: exports conditions ("types" first, "default" last: import and require() resolve)`);
  const published = publishedExportsProblems(pkg);
  if (published.length > 0) failures.push(...published);
  else console.log(`✔ ${pkg.name}: publishConfig.exports is exports without the source condition`);
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
