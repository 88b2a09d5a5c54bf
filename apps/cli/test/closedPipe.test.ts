// Issue 38 item 6: `runledger runs show … | head -1` died of EPIPE with a stack trace. Output to
// a reader that has gone is dropped: the command ends as it would have, exit 0, nothing on stderr.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteRunStore } from '@runledger/store-sqlite';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BIN, BIN_ENV } from './cliHelpers.js';
import { seedRun } from './seedRun.js';

let dir: string;
let db: string;
let runId: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'runledger-closed-pipe-'));
  db = join(dir, 'runs.db');
  const store = await SqliteRunStore.open({ path: db });
  const calls = Array.from({ length: 50 }, (_, i) => ({ server: 'docs', tool: `search_${i}`, outcome: 'ok' as const }));
  runId = (await seedRun(store, { configuration: 'pipe-test', createdAt: Date.now() - 60_000, calls })).id;
  await store.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the binary with its stdout a pipe whose reading end is closed at once: every write meets EPIPE. */
function runIntoClosedPipe(args: readonly string[]): Promise<{ code: number | null; signal: string | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(BIN, [...args], { cwd: dir, env: BIN_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stderr }));
  });
}

it.each([
  ['runs show', ['runs', 'show', 'RUN']],
  ['runs show --json', ['runs', 'show', 'RUN', '--json']],
  ['runs list', ['runs', 'list']],
])('%s into a reader that has closed: exit 0, quiet', async (_name, args) => {
  const result = await runIntoClosedPipe([...args.map((arg) => (arg === 'RUN' ? runId : arg)), '--db', db]);
  expect(result.stderr).toBe('');
  expect(result).toEqual({ code: 0, signal: null, stderr: '' });
});
