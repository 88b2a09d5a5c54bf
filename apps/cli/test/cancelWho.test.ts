// Issue 40 item 2: a cancel request keeps who asked, from where and why. `runs cancel` asks as the
// OS user (or --actor) from the CLI, with --reason; `runs show` says it, its --json has it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { SqliteRunStore } from '@runledger/store-sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runsCancel } from '../src/commands/runsCancel.js';
import { runsShow } from '../src/commands/runsShow.js';
import { Translator } from '../src/i18n/Translator.js';
import { cli } from './cliHelpers.js';

const en = new Translator('en');
let dir: string;
let db: string;
let store: SqliteRunStore;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'runledger-cancel-who-'));
  db = join(dir, 'runs.db');
  store = await SqliteRunStore.open({ path: db });
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('runs cancel: who, from where and why', () => {
  it('--actor and --reason are kept from the CLI; runs show says them and its --json has them', async () => {
    const run = await store.createRun({ configuration: 'who' });
    const result = await cli(
      ['runs', 'cancel', run.id, '--actor', 'alice', '--reason', 'stuck on the slow server', '--json', '--db', db],
      dir,
    );
    expect(result.code).toBe(0);
    const out = runsCancel.jsonOutput.parse(JSON.parse(result.stdout));
    const at = out.run.cancelRequestedAt!;
    expect(out.run.cancelRequest).toEqual({ at, from: 'cli', by: 'alice', reason: 'stuck on the slow server' });

    const show = await cli(['runs', 'show', run.id, '--db', db], dir);
    expect(show.stdout).toContain(`Cancel requested: ${en.date(at)} by alice from the CLI: stuck on the slow server\n`);
    const json = runsShow.jsonOutput.parse(JSON.parse((await cli(['runs', 'show', run.id, '--json', '--db', db], dir)).stdout));
    expect(json.run.cancelRequest).toEqual({ at, from: 'cli', by: 'alice', reason: 'stuck on the slow server' });
  });

  it('asks as the OS user without --actor, and without a reason when none is typed', async () => {
    const run = await store.createRun({ configuration: 'who' });
    expect((await cli(['runs', 'cancel', run.id, '--db', db], dir)).code).toBe(0);
    const stored = (await store.getRun(run.id))!;
    expect(stored.cancelRequest).toEqual({ at: stored.cancelRequestedAt, from: 'cli', by: userInfo().username, reason: null });
    const show = await cli(['runs', 'show', run.id, '--db', db], dir);
    expect(show.stdout).toContain(`Cancel requested: ${en.date(stored.cancelRequestedAt!)} by ${userInfo().username} from the CLI\n`);
  });

  it('refuses an --actor or --reason outside the rule (exit 2) naming the flag and the rule, and cancels nothing', async () => {
    const run = await store.createRun({ configuration: 'who' });
    const twoLines = await cli(['runs', 'cancel', run.id, '--actor', 'a\nb', '--db', db], dir);
    expect(twoLines.code).toBe(2);
    expect(twoLines.stderr).toContain('runledger runs cancel: --actor must be a string of 1 to 200 characters without control characters');
    const long = await cli(['runs', 'cancel', run.id, '--reason', 'r'.repeat(501), '--db', db], dir);
    expect(long.code).toBe(2);
    expect(long.stderr).toContain('runledger runs cancel: --reason must be a string of 1 to 500 characters');
    expect((await store.getRun(run.id))!.cancelRequestedAt).toBeNull();
  });

  it('says a request without who asked by where it came from alone', async () => {
    const run = await store.createRun({ configuration: 'who' });
    await store.requestCancel(run.id, undefined, { from: 'signal' });
    const at = (await store.getRun(run.id))!.cancelRequestedAt!;
    expect((await cli(['runs', 'show', run.id, '--db', db], dir)).stdout).toContain(`Cancel requested: ${en.date(at)} from Ctrl+C\n`);
  });
});
