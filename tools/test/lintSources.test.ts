// tools/src/lint-sources.ts, the step of `pnpm lint:code` that reads whole packages: a run-time
// import cycle, a folder-level one (sibling folders that import each other) and a module not named
// after its one export fail it; type-only imports do not.
// The fixture packages are written by each test into a scratch folder.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { mainExportOf } from '../src/lib/fileNameProblems.ts';
import { readSourceModule } from '../src/lib/sourceModules.ts';
import { lintSources } from '../src/lint-sources.ts';
import { TOOLS } from './helpers.js';

const scratch: string[] = [];
afterEach(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A package folder holding the given files (paths relative to it). */
function fixturePackage(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lint-sources-'));
  scratch.push(dir);
  for (const [file, text] of Object.entries({ 'package.json': '{ "type": "module" }\n', ...files })) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

/** a → b (a re-export) → c → a at run time; Shape.ts closes a loop with a.ts through `import type` only. */
const CYCLIC = {
  'src/a.ts':
    "import type { Shape } from './Shape.js';\nimport { b } from './b.js';\nexport const a = (shape: Shape): string => b(shape);\n",
  'src/b.ts': "export { c as b } from './c.js';\n",
  'src/c.ts': "import { a } from './a.js';\n\nexport function c(): string {\n  return typeof a;\n}\n",
  'src/Shape.ts': "import type { a } from './a.js';\nexport type Shape = Parameters<typeof a>;\n",
};

describe('run-time import cycles', () => {
  it('reports a cycle through imports and re-exports, once, with the line of each import', () => {
    const dir = fixturePackage(CYCLIC);
    expect(lintSources(dir, dir)).toEqual(['run-time import cycle: src/a.ts:2 → src/b.ts:1 → src/c.ts:1 → src/a.ts']);
  });

  it('type-only imports (import type, export type … from) close no cycle', () => {
    const dir = fixturePackage({
      'src/a.ts': "import type { B } from './b.js';\nexport const a = (value: B): B => value;\n",
      'src/b.ts': "import { a } from './a.js';\nexport type { A } from './types.js';\nexport type B = ReturnType<typeof a>;\n",
      'src/types.ts': "export type { B as A } from './b.js';\n",
      'src/late.ts': "export const late = async (): Promise<unknown> => import('./a.js');\n",
    });
    expect(lintSources(dir, dir)).toEqual([]);
  });

  it('`import { type X }` still loads the module (verbatimModuleSyntax keeps `import {} from`): it closes a cycle', () => {
    const dir = fixturePackage({
      'src/one.ts': "import { type Two } from './two.js';\nexport const one = 1;\nexport type One = Two;\n",
      'src/two.ts': "import { one } from './one.js';\nexport const two = one + 1;\nexport type Two = typeof two;\n",
    });
    expect(lintSources(dir, dir)).toEqual(['run-time import cycle: src/one.ts:1 → src/two.ts:1 → src/one.ts']);
  });

  it('a module importing itself is a cycle; .mjs files and folder-less specifiers are read too', () => {
    const dir = fixturePackage({
      'src/self.mjs': "import { self } from './self.mjs';\nexport const self = 1;\nexport const again = self;\n",
      'bench/x.mjs': "import { y } from './y.mjs';\nexport const x = y;\n",
      'bench/y.mjs': "import { x } from './x.mjs';\nexport const y = x;\n",
    });
    expect(lintSources(dir, dir)).toEqual([
      'run-time import cycle: bench/x.mjs:1 → bench/y.mjs:1 → bench/x.mjs',
      'run-time import cycle: src/self.mjs:1 → src/self.mjs',
    ]);
  });

  it('fails `pnpm lint:code` (exit 1, the cycle on stderr) and passes a clean package', () => {
    const run = (dir: string) =>
      spawnSync(process.execPath, ['--import', 'tsx', path.join(TOOLS, 'src', 'lint-sources.ts'), dir], { cwd: TOOLS, encoding: 'utf8' });
    const cyclic = run(fixturePackage(CYCLIC));
    expect(cyclic.status).toBe(1);
    expect(cyclic.stderr).toMatch(/✖ run-time import cycle: .*src\/a\.ts:2 → .*src\/b\.ts:1 → .*src\/c\.ts:1 → .*src\/a\.ts/);
    const clean = run(fixturePackage({ 'src/a.ts': 'export const a = 1;\n' }));
    expect(clean.stderr).toBe('');
    expect(clean.status).toBe(0);
  });
});

/** src/app and src/views import each other at run time through different modules: no file-level cycle. */
const FOLDER_CYCLIC = {
  'src/app/server.ts': "import { page } from '../views/page.js';\nexport const server = (): string => page();\n",
  'src/app/wire/wireMs.ts': 'export const wireMs = (ms: number): number => ms;\n',
  'src/views/page.ts': "import { wireMs } from '../app/wire/wireMs.js';\nexport const page = (): string => String(wireMs(1));\n",
};

describe('folder-level import cycles', () => {
  it('reports sibling folders that import each other through different modules, with the first import of each way', () => {
    const dir = fixturePackage(FOLDER_CYCLIC);
    expect(lintSources(dir, dir)).toEqual([
      'folder import cycle: src/app → src/views → src/app (src/app/server.ts:1 imports src/views; src/views/page.ts:1 imports src/app)',
    ]);
  });

  it('a cycle through three folders is one problem; an import from a subfolder counts for the folder that holds it', () => {
    const dir = fixturePackage({
      'src/a/a.ts': "import { b } from '../b/b.js';\nexport const a = b;\n",
      'src/b/deep/b.ts': "import { c } from '../../c/c.js';\nexport const b = c;\n",
      'src/b/b.ts': "export { b } from './deep/b.js';\n",
      'src/c/c.ts': "import { one } from '../a/one.js';\nexport const c = one;\n",
      'src/a/one.ts': 'export const one = 1;\n',
    });
    expect(lintSources(dir, dir)).toEqual([
      'folder import cycle: src/a → src/b → src/c → src/a (src/a/a.ts:1 imports src/b; src/b/deep/b.ts:1 imports src/c; src/c/c.ts:1 imports src/a)',
    ]);
  });

  it('type-only imports, tests, and imports between a folder and a folder that holds it close no folder cycle', () => {
    const dir = fixturePackage({
      'src/app/server.ts': "import { page } from '../views/page.js';\nexport const server = (): string => page();\n",
      'src/app/Options.ts': 'export interface Options {\n  readonly ms: number;\n}\n',
      'src/views/page.ts':
        "import type { Options } from '../app/Options.js';\nexport const page = (options?: Options): string => String(options?.ms);\n",
      'src/views/page.test.ts': "import { server } from '../app/server.js';\nexport const checked = server();\n",
      'src/store.ts': "import { health } from './health/health.js';\nexport const store = health;\n",
      'src/failure.ts': 'export const failure = 1;\n',
      'src/health/health.ts': "import { failure } from '../failure.js';\nexport const health = failure;\n",
    });
    expect(lintSources(dir, dir)).toEqual([]);
  });

  it('fails `pnpm lint:code` (exit 1, the cycle on stderr)', () => {
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', path.join(TOOLS, 'src', 'lint-sources.ts'), fixturePackage(FOLDER_CYCLIC)],
      {
        cwd: TOOLS,
        encoding: 'utf8',
      },
    );
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/✖ folder import cycle: .*src\/app → .*src\/views → .*src\/app \(/);
  });
});

describe('file names say what they export', () => {
  it('names the mismatches: one value, or one type and no value', () => {
    const dir = fixturePackage({
      'src/McpTool.ts': 'export class McpTool {}\nexport interface McpToolOptions {\n  readonly name: string;\n}\n',
      'src/helpers.ts': 'export function parseThing(): void {}\n',
      'src/Shapes.ts': 'export interface Circle {\n  readonly r: number;\n}\n',
    });
    expect(lintSources(dir, dir)).toEqual([
      'src/Shapes.ts:1: exports only Circle, so it is named Circle.ts',
      'src/helpers.ts:1: exports only parseThing, so it is named parseThing.ts',
    ]);
  });

  it('accepts another name the module exports, case and separators, one leading verb; skips barrels, tests and scripts', () => {
    const dir = fixturePackage({
      'src/ServerConfig.ts': 'export const DEFAULT_DEADLINE_MS = 1;\nexport interface ServerConfig {\n  readonly deadlineMs: number;\n}\n',
      'src/scopeVersion.ts': "export const SCOPE_VERSION = '1';\n",
      'src/lint-package.ts': 'export function lintPackage(): void {}\n',
      'src/errorView.ts': "export function renderErrorView(): string {\n  return '';\n}\n",
      'src/index.ts': "export { lintPackage } from './lint-package.js';\n",
      'src/helpers.test.ts': 'export const unrelated = 1;\n',
      'src/child.mjs': 'export function resolve() {}\n',
      'src/two.ts': 'export const one = 1;\nexport const two = 2;\n',
    });
    expect(lintSources(dir, dir)).toEqual([]);
  });

  it('a value and its same-named type are one export (the closed-vocabulary habit)', () => {
    const module = readSourceModule(
      '/x/ToolOutcome.ts',
      "export const ToolOutcome = { OK: 'ok' } as const;\nexport type ToolOutcome = 'ok';\n",
    );
    expect(mainExportOf(module)).toBe('ToolOutcome');
    expect(mainExportOf(readSourceModule('/x/y.ts', 'export default function () {}\n'))).toBeUndefined();
  });
});

describe('module mocks in a shared module graph', () => {
  const MOCKING =
    "import { it, vi } from 'vitest';\nimport { a } from './a.js';\n\nvi.mock('./b.js', () => ({ b: 1 }));\nit('x', () => a);\n";

  it('a test file that mocks a module must start a fresh graph and take the mock away after it', () => {
    const dir = fixturePackage({ 'src/a.ts': 'export const a = 1;\n', 'src/a.test.ts': MOCKING });
    expect(lintSources(dir, dir)).toEqual([
      'src/a.test.ts:4: mocks a module in a shared module graph without starting a fresh one: add vi.hoisted(() => vi.resetModules())',
      'src/a.test.ts:4: mocks a module without taking the mock away for the next files: afterAll(() => { vi.doUnmock(…); vi.resetModules(); })',
    ]);
  });

  it('passes one that does both, and files that mock nothing', () => {
    const fixed = MOCKING.replace(
      "vi.mock('./b.js'",
      "vi.hoisted(() => vi.resetModules());\nafterAll(() => {\n  vi.doUnmock('./b.js');\n  vi.resetModules();\n});\nvi.mock('./b.js'",
    );
    const dir = fixturePackage({
      'src/a.ts': 'export const a = 1;\n',
      'src/a.test.ts': fixed,
      'src/b.test.ts': "import { vi } from 'vitest';\nvi.spyOn(console, 'log');\n",
    });
    expect(lintSources(dir, dir)).toEqual([]);
  });
});

describe("type tests are checked by the package's typecheck task", () => {
  const TYPE_TEST = "import { expectTypeOf } from 'vitest';\nimport { a } from './a.js';\n\nexpectTypeOf(a).toEqualTypeOf<number>();\n";
  const TSCONFIG = JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', types: [], skipLibCheck: true },
    include: ['src/**/*.ts'],
  });
  const SCRIPTS = JSON.stringify({ type: 'module', scripts: { typecheck: 'tsc -p tsconfig.json --noEmit' } });

  it('names a type test outside the tsconfig program, and a package whose typecheck is not tsc over it', () => {
    const outside = fixturePackage({
      'package.json': SCRIPTS,
      'tsconfig.json': TSCONFIG,
      'src/a.ts': 'export const a = 1;\n',
      'src/a.test-d.ts': TYPE_TEST,
      'types/b.test-d.ts': TYPE_TEST,
    });
    expect(lintSources(outside, outside)).toEqual([
      `types/b.test-d.ts: a type test outside the program of ./tsconfig.json: its "typecheck" task would not check it`,
    ]);
    const noScript = fixturePackage({ 'tsconfig.json': TSCONFIG, 'src/a.ts': 'export const a = 1;\n', 'src/a.test-d.ts': TYPE_TEST });
    expect(lintSources(noScript, noScript)).toEqual([
      '.: has type tests (src/a.test-d.ts) but its "typecheck" script is null, not "tsc -p tsconfig.json --noEmit", which checks them',
    ]);
  });

  it('a wrong expectTypeOf fails `tsc -p tsconfig.json --noEmit` (the typecheck task), the right one passes', () => {
    // inside tools/ so that `vitest` resolves from the fixture as it does from a package
    const dir = mkdtempSync(path.join(TOOLS, '.type-test-'));
    scratch.push(dir);
    for (const [file, text] of Object.entries({
      'package.json': SCRIPTS,
      'tsconfig.json': TSCONFIG,
      'src/a.ts': 'export const a = 1;\n',
    })) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), text);
    }
    const tsc = () =>
      spawnSync(process.execPath, [path.join(TOOLS, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json', '--noEmit'], {
        cwd: dir,
        encoding: 'utf8',
      });
    writeFileSync(path.join(dir, 'src', 'a.test-d.ts'), TYPE_TEST.replace('<number>', '<string>'));
    const wrong = tsc();
    expect(wrong.status).not.toBe(0);
    expect(wrong.stdout).toMatch(/src\/a\.test-d\.ts\(4,\d+\): error TS\d+/);
    writeFileSync(path.join(dir, 'src', 'a.test-d.ts'), TYPE_TEST);
    expect(tsc()).toMatchObject({ status: 0, stdout: '' });
    expect(lintSources(dir, dir)).toEqual([]);
  });
});
