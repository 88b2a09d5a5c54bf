// `pnpm exec runledger` in a clone of the repository (the root's postinstall): links
// node_modules/.bin/runledger to apps/cli/bin/runledger.js, which runs the built binary (or says to
// run `pnpm build` first). Not a root dependency on @runledger/cli: turbo folds the root's workspace
// dependencies into its global hash, so every edit of the CLI would invalidate every task's cache.
import { chmodSync, existsSync, lstatSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const target = path.join(root, 'apps', 'cli', 'bin', 'runledger.js');
const bin = path.join(root, 'node_modules', '.bin');
const link = path.join(bin, 'runledger');
if (existsSync(target)) {
  mkdirSync(bin, { recursive: true });
  try {
    lstatSync(link);
    rmSync(link, { force: true });
  } catch {
    // no link yet
  }
  symlinkSync(path.relative(bin, target), link);
  chmodSync(target, 0o755);
}
