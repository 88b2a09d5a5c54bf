import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteRunStore } from './SqliteRunStore.js';
import { tempFolder } from './testing/tempDatabase.js';
import type { RunQuery, StoredRun } from '@runledger/trace';

let folder: ReturnType<typeof tempFolder>;
beforeEach(() => {
  folder = tempFolder();
});
afterEach(() => {
  folder.remove();
});

/** The runs-list statement listRuns prepares, caught on its way to SQLite. */
async function listRunsSql(run: () => Promise<unknown>): Promise<string> {
  const original = Database.prototype.prepare;
  let caught: string | undefined;
  Database.prototype.prepare = function (this: Database.Database, source: string) {
    if (source.includes('ORDER BY created_at DESC, id DESC')) caught = source;
    return original.call(this, source);
  } as typeof original;
  try {
    await run();
  } finally {
    Database.prototype.prepare = original;
  }
  if (caught === undefined) throw new Error('listRuns prepared no statement');
  return caught;
}

describe('SqliteRunStore.listRuns at fleet size', () => {
  it('reads the status and has-failed / has-cancelled filters through an index in page order', async () => {
    const store = await SqliteRunStore.open({ path: folder.file() });
    const T0 = Date.UTC(2026, 0, 1);
    for (let r = 0; r < 300; r++) {
      const run: StoredRun = {
        id: `f1ee7000-0000-4000-8000-${(r + 1).toString(16).padStart(12, '0')}`,
        status: r % 50 === 0 ? 'interrupted' : 'completed',
        configuration: 'c',
        actor: null,
        createdAt: T0 + r * 1000,
        startedAt: T0 + r * 1000,
        finishedAt: T0 + r * 1000 + 500,
        terminationReason: null,
        cancelRequestedAt: null,
        heartbeatAt: null,
        stepCount: 0,
        outcomeCounts: { ok: 0, failed: 0, cancelled: 0 },
      };
      const outcome = r % 30 === 0 ? 'cancelled' : r % 7 === 0 ? 'failed' : 'ok';
      const payload = {
        kind: 'tool',
        toolName: 'mcp_docs_search',
        toolServer: 'docs',
        toolIsError: outcome !== 'ok',
        toolOutcome: outcome,
      };
      const step = { runId: run.id, sequence: 0, kind: 'tool', round: 1, durationMs: 5, createdAt: run.createdAt + 1 };
      await store.importRun(run, [{ ...step, payload: JSON.stringify(payload), toolServer: 'docs', toolOutcome: outcome }]);
    }
    const db = new Database(folder.file(), { readonly: true });
    try {
      const cases: [RunQuery, RegExp][] = [
        [{ status: 'interrupted' }, /runs_status_created/],
        [{ hasOutcome: 'cancelled' }, /runs_cancelled_created/],
        [{ hasOutcome: 'failed' }, /runs_failed_created/],
      ];
      for (const [query, index] of cases) {
        const sql = await listRunsSql(() => store.listRuns({ ...query, limit: 3 }));
        const params = [...(query.status === undefined ? [] : [query.status]), 4];
        const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((row) => row.detail).join('\n');
        expect(plan, JSON.stringify(query)).toMatch(index);
        expect(plan, JSON.stringify(query)).not.toMatch(/TEMP B-TREE|runs_created/);
        const page = await store.listRuns({ ...query, limit: 3 });
        expect(page.runs.length).toBe(3);
        if (query.hasOutcome !== undefined) expect(page.runs.every((run) => run.outcomeCounts[query.hasOutcome!] > 0)).toBe(true);
      }
    } finally {
      db.close();
      await store.close();
    }
  });
});
