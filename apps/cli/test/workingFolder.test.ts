// Relative paths given to the real `runledger` binary mean the folder it runs in, as for every npm
// bin — not npm's INIT_CWD, which in a consumer's monorepo is where `npm run` was typed.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteRunStore } from '@runledger/store-sqlite';
import { afterAll, expect, it } from 'vitest';
import { BIN, BIN_ENV, type CliResult } from './cliHelpers.js';

const dir = mkdtempSync(join(tmpdir(), 'runledger-ui-cwd-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runIn(cwd: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(BIN, [...args], { cwd, env }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
    });
  });
}

it('reads --db runs.db from the folder it runs in, whatever INIT_CWD says', async () => {
  const app = join(dir, 'packages', 'app');
  mkdirSync(app, { recursive: true });
  const store = await SqliteRunStore.open({ path: join(app, 'runs.db') });
  const run = await store.createRun({ configuration: 'in-app-folder' });
  await store.close();

  // as `npm run ledger -w app` from the monorepo root: the script runs in app/, INIT_CWD is the root
  const result = await runIn(app, ['runs', 'list', '--db', 'runs.db', '--json'], { ...BIN_ENV, INIT_CWD: dir });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  expect((JSON.parse(result.stdout) as { runs: { id: string }[] }).runs.map((r) => r.id)).toEqual([run.id]);
});
