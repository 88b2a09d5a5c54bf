// The one vitest configuration of every package: tests beside the code (src/) and in test/, type
// tests (*.test-d.ts) checked against the package's tsconfig. A package without a
// vitest.config.ts runs this file's default export (`vitest run --config ../../vitest.base.mjs`);
// a package that adds something keeps a vitest.config.ts passing what it adds.
import { defineConfig } from 'vitest/config';

/**
 * The export condition that points a runledger package at its TypeScript sources
 * (`"@runledger/source": "./src/index.ts"`, first in every `exports` subpath; `publishConfig.exports`
 * leaves it out of the published package.json). Tests resolve sibling packages through it, so an
 * edit to core is seen by trace's tests without rebuilding core (docs/api-surface.md, "Sources in tests").
 */
export const SOURCE_CONDITION = '@runledger/source';

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
      typecheck: { include: ['src/**/*.test-d.ts', 'test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
      testTimeout: 20000,
      // Setup (servers, fixtures, transpiling) is not under test: a busy CI machine may need long.
      hookTimeout: 60000,
      ...extra,
    },
  });
}

export default packageVitestConfig();
