/**
 * The type-level tests (`*.test-d.ts`, `expectTypeOf`) are checked by a package's `typecheck` task:
 * `tsc -p tsconfig.json --noEmit` over the package's sources and tests, where a failed
 * `expectTypeOf(…).toEqualTypeOf<…>()` or an unused `@ts-expect-error` is a type error like any
 * other. `vitest --typecheck` ran the same tsc over the same files a second time, so the test tasks
 * leave it out; this rule keeps the one check from losing a file: every `*.test-d.ts` of a package
 * is in the program its `typecheck` script checks.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** The script a package's `typecheck` must be: tsc over its tsconfig.json. */
const TYPECHECK_SCRIPT = /^tsc -p tsconfig\.json(?: --noEmit)?$/;

function typeTestFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...typeTestFiles(full));
    else if (entry.name.endsWith('.test-d.ts')) found.push(full);
  }
  return found;
}

/**
 * The type tests of one package that its `typecheck` task would not check, one sentence each.
 * @param packageDir  the package folder (its package.json and tsconfig.json)
 * @param typecheckScript  the package's `typecheck` script, if it has one
 */
export function typeTestProblems(packageDir: string, typecheckScript: string | undefined, root: string): string[] {
  const files = typeTestFiles(packageDir);
  if (files.length === 0) return [];
  const where = path.relative(root, packageDir) || '.';
  if (typecheckScript === undefined || !TYPECHECK_SCRIPT.test(typecheckScript))
    return [
      `${where}: has type tests (${files.map((f) => path.relative(root, f)).join(', ')}) but its "typecheck" script is ${JSON.stringify(typecheckScript ?? null)}, not "tsc -p tsconfig.json --noEmit", which checks them`,
    ];
  const config = path.join(packageDir, 'tsconfig.json');
  if (!existsSync(config)) return [`${where}: has type tests but no tsconfig.json for its "typecheck" script to check them with`];
  const parsed = ts.getParsedCommandLineOfConfigFile(config, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  const checked = new Set((parsed?.fileNames ?? []).map((f) => path.resolve(f)));
  return files
    .filter((f) => !checked.has(path.resolve(f)))
    .map(
      (f) =>
        `${path.relative(root, f)}: a type test outside the program of ${where}/tsconfig.json: its "typecheck" task would not check it`,
    );
}
