#!/usr/bin/env node
// The `runledger` command: the built binary, dist/cli.js. In a clone of the repository, pnpm links
// this file (the root's postinstall, tools/link-cli-bin.mjs) as `pnpm exec runledger` at install, before
// anything is built: until `pnpm build` has run, it says so instead of Node's "Cannot find module".
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (existsSync(cli)) {
  await import(cli.href);
} else {
  process.stderr.write(
    'runledger: the command is not built in this clone of the repository: run `pnpm build` (or `pnpm turbo run build --filter @runledger/cli...`) once, then run it again.\n',
  );
  process.exitCode = 2;
}
