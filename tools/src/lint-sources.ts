/**
 * pnpm lint:code (after ESLint and prettier): the source rules no single-file linter sees.
 *   import cycles   no module of a package reaches itself again through run-time imports
 *                   (lib/importCycles.ts; `import type` is erased and does not count)
 *   folder cycles   no folder of a package reaches itself again through the run-time imports of
 *                   its modules, tests left out (lib/folderCycles.ts): folders are layers
 *   file names      a module with one main export is named after it (lib/fileNameProblems.ts)
 *   module mocks    a test file that mocks a module starts a fresh module graph and takes the mock
 *                   away after it: test files share one (vitest.base.mjs; lib/moduleMockProblems.ts)
 *   type tests      every `*.test-d.ts` is in the program the package's `typecheck` task checks
 *                   (lib/typeTestProblems.ts): that task, not vitest, runs them
 * Every workspace package (packages/*, apps/*, tools) is read from its sources, or only the package
 * folders given as arguments; each problem is printed as `file:line: …` and the exit code is 1 when
 * there is one.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { fileNameProblems } from './lib/fileNameProblems.ts';
import { describeFolderCycle, folderImportCycles } from './lib/folderCycles.ts';
import { describeCycle, runTimeImportCycles } from './lib/importCycles.ts';
import { moduleMockProblems } from './lib/moduleMockProblems.ts';
import { packageSourceFiles, readSourceModule } from './lib/sourceModules.ts';
import { typeTestProblems } from './lib/typeTestProblems.ts';
import { WORKSPACE_ROOT, workspacePackages } from './lib/workspace.ts';

function typecheckScript(packageDir: string): string | undefined {
  const json = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  return json.scripts?.typecheck;
}

/** The problems of one package folder, paths relative to `root`. */
export function lintSources(packageDir: string, root: string = WORKSPACE_ROOT): string[] {
  const files = packageSourceFiles(packageDir);
  const modules = files.map((file) => readSourceModule(file));
  return [
    ...runTimeImportCycles(modules).map((cycle) => `run-time import cycle: ${describeCycle(cycle, root)}`),
    ...folderImportCycles(modules).map((cycle) => `folder import cycle: ${describeFolderCycle(cycle, root)}`),
    ...fileNameProblems(modules, root),
    ...moduleMockProblems(files, root),
    ...typeTestProblems(packageDir, typecheckScript(packageDir), root),
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const given = process.argv.slice(2).map((dir) => path.resolve(dir));
  const dirs =
    given.length > 0 ? given : [...[...workspacePackages().values()].map((p) => p.dir), path.join(WORKSPACE_ROOT, 'tools')].sort();
  const problems = dirs.flatMap((dir) => lintSources(dir));
  for (const problem of problems) console.error(`✖ ${problem}`);
  if (problems.length > 0) process.exit(1);
  console.log(
    `✔ ${dirs.length} packages: no run-time import cycle between modules or folders; file names say what they export; module mocks leave the shared module graph as they found it; every type test is in its package's typecheck`,
  );
}
