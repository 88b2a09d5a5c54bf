import { copyFileSync } from 'node:fs';
import type { ToolOutcome } from '@runledger/core';
import type { ServerHealthQuery } from '@runledger/trace';
import { toolCallOf } from '@runledger/trace/store';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HISTOGRAM_BUCKETS_V4 } from './SqliteMigrations.js';
import { SqliteRunStore } from '../SqliteRunStore.js';
import { setExactHealthMaxCalls } from '../SqliteRunStoreInternals.js';
import { tempFolder } from '../testing/tempDatabase.js';

const T = 1_767_225_600_000 + 7 * 60_000 + 13_000;
const DAY = 86_400_000;
/** The rollup of versions 4–8: a minute, an hour, a day and 32 days; 80 buckets at a third of an octave. */
const OLD_LEVELS = [60_000, 3_600_000, DAY, 32 * DAY];

let folder: ReturnType<typeof tempFolder>;
beforeEach(() => {
  folder = tempFolder();
});
afterEach(() => folder.remove());

/** The histogram bucket version 8 wrote (a third of an octave from 1 ms, the last one open). */
function oldBucket(durationMs: number): number {
  if (!(durationMs >= 1)) return 0;
  return Math.min(HISTOGRAM_BUCKETS_V4 - 1, Math.floor(Math.log2(durationMs) * 3) + 1);
}

/** Turns a store file back into schema version 8, its rollup written in the old layout from its steps (as version 8's writer did). */
function downgradeToVersion8(path: string): void {
  const db = new Database(path);
  const h = Array.from({ length: HISTOGRAM_BUCKETS_V4 }, (_, k) => `h${k}`);
  db.exec(`
DROP TABLE health_rollup;
DROP TABLE health_causes;
CREATE TABLE health_rollup (
  server TEXT NOT NULL, level INTEGER NOT NULL, bucket_start INTEGER NOT NULL,
  ok INTEGER NOT NULL DEFAULT 0, failed INTEGER NOT NULL DEFAULT 0, cancelled INTEGER NOT NULL DEFAULT 0,
  not_counted INTEGER NOT NULL DEFAULT 0, answered INTEGER NOT NULL DEFAULT 0, last_failure_at INTEGER, min_ms REAL, max_ms REAL,
  ${h.map((c) => `${c} INTEGER NOT NULL DEFAULT 0`).join(', ')},
  PRIMARY KEY (server, level, bucket_start)
) WITHOUT ROWID;
CREATE TABLE health_causes (
  server TEXT NOT NULL, level INTEGER NOT NULL, bucket_start INTEGER NOT NULL, cause TEXT NOT NULL, calls INTEGER NOT NULL,
  PRIMARY KEY (server, level, bucket_start, cause)
) WITHOUT ROWID;
CREATE TABLE health_servers (server TEXT PRIMARY KEY NOT NULL, first_day INTEGER NOT NULL, last_day INTEGER NOT NULL) WITHOUT ROWID;
DROP INDEX runs_failed_created;
DROP INDEX runs_cancelled_created;
DROP TABLE health_pending;
DROP TABLE open_calls;
DELETE FROM schema_version WHERE version >= 9;`);
  const steps = db
    .prepare('SELECT call_server, call_outcome, duration_ms, created_at, call_cause FROM steps WHERE call_server IS NOT NULL')
    .raw()
    .all() as [string, ToolOutcome, number, number, string | null][];
  const rollup = db.prepare(
    `INSERT INTO health_rollup (server, level, bucket_start, ok, failed, cancelled, not_counted, answered, last_failure_at, min_ms, max_ms, h0)
     VALUES (?, ?, ?, 0, 0, 0, 0, 0, NULL, NULL, NULL, 0) ON CONFLICT DO NOTHING`,
  );
  const cause = db.prepare(
    'INSERT INTO health_causes VALUES (?, ?, ?, ?, 1) ON CONFLICT (server, level, bucket_start, cause) DO UPDATE SET calls = calls + 1',
  );
  const days = db.prepare(
    `INSERT INTO health_servers VALUES (?, ?, ?) ON CONFLICT (server) DO UPDATE SET
       first_day = min(first_day, excluded.first_day), last_day = max(last_day, excluded.last_day)`,
  );
  for (const [server, outcome, durationMs, createdAt, failureCause] of steps) {
    const call = toolCallOf({ kind: 'tool', payload: null, toolServer: server, toolOutcome: outcome, toolFailureCause: failureCause })!;
    const day = Math.floor(createdAt / DAY) * DAY;
    days.run(server, day, day);
    OLD_LEVELS.forEach((size, level) => {
      const start = Math.floor(createdAt / size) * size;
      rollup.run(server, level, start);
      const failed = outcome === 'failed' ? 1 : 0;
      db.prepare(
        `UPDATE health_rollup SET ok = ok + ?, failed = failed + ?, cancelled = cancelled + ?, not_counted = not_counted + ?,
           answered = answered + ?, last_failure_at = CASE WHEN ? THEN max(coalesce(last_failure_at, 0), ?) ELSE last_failure_at END
           ${call.answered ? `, min_ms = min(coalesce(min_ms, ?1), ?1), max_ms = max(coalesce(max_ms, ?1), ?1), h${oldBucket(durationMs)} = h${oldBucket(durationMs)} + 1` : ''}
         WHERE server = ? AND level = ? AND bucket_start = ?`.replace(/\?1/g, String(durationMs)),
      ).run(
        outcome === 'ok' ? 1 : 0,
        failed,
        outcome === 'cancelled' ? 1 : 0,
        failed && !call.counted ? 1 : 0,
        call.answered ? 1 : 0,
        failed && call.counted ? 1 : 0,
        createdAt,
        server,
        level,
        start,
      );
      if (failed) cause.run(server, level, start, call.cause ?? 'unknown');
    });
  }
  db.close();
}

describe('migration 9: the health rollup rebuilt in the shared layout', () => {
  it('reads the same health, percentiles included, as a store written in the new layout', async () => {
    const fresh = folder.file('fresh.db');
    // exactHealthMaxCalls 0: every health read comes from the rollup, never from the steps
    const store = await SqliteRunStore.open({ path: fresh });
    setExactHealthMaxCalls(store, 0);
    const outcomes: ToolOutcome[] = ['ok', 'ok', 'ok', 'failed', 'cancelled'];
    const causes = [undefined, 'server_error', 'invalid_arguments'];
    for (let r = 0; r < 6; r++) {
      const run = await store.createRun({ configuration: 'c', createdAt: T });
      for (let i = 0; i < 70; i++) {
        const n = r * 70 + i;
        const outcome = outcomes[n % outcomes.length]!;
        const toolFailureCause = outcome === 'failed' ? causes[n % causes.length] : undefined;
        await store.appendStep(run.id, {
          kind: 'tool',
          round: i,
          durationMs: Math.round(0.01 * 1.07 ** ((n * 37) % 251) * 1000) / 1000,
          createdAt: T + n * 997_003,
          payload: {
            kind: 'tool',
            toolServer: `s${n % 3}`,
            toolOutcome: outcome,
            ...(toolFailureCause === undefined ? {} : { toolFailureCause }),
          },
          toolServer: `s${n % 3}`,
          toolOutcome: outcome,
        });
      }
    }
    const windows: ServerHealthQuery[] = [
      {},
      { since: T + 90_000, until: T + 2 * DAY + 7_777_777 },
      { since: T + 3 * DAY + 1 },
      { until: T + 5 * 60_000 },
    ];
    const want = [];
    for (const window of windows) want.push(await store.serverHealth(window));
    await store.close();

    const old = folder.file('old.db');
    copyFileSync(fresh, old);
    downgradeToVersion8(old);
    const before = new Database(old, { readonly: true });
    expect(before.prepare('SELECT max(version) FROM schema_version').pluck().get()).toBe(8);
    expect(before.prepare('SELECT count(*) FROM pragma_table_info(?)').pluck().get('health_rollup')).toBe(11 + HISTOGRAM_BUCKETS_V4);
    before.close();

    const migrated = await SqliteRunStore.open({ path: old });

    setExactHealthMaxCalls(migrated, 0);
    const got = [];
    for (const window of windows) got.push(await migrated.serverHealth(window));
    await migrated.close();
    expect(got).toEqual(want);
    expect(want[0]!.map((h) => h.calls)).toEqual([140, 140, 140]);
    expect(want[0]!.every((h) => h.p50DurationMs !== null && h.p95DurationMs !== null)).toBe(true);
    const after = new Database(old, { readonly: true });
    expect(after.prepare('SELECT max(version) FROM schema_version').pluck().get()).toBe(SqliteRunStore.SCHEMA_VERSION);
    expect(after.prepare('SELECT count(*) FROM pragma_table_info(?)').pluck().get('health_rollup')).toBe(11 + 114);
    after.close();
  });
});
