// The one vitest configuration of every package: tests beside the code (src/) and in test/. The
// type-level tests (*.test-d.ts) are the package's `typecheck` task's (tsc over src/ and test/):
// `vitest --typecheck` ran the same tsc a second time (tools/src/lib/typeTestProblems.ts). A package without a
// vitest.config.ts runs this file's default export (`vitest run --config ../../vitest.base.mjs`);
// a package that adds something keeps a vitest.config.ts passing what it adds.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { SOURCE_CONDITION } from './source-condition.mjs';

export { SOURCE_CONDITION };

/** The global setup that gives each test run a temporary folder of its own (vitest.tempRoot.mjs). */
export const TEMP_ROOT_SETUP = fileURLToPath(new URL('./vitest.tempRoot.mjs', import.meta.url));

/** @param {import('vitest/node').InlineConfig} [extra] */
export function packageVitestConfig(extra = {}) {
  return defineConfig({
    // Tests run in Vite's server (SSR) environment, whose conditions are ssr.resolve.conditions;
    // setting them replaces Vite's defaults, so the rest is vitest's own default for Node tests
    // (Vite's defaultServerConditions without "module"). Vitest also passes these to its worker
    // processes as `--conditions`.
    ssr: { resolve: { conditions: [SOURCE_CONDITION, 'node', 'development|production'] } },
    test: {
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      // One module graph per worker for all its test files, not a fresh one per file: the tests'
      // CPU time a third of what it was (trace: 25 s → 7.5 s user), in both Node passes. A file
      // that mocks a module starts a fresh graph and takes the mock away after it, which
      // `pnpm lint:code` checks (tools/src/lib/moduleMockProblems.ts).
      isolate: false,
      testTimeout: 20000,
      // Setup (servers, fixtures, transpiling) is not under test: a busy CI machine may need long.
      hookTimeout: 60000,
      ...extra,
      // first: the run's temporary folder exists before any other setup makes files
      globalSetup: [TEMP_ROOT_SETUP, ...[extra.globalSetup ?? []].flat()],
    },
  });
}

export default packageVitestConfig();
