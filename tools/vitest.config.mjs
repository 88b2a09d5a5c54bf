import { defineConfig } from 'vitest/config';
import { TEMP_ROOT_SETUP } from '../vitest.base.mjs';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    globalSetup: [TEMP_ROOT_SETUP],
  },
});
