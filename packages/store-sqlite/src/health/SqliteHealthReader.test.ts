import type { ServerHealth, ServerHealthQuery, StoredStep } from '@runledger/trace';
import { serverHealth } from '@runledger/trace/store';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteRunStore } from '../SqliteRunStore.js';
import { setExactHealthMaxCalls, setRollPendingAt } from '../SqliteRunStoreInternals.js';
import { tempFolder, toolStep } from '../testing/tempDatabase.js';

const T0 = Date.UTC(2026, 0, 1);
const DAY = 86_400_000;

let folder: ReturnType<typeof tempFolder>;
beforeEach(() => {
  folder = tempFolder();
});
afterEach(() => folder.remove());

function rng(seed: number): () => number {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
}

function expectClose(actual: ServerHealth, exact: ServerHealth): void {
  const { p50DurationMs, p95DurationMs, ...counts } = actual;
  const { p50DurationMs: e50, p95DurationMs: e95, ...exactCounts } = exact;
  expect(counts).toEqual(exactCounts);
  for (const [got, want] of [
    [p50DurationMs, e50],
    [p95DurationMs, e95],
  ] as const) {
    if (want === null) expect(got).toBeNull();
    else if (want < 1) expect(Math.abs(got! - want)).toBeLessThanOrEqual(0.5);
    else expect(Math.abs(got! - want) / want).toBeLessThanOrEqual(0.1226);
  }
}

describe('server health from the rollup', () => {
  // rolled after every call, in batches of 7 (some in the rollup, the rest pending), or all pending
  it.each([1, 7, 100_000])(
    'matches the exact counts, last failure and flaky flag over random windows; percentiles within the histogram bound (rolled every %i calls)',
    async (rollPendingAt) => {
      // exactHealthMaxCalls 0 forces the rollup path for every window
      const rollup = await SqliteRunStore.open({ path: folder.file() });
      setExactHealthMaxCalls(rollup, 0);
      setRollPendingAt(rollup, rollPendingAt);
      const exact = await SqliteRunStore.open({ path: folder.file() });
      const random = rng(7);
      const runs = await Promise.all([0, 1, 2].map(() => rollup.createRun({ configuration: 'c', createdAt: T0 })));
      const steps: ReturnType<typeof toolStep>[] = [];
      for (let i = 0; i < 600; i++) {
        const server = `s${Math.floor(random() * 4)}`;
        const r = random();
        const outcome = r < 0.7 ? 'ok' : r < 0.9 ? 'failed' : 'cancelled';
        const duration = Math.round(random() ** 4 * 20_000 * 100) / 100;
        // clustered times over three days, many in the same minute
        const createdAt = T0 + Math.floor(random() * 3) * DAY + Math.floor(random() * 40) * 3_600_000 + Math.floor(random() * 120_000);
        // failed calls of every kind: answered (server error, invalid arguments, tool not found), unanswered, not sent, unknown
        const causes = [undefined, 'server_error', 'invalid_arguments', 'tool_not_found', 'mcp_timeout', 'unknown_tool'] as const;
        const cause = outcome === 'failed' ? causes[Math.floor(random() * causes.length)] : undefined;
        steps.push(toolStep(server, outcome, duration, createdAt, 0, cause));
      }
      for (const [i, step] of steps.entries()) await rollup.appendStep(runs[i % 3]!.id, step);
      await rollup.getRun(runs[0]!.id); // after the last roll the appends queued
      const file = new Database(rollup.path, { readonly: true });
      const pending = file.prepare('SELECT count(*) FROM health_pending').pluck().get() as number;
      const rolled = file.prepare('SELECT sum(ok + failed + cancelled) FROM health_rollup WHERE level = 0').pluck().get() as number | null;
      file.close();
      expect(pending + (rolled ?? 0)).toBe(600);
      if (rollPendingAt === 100_000) expect(pending).toBe(600);
      else expect(pending).toBeLessThan(rollPendingAt + 2);
      const rows: StoredStep[] = [];
      for (const run of runs) rows.push(...(await rollup.readSteps(run.id)));
      const random2 = rng(99);
      const windows: ServerHealthQuery[] = [
        {},
        { since: T0 },
        { until: T0 + 2 * DAY },
        { flaky: { failureRate: 0.15, minAnsweredCalls: 3 } },
      ];
      for (let i = 0; i < 40; i++) {
        const since = T0 + Math.floor(random2() * 4 * DAY);
        windows.push({ since, until: since + Math.floor(random2() * 2 * DAY) });
      }
      for (const query of windows) {
        const want = serverHealth(rows, query);
        const got = await rollup.serverHealth(query);
        expect(got.map((h) => h.server)).toEqual(want.map((h) => h.server));
        got.forEach((health, i) => expectClose(health, want[i]!));
        expect(await exact.serverHealth(query)).toEqual(want);
      }
      await rollup.close();
      await exact.close();
    },
  );

  it('counts causes only of servers whose rollup rows in the range have failed calls, whatever other cause rows say', async () => {
    const path = folder.file('causes.db');
    const store = await SqliteRunStore.open({ path });
    setExactHealthMaxCalls(store, 0);
    const run = await store.createRun({ configuration: 'c', createdAt: T0 });
    await store.appendStep(run.id, toolStep('failing', 'failed', 5, T0 + 1_000, 0, 'server_error'));
    await store.appendStep(run.id, toolStep('fine', 'ok', 5, T0 + 2_000));
    await store.close(); // moves the pending calls into the rollup
    // cause rows no failed call stands behind (as an older prune could leave): one of a server
    // without failures in the range, one of a server with no rollup row at all
    const db = new Database(path);
    db.exec(`INSERT INTO health_causes (level, bucket_start, server, cause, calls) VALUES
      (0, ${T0}, 'fine', 'mcp_timeout', 1), (0, ${T0}, 'ghost', 'mcp_timeout', 2)`);
    db.close();
    const reopened = await SqliteRunStore.open({ path });
    setExactHealthMaxCalls(reopened, 0);
    const health = await reopened.serverHealth({ since: T0, until: T0 + 60_000 });
    await reopened.close();
    expect(health.map((h) => [h.server, h.calls, h.failureCauses])).toEqual([
      ['failing', 1, [{ cause: 'server_error', calls: 1 }]],
      ['fine', 1, []],
    ]);
  });

  it('answers the servers called in the window only, their calls appended and imported in any order', async () => {
    const path = folder.file('appended.db');
    const store = await SqliteRunStore.open({ path });
    setExactHealthMaxCalls(store, 0);
    const run = await store.createRun({ configuration: 'c', createdAt: T0 });
    await store.appendStep(run.id, toolStep('late', 'ok', 5, T0 + 10 * DAY + 5_000));
    await store.appendStep(run.id, toolStep('late', 'ok', 5, T0 + 3 * DAY + 7_000)); // older than its first day
    await store.appendStep(run.id, toolStep('late', 'failed', 5, T0 + 12 * DAY + 9_000));
    await store.appendStep(run.id, toolStep('late', 'ok', 5, T0 + 11 * DAY)); // inside its span: no write
    await store.appendStep(run.id, toolStep('gone', 'ok', 5, T0 + 1_000));
    await store.appendStep(run.id, toolStep('gone', 'ok', 5, T0 + 20 * DAY + 1_000));
    const imported = (await store.readSteps(run.id)).map((step) => ({ ...step, runId: '00000000-0000-4000-8000-000000000001' }));
    const other = await SqliteRunStore.open({ path: folder.file('imported.db') });
    setExactHealthMaxCalls(other, 0);
    await other.importRun({ ...(await store.getRun(run.id))!, id: '00000000-0000-4000-8000-000000000001' }, imported);
    // the health read counts the calls still pending for the rollup; they move in at close here
    expect((await other.serverHealth({ since: T0 + 3 * DAY, until: T0 + 13 * DAY })).map((h) => [h.server, h.calls])).toEqual([
      ['late', 4],
    ]);
    await store.close();
    await other.close();
    // 'gone' spans the window below but was not called in it: it is not in the answer
    const reopened = await SqliteRunStore.open({ path: folder.file('imported.db') });
    setExactHealthMaxCalls(reopened, 0);
    expect((await reopened.serverHealth({ since: T0 + 3 * DAY, until: T0 + 13 * DAY })).map((h) => [h.server, h.calls])).toEqual([
      ['late', 4],
    ]);
    expect((await reopened.serverHealth({ since: T0 + 13 * DAY })).map((h) => [h.server, h.calls])).toEqual([['gone', 1]]);
    expect((await reopened.serverHealth({ until: T0 + DAY })).map((h) => [h.server, h.calls])).toEqual([['gone', 1]]);
    await reopened.close();
  });
});
