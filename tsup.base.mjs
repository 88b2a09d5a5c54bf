// The one tsup configuration of every package: ESM for Node 20, source maps, no declarations
// (tsc writes those, with declaration maps, for API Extractor). A package passes its entries.
import { defineConfig } from 'tsup';

/** @param {import('tsup').Options['entry']} entry */
export function packageTsupConfig(entry = ['src/index.ts']) {
  return defineConfig({
    entry,
    format: ['esm'],
    target: 'node20',
    platform: 'node',
    sourcemap: true,
    // dist is kept between builds: other packages' tests read it while one package rebuilds.
    clean: false,
    dts: false,
    splitting: false,
  });
}
