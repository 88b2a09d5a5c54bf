// The export condition that points a runledger package at its TypeScript sources
// (`"@runledger/source": "./src/index.ts"`, after "types" in every `exports` subpath;
// `publishConfig.exports` leaves it out of the published package.json). Tests resolve sibling
// packages through it (vitest.base.mjs), so an edit to core is seen by trace's tests without
// rebuilding core; builds take their entry points from it (tsup.base.mjs), so a package lists its
// entry points once, in package.json (docs/api-surface.md, "Sources in tests").
import { readFileSync } from 'node:fs';
import path from 'node:path';

export const SOURCE_CONDITION = '@runledger/source';

/**
 * The entry sources of the package in `dir`: every `exports` subpath's SOURCE_CONDITION target.
 * @param {string} [dir]
 * @returns {string[]}
 */
export function exportedSources(dir = process.cwd()) {
  const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const sources = Object.values(pkg.exports ?? {})
    .map((target) => (typeof target === 'object' && target !== null ? target[SOURCE_CONDITION] : undefined))
    .filter((source) => typeof source === 'string');
  if (sources.length === 0) throw new Error(`${pkg.name}: no "exports" subpath names its source under the "${SOURCE_CONDITION}" condition`);
  return sources;
}
