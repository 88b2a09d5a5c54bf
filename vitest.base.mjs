// The one vitest configuration of every package: tests beside the code (src/) and in test/, type
// tests (*.test-d.ts) checked against the package's tsconfig. A package passes what it adds.
import { defineConfig } from 'vitest/config';

/** @param {import('vitest/node').InlineConfig} [extra] */
export function packageVitestConfig(extra = {}) {
  return defineConfig({
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
