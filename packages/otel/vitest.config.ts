import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    typecheck: { include: ['src/**/*.test-d.ts', 'test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
    testTimeout: 20000,
    // Setup (servers, fixtures, transpiling) is not under test: a busy CI machine may need long.
    hookTimeout: 60000,
  },
});
