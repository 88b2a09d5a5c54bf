// The one tsup configuration of every package: ESM for Node 20, source maps, no declarations
// (tsc writes those, with declaration maps, for API Extractor). A package with the one entry
// src/index.ts builds with this file's default export (`tsup --config ../../tsup.base.mjs`); a
// package with more entries keeps a tsup.config.ts passing them.
// Every build starts from an empty dist, so a renamed or removed source leaves no stale file in
// the tarball: `build` is `tsup && tsc -p tsconfig.build.json`, so tsup empties dist first and
// tsc then writes the declarations into it. A tsup run that must keep tsc's declarations (one
// that rebuilds only the JavaScript, e.g. before tests) passes `--no-clean`.
import { defineConfig } from 'tsup';

/** @param {import('tsup').Options['entry']} entry */
export function packageTsupConfig(entry = ['src/index.ts']) {
  return defineConfig({
    entry,
    format: ['esm'],
    target: 'node20',
    platform: 'node',
    sourcemap: true,
    clean: true,
    dts: false,
    splitting: false,
  });
}

export default packageTsupConfig();
