import { readFileSync } from 'node:fs';

/** The package whose version `runledger --version` prints. */
const PACKAGE_NAME = '@runledger/cli';

/**
 * The version of `@runledger/cli` that is running, read from its package.json: the first one
 * named `@runledger/cli` up from this module (`dist/` when built, `src/commandKit/` in the sources).
 *
 * @throws Error from `cliVersion` when no such package.json is found (a broken install).
 * @internal
 */
export function cliVersion(): string {
  for (let folder = new URL('./', import.meta.url); ; folder = new URL('../', folder)) {
    let manifest: { name?: unknown; version?: unknown } | null = null;
    try {
      manifest = JSON.parse(readFileSync(new URL('package.json', folder), 'utf8')) as { name?: unknown; version?: unknown };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (manifest?.name === PACKAGE_NAME && typeof manifest.version === 'string') return manifest.version;
    if (folder.pathname === '/') throw new Error(`cliVersion: no package.json of ${PACKAGE_NAME} above ${import.meta.url}`);
  }
}
