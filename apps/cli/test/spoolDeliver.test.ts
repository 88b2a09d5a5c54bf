// `runledger spool deliver` where delivery cannot simply succeed: a store that is not there, a
// final status that arrives after recovery ended its run, a file cut short, a file that can never
// be delivered (its run is gone) — each said in the text and in --json.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteRunStore } from '@runledger/store-sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spoolDeliver } from '../src/commands/spoolDeliver.js';
import { cli } from './cliHelpers.js';

const STEP = { kind: 'llm', round: 0, durationMs: 1, createdAt: 5, payload: { kind: 'llm' }, toolServer: null, toolOutcome: null };
const line = (entry: object): string => `${JSON.stringify({ v: 1, ...entry })}\n`;

let dir: string;
let spool: string;
let db: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'runledger-spool-deliver-'));
  spool = join(dir, 'spool');
  mkdirSync(spool);
  db = join(dir, 'runs.db');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('runledger spool deliver', () => {
  it('refuses a --db file that does not exist, as the read commands do, and creates nothing', async () => {
    writeFileSync(
      join(spool, 'spool-999999991-1-000000a1.jsonl'),
      line({ type: 'step', runId: '00000000-0000-4000-8000-0000000000a1', sequence: 0, step: STEP }),
    );
    const result = await cli(['spool', 'deliver', '--db', db, '--spool-dir', spool], dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`there is no SQLite store at ${db}`);
    expect(existsSync(db)).toBe(false);
    expect(readdirSync(spool)).toEqual(['spool-999999991-1-000000a1.jsonl']);
  });

  it('says which final status arrived after its run had ended, in text and --json', async () => {
    const store = await SqliteRunStore.open({ path: db });
    const run = await store.createRun({ configuration: 'c', createdAt: 1_000 });
    await store.recoverInterrupted(Date.now() + 1);
    await store.close();
    const name = 'spool-999999991-2-000000a2.jsonl';
    const finish = { status: 'completed', finishedAt: 1_500, terminationReason: null, unstoredSteps: 2 };
    writeFileSync(join(spool, name), line({ type: 'finish', runId: run.id, finish }));
    copyFileSync(join(spool, name), join(dir, name));
    const text = await cli(['spool', 'deliver', '--db', db, '--spool-dir', spool], dir);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      `LATE: the final status "completed" of run ${run.id} arrived after the run had ended "interrupted"; kept as its late finish, 2 unstored steps counted`,
    );
    copyFileSync(join(dir, name), join(spool, name));
    const json = await cli(['spool', 'deliver', '--db', db, '--spool-dir', spool, '--json'], dir);
    const parsed = spoolDeliver.jsonOutput.parse(JSON.parse(json.stdout));
    expect(parsed.files[0]).toMatchObject({
      state: 'delivered',
      finishes: 0,
      lateFinishes: [{ runId: run.id, status: 'completed', finishedAt: 1_500, runStatus: 'interrupted', unstoredSteps: 2 }],
    });
    const reopened = await SqliteRunStore.open({ path: db });
    expect(await reopened.getRun(run.id)).toMatchObject({ status: 'interrupted', unstoredSteps: 2, lateFinishStatus: 'completed' });
    await reopened.close();
  });

  it('counts the acknowledged entries lost after a cut mid-line and exits 1; --set-aside moves a file that can never be delivered out of the way', async () => {
    const store = await SqliteRunStore.open({ path: db });
    const run = await store.createRun({ configuration: 'c', createdAt: 1_000 });
    await store.close();
    const name = 'spool-999999991-3-000000a3.jsonl';
    const entries = [0, 1, 2, 3].map((sequence) => line({ type: 'step', runId: run.id, sequence, step: STEP })).join('');
    const count = `{"v":1,"type":"count","acknowledged":${'4'.padEnd(16, ' ')}}\n`;
    writeFileSync(join(spool, name), count + entries);
    truncateSync(join(spool, name), count.length + readFileSync(join(spool, name), 'utf8').slice(count.length).indexOf('"sequence":1') + 3);
    const listed = await cli(['spool', 'list', '--spool-dir', spool], dir);
    expect(listed.stdout).toMatch(/^FILE\s+PROCESS\s+STEPS\s+FINAL STATUSES\s+RUNS\s+LOST\n/);
    expect(listed.stdout).toMatch(/\.jsonl\s+999999991\s+1\s+0\s+1\s+3\n$/);
    const text = await cli(['spool', 'deliver', '--db', db, '--spool-dir', spool], dir);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/KEPT .*: 1 step, 0 final statuses delivered, then 3 acknowledged entries were lost/);
    const aside = await cli(['spool', 'deliver', '--db', db, '--spool-dir', spool, '--set-aside', '--json'], dir);
    expect(aside.code).toBe(1);
    const parsed = spoolDeliver.jsonOutput.parse(JSON.parse(aside.stdout));
    expect(parsed.files[0]).toMatchObject({ state: 'set_aside', lost: 3 });
    expect(readdirSync(spool)).toEqual([`${name}.set-aside`]);
    const after = await cli(['spool', 'deliver', '--db', db, '--spool-dir', spool], dir);
    expect(after).toMatchObject({ code: 0, stdout: `no spool files in ${spool}\n` });
  });
});
