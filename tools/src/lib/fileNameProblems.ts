/**
 * File names say what they export. A TypeScript module with one main export — a single value (a
 * class, function or constant), or, exporting no value, a single type — carries that name, or the
 * name of another thing it exports: `McpTool.ts` exports `McpTool`, `McpServerConfig.ts` the type
 * `McpServerConfig` beside its default deadline. Case and separators do not count (`lint-package.ts`
 * exports `lintPackage`, `scopeVersion.ts` exports `SCOPE_VERSION`), and the file may name the thing
 * while the function names the act on it: one leading verb (`renderErrorView` in `errorView.ts`,
 * `runLedgerContract` in `ledgerContract.ts`). Modules exporting several values, entry points and
 * barrels (`export … from`), tests, and JavaScript scripts and child processes are not judged.
 */
import path from 'node:path';
import type { SourceModule } from './sourceModules.ts';

/** Test files and type-level tests: named after what they test, not what they export. */
const TEST_FILE = /\.test(?:-d)?\.[cm]?ts$/;
const TYPESCRIPT_FILE = /\.[cm]?ts$/;

/** The one name a module's file should carry, or undefined when the module has no single main export. */
export function mainExportOf(module: SourceModule): string | undefined {
  if (module.reExports) return undefined;
  const values = new Set(module.exports.filter((e) => e.kind === 'value').map((e) => e.name));
  const types = new Set(module.exports.filter((e) => e.kind === 'type').map((e) => e.name));
  const only = (names: ReadonlySet<string>): string | undefined => (names.size === 1 ? [...names][0] : undefined);
  const main = values.size > 0 ? only(values) : only(types);
  return main === 'default' ? undefined : main;
}

/** A name without case or separators: `lint-package`, `lintPackage` and `LINT_PACKAGE` read the same. */
const letters = (name: string): string => name.replace(/[-_.]/g, '').toLowerCase();

/** `renderErrorView` → `ErrorView`: the name behind one leading lower-case word, or undefined. */
const withoutVerb = (name: string): string | undefined => /^[a-z]+([A-Z].*)$/.exec(name)?.[1];

/** Whether a file stem names the module's main export (or another name it exports). */
export function namesItsExport(stem: string, main: string, module: SourceModule): boolean {
  const wanted = letters(stem);
  const behindVerb = withoutVerb(main);
  return module.exports.some((e) => letters(e.name) === wanted) || (behindVerb !== undefined && letters(behindVerb) === wanted);
}

/** `file:line: exports only X, so it is named X.ts` for each judged module not named after its export; `root` shortens paths. */
export function fileNameProblems(modules: readonly SourceModule[], root: string): string[] {
  const problems: string[] = [];
  for (const module of modules) {
    const fileName = path.basename(module.file);
    if (!TYPESCRIPT_FILE.test(fileName) || TEST_FILE.test(fileName)) continue;
    const main = mainExportOf(module);
    if (main === undefined) continue;
    const extension = path.extname(fileName);
    if (namesItsExport(fileName.slice(0, fileName.length - extension.length), main, module)) continue;
    const shown = path.relative(root, module.file).split(path.sep).join('/');
    const line = module.exports.find((e) => e.name === main)?.line ?? 1;
    problems.push(`${shown}:${line}: exports only ${main}, so it is named ${main}${extension}`);
  }
  return problems;
}
