// Each command that says a count beside its own words says `1 run`, `2 runs` (issue 40 item 6),
// run as the command line runs it, on a real SQLite file (and a real PostgreSQL schema for copy).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteRunStore } from '@runledger/store-sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli, withPgSchema } from './cliHelpers.js';

const DAY = 86_400_000;
const STEP = { kind: 'llm', round: 0, durationMs: 1, payload: {}, toolServer: null, toolOutcome: null } as const;

let dir: string;
let db: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'runledger-counts-'));
  db = join(dir, 'runledger.db');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Runs created `ageDays` ago with `steps` steps each, ended unless `running`. */
async function seed(runs: number, steps: number, options: { ageDays: number; running?: boolean }): Promise<string[]> {
  const store = await SqliteRunStore.open({ path: db });
  const ids: string[] = [];
  try {
    const at = Date.now() - options.ageDays * DAY;
    for (let r = 0; r < runs; r++) {
      const run = await store.createRun({ configuration: 'counts', createdAt: at + r });
      for (let s = 0; s < steps; s++) await store.appendStep(run.id, { ...STEP, createdAt: at + r + s });
      if (options.running !== true) await store.finishRun(run.id, { status: 'completed', finishedAt: at + r + 10 });
      ids.push(run.id);
    }
  } finally {
    await store.close();
  }
  return ids;
}

describe('counts in the command line’s words', () => {
  it('prune: "would delete 1 run (1 step)", then "deleted 1 run (1 step) … in 1 batch"; two of each in the plural', async () => {
    await seed(1, 1, { ageDays: 40 });
    const dry = await cli(['prune', '--db', db, '--older-than', '30d', '--dry-run'], dir);
    expect(dry).toMatchObject({ code: 0, stderr: '' });
    expect(dry.stdout).toMatch(/^would delete 1 run \(1 step\) that ended before /);
    const real = await cli(['prune', '--db', db, '--older-than', '30d'], dir);
    expect(real.stdout).toMatch(/^deleted 1 run \(1 step\) that ended before .* in 1 batch\n$/);
    await seed(2, 2, { ageDays: 40 });
    expect((await cli(['prune', '--db', db, '--older-than', '30d'], dir)).stdout).toMatch(/^deleted 2 runs \(4 steps\) that ended/);
  });

  it('runs recover: "1 run ended", "2 runs ended"', async () => {
    await seed(1, 0, { ageDays: 1, running: true });
    const one = await cli(['runs', 'recover', '--db', db, '--stale-after', '1m'], dir);
    expect(one).toMatchObject({ code: 0, stderr: '' });
    expect(one.stdout).toMatch(/\n1 run ended\n$/);
    await seed(2, 0, { ageDays: 1, running: true });
    expect((await cli(['runs', 'recover', '--db', db, '--stale-after', '1m'], dir)).stdout).toMatch(/\n2 runs ended\n$/);
  });

  it('spool deliver: "1 step, 1 final status", "2 steps, 0 final statuses"', async () => {
    const [one, two] = await seed(2, 0, { ageDays: 1, running: true });
    const spool = join(dir, 'spool');
    mkdirSync(spool);
    const line = (entry: object) => `${JSON.stringify({ v: 1, ...entry })}\n`;
    const finish = { status: 'completed', finishedAt: Date.now(), terminationReason: null, unstoredSteps: 0 };
    writeFileSync(
      join(spool, 'spool-999999991-1-000000a1.jsonl'),
      line({ type: 'step', runId: one, sequence: 0, step: { ...STEP, createdAt: 5 } }) + line({ type: 'finish', runId: one, finish }),
    );
    writeFileSync(
      join(spool, 'spool-999999991-2-000000a2.jsonl'),
      line({ type: 'step', runId: two, sequence: 0, step: { ...STEP, createdAt: 5 } }) +
        line({ type: 'step', runId: two, sequence: 1, step: { ...STEP, createdAt: 6 } }),
    );
    const result = await cli(['spool', 'deliver', '--db', db, '--spool-dir', spool], dir);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/^delivered .*a1\.jsonl: 1 step, 1 final status; file removed$/m);
    expect(result.stdout).toMatch(/^delivered .*a2\.jsonl: 2 steps, 0 final statuses; file removed$/m);
  });

  it('copy: "1 run copied (1 step)", then "0 runs copied (0 steps)"', async (ctx) => {
    await withPgSchema(ctx, 'runledger_counts', async (url, schema) => {
      await seed(1, 1, { ageDays: 1 });
      const first = await cli(['copy', '--db', db, '--pg', url, '--pg-schema', schema], dir);
      expect(first).toMatchObject({ code: 0, stderr: '' });
      expect(first.stdout).toMatch(/\] run [0-9a-f-]{36}: 1 copied, 0 already there, 1 step so far\n/);
      expect(first.stdout).toContain('copy finished: 1 run copied (1 step), 0 already there and skipped, 1 seen\n');
      const again = await cli(['copy', '--db', db, '--pg', url, '--pg-schema', schema], dir);
      expect(again.stdout).toContain('copy finished: 0 runs copied (0 steps), 1 already there and skipped, 1 seen\n');
    });
  });
});
