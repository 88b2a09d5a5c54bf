// The per-server-and-tool rollup (the sibling of store-postgres's PostgresToolRollup): what a move
// of pending calls, an import and the schema 22 backfill add to it, what a prune takes out of it,
// and the read of ToolTotalsRunStore.toolCallTotals over any window.
import type { ToolOutcome } from '@runledger/core';
import {
  isAnsweredCall,
  type ToolCallTotals,
  type ToolCallTotalsQuery,
  TOOL_DURATION_BUCKET_COUNT,
  toolDurationBucket,
  UNKNOWN_FAILURE_CAUSE,
} from '@runledger/trace';
import {
  checkToolCallTotalsQuery,
  type NormalizedToolCallTotalsQuery,
  planRollupWindow,
  ROLLUP_LEVEL_SIZES,
  rollupBucketSpan,
  rollupBucketStart,
  ToolCallTotalsFold,
} from '@runledger/trace/store';
import type Database from 'better-sqlite3';
import { CALL_TOOL_NAME } from '../sqliteRows.js';
import type { SqliteAccess } from '../SqliteAccess.js';

/** An ended call as the tool rollup reads it: server, outcome, duration, time, cause, tool name. */
export type ToolCallRow = [string, ToolOutcome, number, number, string | null, string | null];

/** One past the latest time a store keeps (8.64e15, RunStoreInput's time rule): an open window holds every step. */
const FAR_FUTURE = 8.64e15 + 1;
const BUCKETS = Array.from({ length: TOOL_DURATION_BUCKET_COUNT }, (_, k) => `b${k}`);
const KEY = 'level = ? AND bucket_start = ? AND server = ? AND tool = ?';
/** The columns of an ended call of a step row, its tool name last. */
const CALL_COLUMNS = `call_server, call_outcome, duration_ms, created_at, call_cause, ${CALL_TOOL_NAME}`;

/**
 * The rollup's key of a tool name: `-` for calls without one, `+` and the name otherwise (a key
 * column cannot be null, and any string, the empty one too, is a tool name).
 */
export const toolKeyOf = (tool: string | null): string => (tool === null ? '-' : `+${tool}`);
const toolOfKey = (key: string): string | null => (key === '-' ? null : key.slice(1));

/** The `CREATE TABLE`s of the rollup (schema version 22). */
export const TOOL_ROLLUP_TABLES = `
CREATE TABLE tool_rollup (
  level INTEGER NOT NULL,
  bucket_start INTEGER NOT NULL,
  server TEXT NOT NULL,
  tool TEXT NOT NULL,
  ok INTEGER NOT NULL DEFAULT 0,
  failed INTEGER NOT NULL DEFAULT 0,
  cancelled INTEGER NOT NULL DEFAULT 0,
  answered_ms REAL NOT NULL DEFAULT 0,
  ${BUCKETS.map((b) => `${b} INTEGER NOT NULL DEFAULT 0`).join(',\n  ')},
  PRIMARY KEY (level, bucket_start, server, tool)
) WITHOUT ROWID;
CREATE TABLE tool_causes (
  level INTEGER NOT NULL,
  bucket_start INTEGER NOT NULL,
  server TEXT NOT NULL,
  tool TEXT NOT NULL,
  cause TEXT NOT NULL,
  calls INTEGER NOT NULL,
  PRIMARY KEY (level, bucket_start, server, tool, cause)
) WITHOUT ROWID;`;

/** What some calls add to one row (level, bucket, server, tool key). */
interface Delta {
  readonly key: [number, number, string, string];
  ok: number;
  failed: number;
  cancelled: number;
  answeredMs: number;
  readonly buckets: number[];
  readonly causes: Map<string, number>;
}

/** Sums calls per row of the rollup at every level. */
class ToolDeltas {
  readonly #deltas = new Map<string, Delta>();

  /** Adds a call to its row at every level, counted as `toolCallTotals` counts a listed call (trace's isAnsweredCall). */
  add([server, outcome, durationMs, createdAt, cause, tool]: ToolCallRow): void {
    const failedCause = outcome === 'failed' ? cause : null;
    const bucket = isAnsweredCall(outcome, failedCause as Parameters<typeof isAnsweredCall>[1]) ? toolDurationBucket(durationMs) : -1;
    const toolKey = toolKeyOf(tool);
    for (let level = 0; level < ROLLUP_LEVEL_SIZES.length; level++) {
      const start = rollupBucketStart(level, createdAt);
      const id = `${level}\u0000${start}\u0000${server}\u0000${toolKey}`;
      let d = this.#deltas.get(id);
      if (d === undefined) {
        d = {
          key: [level, start, server, toolKey],
          ok: 0,
          failed: 0,
          cancelled: 0,
          answeredMs: 0,
          buckets: new Array<number>(TOOL_DURATION_BUCKET_COUNT).fill(0),
          causes: new Map(),
        };
        this.#deltas.set(id, d);
      }
      d[outcome] += 1;
      if (outcome === 'failed')
        d.causes.set(failedCause ?? UNKNOWN_FAILURE_CAUSE, (d.causes.get(failedCause ?? UNKNOWN_FAILURE_CAUSE) ?? 0) + 1);
      if (bucket >= 0) {
        d.buckets[bucket] = (d.buckets[bucket] as number) + 1;
        d.answeredMs += durationMs;
      }
    }
  }

  /** Every row's sums in key order, and forgets them. */
  take(): Delta[] {
    const deltas = [...this.#deltas.values()].sort((a, b) => a.key[0] - b.key[0] || a.key[1] - b.key[1]);
    this.#deltas.clear();
    return deltas;
  }

  clear(): void {
    this.#deltas.clear();
  }
}

/**
 * The per-server-and-tool rollup (`tool_rollup` and `tool_causes`, schema version 22): per level,
 * bucket, server and tool, the calls by outcome, the answered calls per Prometheus bucket of
 * `TOOL_DURATION_BUCKETS_SECONDS` and their summed duration, the failed calls by cause.
 *
 * @remarks
 * Written beside the health rollup, from the same pending calls (SqliteHealthPending moves them
 * into both in one transaction, `health_pending.tool` holding the tool name), and kept equal to
 * the remaining steps by a prune as the health rollup is ({@link SqliteToolRollup.collect},
 * {@link SqliteToolRollup.subtract}: a row left without calls goes, with its causes). A read
 * covers a window as a health read does: whole buckets by level, the pending calls in their span,
 * the steps of the sub-minute edges, all in the caller's one read transaction. The counts are
 * exact at any window: nothing is estimated.
 *
 * @internal
 */
export class SqliteToolRollup {
  readonly #upsert: Database.Statement;
  readonly #upsertCause: Database.Statement;
  readonly #take: Database.Statement;
  readonly #drop: Database.Statement;
  readonly #dropCauses: Database.Statement;
  readonly #takeCause: Database.Statement;
  readonly #dropEmptyCauses: Database.Statement;
  readonly #range: Database.Statement;
  readonly #causes: Database.Statement;
  readonly #pending: Database.Statement;
  readonly #steps: Database.Statement;
  /** What the calls a prune deletes took out, in its transaction. */
  readonly #taken = new ToolDeltas();

  constructor(db: Database.Database) {
    const sums = ['ok', 'failed', 'cancelled', 'answered_ms', ...BUCKETS];
    this.#upsert = db.prepare(`
INSERT INTO tool_rollup (level, bucket_start, server, tool, ${sums.join(', ')}) VALUES (${['?', '?', '?', '?', ...sums.map(() => '?')].join(', ')})
ON CONFLICT (level, bucket_start, server, tool) DO UPDATE SET ${sums.map((c) => `${c} = ${c} + excluded.${c}`).join(', ')}`);
    this.#upsertCause = db.prepare(`
INSERT INTO tool_causes (level, bucket_start, server, tool, cause, calls) VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT (level, bucket_start, server, tool, cause) DO UPDATE SET calls = calls + excluded.calls`);
    this.#take = db
      .prepare(`UPDATE tool_rollup SET ${sums.map((c) => `${c} = ${c} - ?`).join(', ')} WHERE ${KEY} RETURNING ok + failed + cancelled`)
      .pluck();
    this.#drop = db.prepare(`DELETE FROM tool_rollup WHERE ${KEY}`);
    this.#dropCauses = db.prepare(`DELETE FROM tool_causes WHERE ${KEY}`);
    this.#takeCause = db.prepare(`UPDATE tool_causes SET calls = calls - ? WHERE ${KEY} AND cause = ?`);
    this.#dropEmptyCauses = db.prepare(`DELETE FROM tool_causes WHERE ${KEY} AND calls <= 0`);
    this.#range = db
      .prepare(
        `SELECT server, tool, sum(ok), sum(failed), sum(cancelled), sum(answered_ms), ${BUCKETS.map((b) => `sum(${b})`).join(', ')}
         FROM tool_rollup WHERE level = ? AND bucket_start >= ? AND bucket_start < ? GROUP BY server, tool`,
      )
      .raw();
    this.#causes = db
      .prepare(
        'SELECT server, tool, cause, sum(calls) FROM tool_causes WHERE level = ? AND bucket_start >= ? AND bucket_start < ? GROUP BY server, tool, cause',
      )
      .raw();
    this.#pending = db
      .prepare('SELECT server, outcome, duration_ms, created_at, cause, tool FROM health_pending WHERE created_at >= ? AND created_at < ?')
      .raw();
    this.#steps = db
      .prepare(`SELECT ${CALL_COLUMNS} FROM steps WHERE created_at >= ? AND created_at < ? AND call_server IS NOT NULL`)
      .raw();
  }

  /** Adds ended calls to the rollup, each row upserted once; inside a write transaction. */
  add(calls: Iterable<ToolCallRow>): void {
    const deltas = new ToolDeltas();
    for (const call of calls) deltas.add(call);
    for (const d of deltas.take()) {
      this.#upsert.run(...d.key, d.ok, d.failed, d.cancelled, d.answeredMs, ...d.buckets);
      for (const [cause, n] of d.causes) this.#upsertCause.run(...d.key, cause, n);
    }
  }

  /** Notes what a call added, before a prune deletes it (SqlitePruneRollup reads the deleted calls for both rollups). */
  collect(call: ToolCallRow): void {
    this.#taken.add(call);
  }

  /** Takes what {@link SqliteToolRollup.collect} noted out of the rollup; after the deletes, in their transaction. */
  subtract(): void {
    for (const d of this.#taken.take()) {
      const left = this.#take.get(d.ok, d.failed, d.cancelled, d.answeredMs, ...d.buckets, ...d.key) as number | undefined;
      if (left === undefined) continue;
      if (left <= 0) {
        this.#drop.run(...d.key);
        if (d.failed > 0) this.#dropCauses.run(...d.key);
        continue;
      }
      for (const [cause, n] of d.causes) this.#takeCause.run(n, ...d.key, cause);
      if (d.causes.size > 0) this.#dropEmptyCauses.run(...d.key);
    }
  }

  /** Forgets what was collected (the prune's transaction rolled back). */
  reset(): void {
    this.#taken.clear();
  }

  /** `ToolTotalsRunStore.toolCallTotals`: the query checked, {@link SqliteToolRollup.read} in one read transaction of the store's read path. */
  async totals(access: SqliteAccess, query?: ToolCallTotalsQuery): Promise<readonly ToolCallTotals[]> {
    const q = checkToolCallTotalsQuery(query);
    return access.read(() => access.db.transaction(() => this.read(q)).deferred());
  }

  /** The totals of a window; inside one read transaction (the rollup and the pending calls one snapshot). */
  read(q: NormalizedToolCallTotalsQuery): ToolCallTotals[] {
    const plan = planRollupWindow(Math.max(0, q.since ?? 0), Math.min(FAR_FUTURE, q.until ?? FAR_FUTURE));
    const fold = new ToolCallTotalsFold();
    for (const { level, from, to } of plan.buckets) {
      const range = [level, from ?? 0, to ?? FAR_FUTURE] as const;
      let failed = false;
      for (const row of this.#range.iterate(...range) as Iterable<unknown[]>) {
        const [server, key, ok, fails, cancelled, answeredMs] = row as [string, string, number, number, number, number];
        fold.addSums(server, toolOfKey(key), { ok, failed: fails, cancelled, answeredMs, answeredBuckets: row.slice(6) as number[] });
        failed ||= fails > 0;
      }
      if (!failed) continue;
      for (const [server, key, cause, n] of this.#causes.iterate(...range) as Iterable<[string, string, string, number]>) {
        fold.addCause(server, toolOfKey(key), cause, n);
      }
    }
    const span = rollupBucketSpan(plan);
    // a pending call counts where its moved sums would: in the span the plan's buckets cover
    const ranges = [...(span === null ? [] : [[this.#pending, span] as const]), ...plan.raw.map((raw) => [this.#steps, raw] as const)];
    for (const [statement, { from, to }] of ranges) {
      for (const [server, outcome, durationMs, , cause, tool] of statement.iterate(from ?? 0, to ?? FAR_FUTURE) as Iterable<ToolCallRow>) {
        fold.addCall(server, tool, outcome, cause, durationMs);
      }
    }
    return fold.totals();
  }
}
