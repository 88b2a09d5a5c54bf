import { configDefaults } from 'vitest/config';
import { packageVitestConfig } from '../../vitest.base.mjs';

/**
 * `RUNLEDGER_BROWSER_TESTS=off` (the Node 24 pass, tools/src/node24.ts) leaves the Chromium tests
 * out: what they check — the pages as Chromium renders and runs them, axe-core's verdict, focus —
 * is decided by the page bytes and Chromium, not by the Node that serves them; the app's HTTP
 * tests (same pages, same server) run on every Node line, and the Node 20 run drives Chromium.
 */
export const BROWSER_TESTS = ['test/browser*.test.ts'];
const browserTestsOff = process.env.RUNLEDGER_BROWSER_TESTS === 'off';

export default packageVitestConfig({
  globalSetup: ['./test/globalSetup.ts'],
  testTimeout: 30000,
  exclude: browserTestsOff ? [...configDefaults.exclude, ...BROWSER_TESTS] : configDefaults.exclude,
});
