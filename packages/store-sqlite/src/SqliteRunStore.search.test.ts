// The search reads of the SQLite store beyond the shared contract: tokens kept by both append paths
// and by importRun, what a damaged payload reads as, and the query plans (each read goes through
// its index: a seek per run for the server and tool filters, a range per outcome for one server's
// calls, a range of the primary key for an id prefix).
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteRunStore } from './SqliteRunStore.js';
import { tempFolder, toolStep } from './testing/tempDatabase.js';
import type { StoredRun } from '@runledger/trace';

let folder: ReturnType<typeof tempFolder>;
const open: SqliteRunStore[] = [];
async function openStore(groupCommit = true): Promise<SqliteRunStore> {
  const store = await SqliteRunStore.open({ path: folder.file(), groupCommit });
  open.push(store);
  return store;
}
beforeEach(() => {
  folder = tempFolder();
});
afterEach(async () => {
  for (const store of open.splice(0)) await store.close();
  folder.remove();
});

const T0 = Date.UTC(2026, 0, 1);
const llm = (promptTokens: unknown, completionTokens: unknown, createdAt = T0) => ({
  kind: 'llm',
  round: 0,
  durationMs: 5,
  createdAt,
  payload: { kind: 'llm', model: 'm', promptTokens, completionTokens },
  toolServer: null,
  toolOutcome: null,
});

/**
 * Records the statements run (with their parameters) by connections that prepare them from now
 * until `stop`: the store prepares each statement once and keeps it, so they are caught as they
 * are prepared and their runs as they come.
 */
function recordStatements(): { log: { sql: string; params: unknown[] }[]; stop(): void } {
  const prepare = Database.prototype.prepare;
  const log: { sql: string; params: unknown[] }[] = [];
  Database.prototype.prepare = function (this: Database.Database, source: string) {
    const statement = prepare.call(this, source);
    for (const method of ['all', 'get'] as const) {
      const original = statement[method].bind(statement) as (...args: unknown[]) => unknown;
      (statement as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
        log.push({ sql: source, params: args });
        return original(...args);
      };
    }
    return statement;
  } as typeof prepare;
  return {
    log,
    stop: () => {
      Database.prototype.prepare = prepare;
    },
  };
}

describe('SqliteRunStore tokens', () => {
  it.each([true, false])(
    'adds an llm step’s tokens to its run on append (group commit %s), once for a repeated append',
    async (grouped) => {
      const store = await openStore(grouped);
      const run = await store.createRun({ configuration: 'c', createdAt: T0 });
      await Promise.all([store.appendStep(run.id, llm(10, 5)), store.appendStep(run.id, toolStep('docs', 'ok', 1, T0))]);
      await store.appendStep(run.id, { ...llm(2, 1.5), sequence: 2 });
      // the same step again at its sequence: stored already, counted already
      await store.appendStep(run.id, { ...llm(2, 1.5), sequence: 2 });
      await store.appendStep(run.id, { ...llm(3, 4), kind: 'context' });
      expect((await store.getRun(run.id))?.tokens).toBe(17);
      expect(await store.runTotals()).toEqual({ runs: 1, tokens: 17, complete: true });
    },
  );

  it('counts an imported run’s tokens from its steps, not from the run it was given', async () => {
    const store = await openStore();
    const id = '1a2b3c4d-0000-4000-8000-000000000001';
    const run = { id, status: 'completed', configuration: 'c', createdAt: T0, stepCount: 3, tokens: 999 } as unknown as StoredRun;
    const step = { runId: id, round: 0, durationMs: 1, createdAt: T0, toolServer: null, toolOutcome: null };
    await store.importRun(run, [
      { ...step, sequence: 0, kind: 'llm', payload: '{"promptTokens":40,"completionTokens":2}' },
      { ...step, sequence: 1, kind: 'llm', payload: 'not json' },
      { ...step, sequence: 2, kind: 'tool', payload: '{"promptTokens":40}' },
    ]);
    expect((await store.getRun(id))?.tokens).toBe(42);
  });
});

describe('SqliteRunStore tool names', () => {
  it('reads a toolName that is no string, and a payload that is no JSON, as no tool', async () => {
    const store = await openStore();
    const id = '1a2b3c4d-0000-4000-8000-000000000002';
    const run = { id, status: 'completed', configuration: 'c', createdAt: T0, stepCount: 3 } as unknown as StoredRun;
    const step = { runId: id, round: 0, durationMs: 1, kind: 'tool', toolServer: 'docs', toolOutcome: 'ok' as const };
    await store.importRun(run, [
      { ...step, sequence: 0, createdAt: T0 + 1, payload: '{"toolName":{"a":1}}' },
      { ...step, sequence: 1, createdAt: T0 + 2, payload: '{"toolName":7}' },
      { ...step, sequence: 2, createdAt: T0 + 3, payload: '{bad' },
    ]);
    const page = await store.listToolCalls({ server: 'docs' });
    expect(page.calls.map((call) => [call.sequence, call.tool])).toEqual([
      [2, null],
      [1, null],
      [0, null],
    ]);
    for (const tool of ['{"a":1}', '7']) expect((await store.listRuns({ tool })).runs).toEqual([]);
  });
});

describe('SqliteRunStore.listToolCalls while a prune deletes a run', () => {
  it('lists none of the calls of a run whose row a prune deleted first (its steps still going)', async () => {
    const store = await openStore();
    const kept = await store.createRun({ configuration: 'c', createdAt: T0 });
    const hidden = await store.createRun({ configuration: 'c', createdAt: T0 + 1 });
    await store.appendStep(kept.id, toolStep('docs', 'ok', 1, T0 + 2));
    await store.appendStep(hidden.id, toolStep('docs', 'ok', 1, T0 + 3));
    await store.appendStep(hidden.id, toolStep('docs', 'failed', 1, T0 + 4));
    // as SqlitePrune hides a run bigger than a batch: its row first, its steps in later transactions
    const db = new Database(folder.file());
    db.prepare('DELETE FROM runs WHERE id = ?').run(hidden.id);
    db.close();
    expect((await store.listToolCalls({ server: 'docs' })).calls.map((call) => call.runId)).toEqual([kept.id]);
    expect((await store.listToolCalls({ server: 'docs', outcome: 'failed' })).calls).toEqual([]);
  });
});

/** The plan of the first statement matching `pick` that a read runs, as `db` would run it. */
function plansOf(
  recorder: ReturnType<typeof recordStatements>,
  db: Database.Database,
): (read: () => Promise<unknown>, pick: RegExp) => Promise<string> {
  return async (read, pick) => {
    recorder.log.length = 0;
    await read();
    const statement = recorder.log.find((s) => pick.test(s.sql));
    if (statement === undefined) throw new Error(`no statement matching ${pick}`);
    return (db.prepare(`EXPLAIN QUERY PLAN ${statement.sql}`).all(...statement.params) as { detail: string }[])
      .map((row) => row.detail)
      .join('\n');
  };
}

describe('SqliteRunStore search plans', () => {
  it('finds a title through the trigram index (page and totals read the matching runs only); one of 1–2 characters without it', async () => {
    const recorder = recordStatements();
    const store = await openStore();
    // 300 runs, 6 of them deploys; made before the index as a file of schema 18 had them
    for (let r = 0; r < 300; r++) {
      await store.createRun({ configuration: 'c', title: r % 50 === 7 ? `Deploy Needle ${r}` : `Nightly run ${r}`, createdAt: T0 + r });
    }
    await store.close();
    const old = new Database(folder.file());
    old.exec(
      'DROP TRIGGER runs_title_insert; DROP TRIGGER runs_title_delete; DROP TRIGGER runs_title_update; DROP TABLE runs_title;' +
        'DELETE FROM schema_version WHERE version >= 19;',
    );
    old.close();
    const migrated = await openStore();
    const deploys = [7, 57, 107, 157, 207, 257].map((r) => `Deploy Needle ${r}`).reverse();
    const db = new Database(folder.file(), { readonly: true });
    const planOf = plansOf(recorder, db);
    try {
      const index = /SCAN runs_title VIRTUAL TABLE INDEX/;
      const list = await planOf(() => migrated.listRuns({ titleContains: 'needle' }), /ORDER BY created_at DESC/);
      expect(list).toMatch(index);
      expect(list).toMatch(/SEARCH runs USING INDEX runs_run_no \(run_no=\?\)/);
      expect(list).not.toMatch(/^SCAN runs( USING|$)/m);
      const totals = await planOf(() => migrated.runTotals({ titleContains: 'needle', upTo: 100 }), /AS runs/);
      expect(totals).toMatch(index);
      expect(totals).not.toMatch(/^SCAN runs( USING|$)/m);
      // the migration indexed the titles there were; the trigger indexes new ones; a deleted run leaves
      expect((await migrated.listRuns({ titleContains: 'NEEDLE' })).runs.map((run) => run.title)).toEqual(deploys);
      const added = await migrated.createRun({ configuration: 'c', title: 'deploy needle late', createdAt: T0 + 1000 });
      expect((await migrated.listRuns({ titleContains: 'eedle l' })).runs.map((run) => run.id)).toEqual([added.id]);
      expect(await migrated.runTotals({ titleContains: 'needle' })).toMatchObject({ runs: 7, complete: true });
      const write = new Database(folder.file());
      write.prepare('DELETE FROM runs WHERE id = ?').run(added.id);
      write.close();
      expect(await migrated.runTotals({ titleContains: 'needle' })).toMatchObject({ runs: 6, complete: true });
      // shorter than a trigram: the same answers, without the index
      const short = await planOf(() => migrated.listRuns({ titleContains: 'y 1' }), /ORDER BY created_at DESC/);
      expect(short).toMatch(index);
      const two = await planOf(() => migrated.listRuns({ titleContains: 'y5' }), /ORDER BY created_at DESC/);
      expect(two).not.toMatch(/runs_title/);
      expect((await migrated.listRuns({ titleContains: '58' })).runs.map((run) => run.title)).toEqual([
        'Nightly run 258',
        'Nightly run 158',
        'Nightly run 58',
      ]);
      // a text in 1 000 titles or more: read newest first without the index (a page fills soon)
      const fill = new Database(folder.file());
      fill.exec(`WITH RECURSIVE n(r) AS (SELECT 1 UNION ALL SELECT r + 1 FROM n WHERE r < 1000)
        INSERT INTO runs (id, status, configuration, created_at, title, run_no)
        SELECT '5ea4c400-0000-4000-8000-' || printf('%012x', r), 'completed', 'c', ${T0} + 10000 + r, 'Common title ' || r, 10000 + r FROM n`);
      fill.close();
      const common = await planOf(() => migrated.listRuns({ titleContains: 'common', limit: 3 }), /ORDER BY created_at DESC/);
      expect(common).not.toMatch(/runs_title/);
      expect((await migrated.listRuns({ titleContains: 'COMMON', limit: 3 })).runs.map((run) => run.title)).toEqual([
        'Common title 1000',
        'Common title 999',
        'Common title 998',
      ]);
      expect(await migrated.runTotals({ titleContains: 'common' })).toMatchObject({ runs: 1000, complete: true });
      expect((await migrated.listRuns({ titleContains: 'title 99' })).runs).toHaveLength(11);
    } finally {
      recorder.stop();
      db.close();
    }
  });

  it('reads the server and tool filters, one server’s calls and an id prefix through their indexes', async () => {
    const recorder = recordStatements();
    const store = await openStore();
    for (let r = 0; r < 120; r++) {
      const run = await store.createRun({
        id: `5ea4c400-0000-4000-8000-${(r + 1).toString(16).padStart(12, '0')}`,
        configuration: 'c',
        createdAt: T0 + r * 1000,
      });
      const server = r % 3 === 0 ? 'docs' : 'mail';
      await store.appendStep(run.id, toolStep(server, r % 10 === 0 ? 'failed' : 'ok', 2, T0 + r * 1000 + 1));
      await store.appendStep(run.id, llm(r, 1, T0 + r * 1000 + 2));
    }
    const db = new Database(folder.file(), { readonly: true });
    const planOf = plansOf(recorder, db);
    try {
      const perRun = /SEARCH steps EXISTS USING (COVERING )?INDEX steps_call_(servers|tools) \([^)]*rowid>\? AND rowid<\?\)/;
      for (const query of [
        { server: 'docs' },
        { tool: 'mcp_docs_search' },
        { server: 'docs', tool: 'mcp_docs_search', status: 'running' as const },
      ]) {
        const list = await planOf(() => store.listRuns({ ...query, limit: 5 }), /FROM runs/);
        expect(list, JSON.stringify(query)).toMatch(perRun);
        expect(list, JSON.stringify(query)).not.toMatch(/SCAN steps|TEMP B-TREE/);
        const totals = await planOf(() => store.runTotals(query), /count\(\*\)/);
        expect(totals, JSON.stringify(query)).toMatch(perRun);
        expect(totals, JSON.stringify(query)).not.toMatch(/SCAN steps/);
        // counted up to a number of runs: the same per-run seeks, stopped after upTo + 1 runs, never sorted
        const upTo = await planOf(() => store.runTotals({ ...query, upTo: 5 }), /FROM \(SELECT tokens FROM runs/);
        expect(upTo, JSON.stringify(query)).toMatch(perRun);
        expect(upTo, JSON.stringify(query)).not.toMatch(/SCAN steps|TEMP B-TREE/);
      }
      expect(await store.runTotals({ server: 'docs' })).toMatchObject({ runs: 40, complete: true });
      expect(await store.runTotals({ server: 'docs', upTo: 39 })).toMatchObject({ runs: 39, complete: false });
      expect(await store.runTotals({ server: 'docs', upTo: 40 })).toMatchObject({ runs: 40, complete: true });

      const window = { since: T0 + 30_000, until: T0 + 100_000 };
      const first = await store.listToolCalls({ server: 'docs', limit: 3, ...window });
      for (const query of [
        { server: 'docs', limit: 3 },
        { server: 'docs', limit: 3, ...window },
        { server: 'docs', limit: 3, cursor: first.nextCursor, ...window },
        { server: 'docs', outcome: 'failed' as const, limit: 3, cursor: first.nextCursor },
      ]) {
        const plan = await planOf(() => store.listToolCalls(query), /call_server = \?/);
        const ranges = plan.match(/SEARCH steps USING INDEX steps_server_calls \(call_server=\? AND call_outcome=\?/g) ?? [];
        expect(ranges.length, JSON.stringify(query)).toBe(query.outcome === undefined ? 3 : 1);
        expect(plan, JSON.stringify(query)).not.toMatch(/SCAN steps|SCAN runs|TEMP B-TREE/);
        expect(plan, JSON.stringify(query)).toMatch(/SEARCH runs EXISTS USING COVERING INDEX runs_run_no \(run_no=\?\)/);
        // a later page starts where the one before ended, not at the top of the window
        if (query.cursor !== undefined) expect(plan, JSON.stringify(query)).toMatch(/\(created_at,run_id,sequence\)<\(\?,\?,\?\)/);
      }
      const pages = [first.calls, (await store.listToolCalls({ server: 'docs', limit: 3, cursor: first.nextCursor, ...window })).calls];
      expect(pages.flat().map((call) => call.createdAt)).toEqual([99_001, 96_001, 93_001, 90_001, 87_001, 84_001].map((ms) => T0 + ms));

      const prefix = await planOf(() => store.findRunIdsByPrefix('5EA4C400-0000-4000-8000-00000000006'), /FROM runs WHERE id >=/);
      expect(prefix).toMatch(/SEARCH runs USING COVERING INDEX sqlite_autoindex_runs_1 \(id>\? AND id<\?\)/);
      expect(await store.findRunIdsByPrefix('5EA4C400-0000-4000-8000-00000000006')).toEqual(
        Array.from({ length: 10 }, (_, k) => `5ea4c400-0000-4000-8000-00000000006${k.toString(16)}`),
      );
    } finally {
      recorder.stop();
      db.close();
    }
  });
});
