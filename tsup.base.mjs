// The one tsup configuration of every package: ESM for Node 20, source maps, no declarations
// (tsc writes those, with declaration maps, for API Extractor). A package builds with this file's
// default export (`tsup --config ../../tsup.base.mjs`), whose entries are the sources its
// package.json `exports` names under the "@runledger/source" condition (src/index.ts, and e.g.
// src/store/index.ts for `./store`): one list of entry points, in package.json. A package that
// builds more than its exports (the CLI's binary) keeps a tsup.config.ts.
// Every build starts from an empty dist, so a renamed or removed source leaves no stale file in
// the tarball: `build` is `tsup && tsc -p tsconfig.build.json`, so tsup empties dist first and
// tsc then writes the declarations into it. A tsup run that must keep tsc's declarations (one
// that rebuilds only the JavaScript, e.g. before tests) passes `--no-clean`.
import { defineConfig } from 'tsup';
import { exportedSources } from './source-condition.mjs';

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

export default packageTsupConfig(exportedSources());
