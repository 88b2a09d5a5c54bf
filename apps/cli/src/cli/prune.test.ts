// `runledger prune` end to end, in process, on a real SQLite file and on a real PostgreSQL schema.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresRunStore } from '@runledger/store-postgres';
import { SqliteRunStore } from '@runledger/store-sqlite';
import type { RunStore } from '@runledger/trace';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pgClientOrSkip } from '../../test/cliHelpers.js';
import { runCli } from './runCli.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'runledger-prune-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function cli(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    env: {},
    cwd: dir,
  });
  return { code, stdout, stderr };
}

const DAY = 86_400_000;
const PG_URL = process.env['RUNLEDGER_PG_URL'] || 'postgres://postgres@127.0.0.1:5432/test';

/** Two runs that ended 40 and 35 days ago, one running since 40 days, one that ended yesterday: 3 steps each. */
async function seedFour(store: RunStore, now: number): Promise<string[]> {
  const ids: string[] = [];
  for (const [age, finish] of [
    [40, true],
    [35, true],
    [40, false],
    [1, true],
  ] as const) {
    const run = await store.createRun({ configuration: 'c', createdAt: now - age * DAY });
    for (let i = 0; i < 3; i++) {
      await store.appendStep(run.id, {
        kind: 'llm',
        round: 0,
        durationMs: 1,
        createdAt: now - age * DAY + i,
        payload: {},
        toolServer: null,
        toolOutcome: null,
      });
    }
    if (finish) await store.finishRun(run.id, { status: 'completed', finishedAt: now - age * DAY + 10 });
    ids.push(run.id);
  }
  return ids;
}

describe('runledger prune', () => {
  it('says what it would delete on --dry-run, then deletes old ended runs whole and keeps the rest', async () => {
    const path = join(dir, 'runledger.db');
    const store = await SqliteRunStore.open({ path });
    const now = Date.now();
    const ids = await seedFour(store, now);
    await store.close();

    const dry = await cli(['prune', '--older-than', '30d', '--dry-run']);
    expect(dry).toMatchObject({ code: 0, stderr: '' });
    expect(dry.stdout).toMatch(
      /^would delete 2 runs \(6 steps\) that ended before .*: oldest ended .*, newest .* \(dry run: nothing deleted\)\n$/,
    );

    const real = await cli(['prune', '--older-than', '30d', '--json']);
    expect(real.code).toBe(0);
    expect(JSON.parse(real.stdout)).toMatchObject({
      dryRun: false,
      runs: 2,
      steps: 6,
      oldestFinishedAt: now - 40 * DAY + 10,
      newestFinishedAt: now - 35 * DAY + 10,
      complete: true,
    });

    const again = await cli(['prune', '--older-than', '30d']);
    expect(again.stdout).toMatch(/^no runs ended before .*; nothing to delete\n$/);

    const check = await SqliteRunStore.open({ path });
    expect(await check.getRun(ids[0]!)).toBeNull();
    expect(await check.getRun(ids[1]!)).toBeNull();
    expect((await check.getRun(ids[2]!))?.status).toBe('running');
    expect((await check.getRun(ids[3]!))?.stepCount).toBe(3);
    await check.close();
  });

  it('prunes a PostgreSQL store named with --pg the same way', async (ctx) => {
    const client = await pgClientOrSkip(PG_URL, ctx);
    if (client === null) return;
    const schema = `rl_cli_prune_${process.pid}_${Date.now()}`;
    const target = ['--pg', PG_URL, '--pg-schema', schema];
    try {
      const store = await PostgresRunStore.connect({ connectionString: PG_URL, schema });
      const now = Date.now();
      const ids = await seedFour(store, now);
      await store.close();

      const dry = await cli(['prune', '--older-than', '30d', '--dry-run', ...target]);
      expect(dry).toMatchObject({ code: 0, stderr: '' });
      expect(dry.stdout).toMatch(/^would delete 2 runs \(6 steps\) that ended before .* \(dry run: nothing deleted\)\n$/);

      const real = await cli(['prune', '--older-than', '30d', '--json', ...target]);
      expect(real).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(real.stdout)).toMatchObject({
        dryRun: false,
        runs: 2,
        steps: 6,
        oldestFinishedAt: now - 40 * DAY + 10,
        newestFinishedAt: now - 35 * DAY + 10,
        batches: 1,
        complete: true,
      });
      expect((await cli(['prune', '--older-than', '30d', ...target])).stdout).toMatch(/^no runs ended before .*; nothing to delete\n$/);

      const left = await client.query<{ id: string }>(`SELECT id FROM "${schema}".runs ORDER BY id`);
      expect(left.rows.map((row) => row.id)).toEqual([ids[2]!, ids[3]!].sort());
      expect((await client.query(`SELECT 1 FROM "${schema}".steps`)).rowCount).toBe(6);
    } finally {
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    }
  });

  it('refuses a bad duration with a usage error (exit 2)', async () => {
    const result = await cli(['prune', '--older-than', '30']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--older-than must be a duration like 30d/);
  });
});
