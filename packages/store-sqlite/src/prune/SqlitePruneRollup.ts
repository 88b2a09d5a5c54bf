import type Database from 'better-sqlite3';
import { DURATION_HISTOGRAM_SLOTS, ROLLUP_LEVEL_SIZES } from '@runledger/trace/store';
import { type BucketDelta, callOf, type CallRow, RollupDeltas } from '../health/SqliteRollupDeltas.js';
import { CALL_TOOL_NAME, STEP_ROWID } from '../sqliteRows.js';
import { SqliteToolRollup, type ToolCallRow } from '../toolRollup/SqliteToolRollup.js';

const MINUTE_LEVEL = 0;
const KEY = 'server = @server AND level = @level AND bucket_start = @bucket';

/** A bucket's row after its counts were taken down. */
interface RemainingRow {
  readonly answered: number;
  readonly minMs: number | null;
  readonly maxMs: number | null;
  readonly lastFailure: number | null;
}

/** The extremes a bucket's remaining calls have. */
interface Extremes {
  min: number | null;
  max: number | null;
  lastFailure: number | null;
}

/**
 * Keeps the server-health rollup equal to what the remaining steps say while a prune deletes
 * steps: what the deleted calls added to each bucket is taken out of it again, in the prune's
 * transaction.
 *
 * @remarks
 * {@link SqlitePruneRollup.collect} reads the calls among the steps about to go (before their
 * delete) and sums, per server, level and bucket, what they added (counts, histogram slots,
 * causes); after the deletes {@link SqlitePruneRollup.subtract} takes those sums out of each
 * bucket, finest level first: a bucket left with no call is deleted with its causes (one
 * statement when the deleted calls were all it held), a cause left with no call is deleted, and
 * only where a deleted call held the bucket's shortest or longest latency or its last failure are
 * those three made again — a minute from the steps left in it (the steps_calls index, one minute
 * of one server), a coarser bucket from its server's rows of the level just below (one key lookup
 * for each of its 4 to 32 finer buckets). So the
 * rollup is what appending the remaining steps alone would have made, and a prune costs a few
 * statements per touched bucket, the same however dense the data. The rollup is keyed time first
 * (`(level, bucket_start, server)`), so the buckets one transaction touches — consecutive in time,
 * of many servers — share pages at each level.
 *
 * @internal
 */
export class SqlitePruneRollup {
  readonly #deletedCalls: Database.Statement;
  readonly #remainingCalls: Database.Statement;
  readonly #deleteIfAll: Database.Statement;
  readonly #deleteCauses: Database.Statement;
  readonly #db: Database.Database;
  /** Takes the counts and one histogram slot's calls out of a bucket (index: the slot; last: none), made on first use. */
  readonly #takeCounts: (Database.Statement | undefined)[] = [];
  /** Takes one histogram slot's calls out of a bucket, made on first use. */
  readonly #takeSlot: (Database.Statement | undefined)[] = [];
  readonly #takeCause: Database.Statement;
  readonly #dropEmptyCauses: Database.Statement;
  readonly #finerExtremes: Database.Statement;
  readonly #setExtremes: Database.Statement;
  /** What the deleted calls took out of each bucket, in this transaction. */
  readonly #deltas = new RollupDeltas();
  /** The per-tool rollup, kept equal to the remaining steps alike. */
  readonly #tools: SqliteToolRollup;

  constructor(db: Database.Database) {
    this.#db = db;
    this.#tools = new SqliteToolRollup(db);
    this.#deletedCalls = db
      .prepare(
        `SELECT call_server, call_outcome, duration_ms, created_at, call_cause, ${CALL_TOOL_NAME} FROM steps
         WHERE id >= ${STEP_ROWID} AND id < ${STEP_ROWID} AND call_server IS NOT NULL`,
      )
      .raw();
    this.#remainingCalls = db
      .prepare(
        'SELECT call_server, call_outcome, duration_ms, created_at, call_cause FROM steps WHERE created_at >= ? AND created_at < ? AND call_server = ?',
      )
      .raw();
    this.#deleteIfAll = db.prepare(`DELETE FROM health_rollup WHERE ${KEY} AND ok + failed + cancelled = @calls`);
    this.#deleteCauses = db.prepare(`DELETE FROM health_causes WHERE ${KEY}`);
    this.#takeCause = db.prepare(`UPDATE health_causes SET calls = calls - @calls WHERE ${KEY} AND cause = @cause`);
    this.#dropEmptyCauses = db.prepare(`DELETE FROM health_causes WHERE ${KEY} AND calls <= 0`);
    // one key lookup per bucket of the level below (the rollup is keyed time first: a range on
    // bucket_start with a filter on server would read every server's rows of those buckets)
    this.#finerExtremes = db
      .prepare(
        `WITH RECURSIVE finer(start) AS (SELECT @from UNION ALL SELECT start + @size FROM finer WHERE start + @size < @to)
         SELECT min(min_ms), max(max_ms), max(last_failure_at) FROM finer
         JOIN health_rollup ON level = @level AND bucket_start = finer.start AND server = @server`,
      )
      .raw();
    this.#setExtremes = db.prepare(`UPDATE health_rollup SET min_ms = @min, max_ms = @max, last_failure_at = @lastFailure WHERE ${KEY}`);
  }

  /** Notes what the calls among sequences [from, to) of run `runNo` added to the rollups (health, tools), before they are deleted. */
  collect(runNo: number, from: number, to: number): void {
    for (const row of this.#deletedCalls.iterate(runNo, from, runNo, to) as Iterable<ToolCallRow>) {
      this.#deltas.addRow(row.slice(0, 5) as CallRow);
      this.#tools.collect(row);
    }
  }

  /** Takes what {@link SqlitePruneRollup.collect} noted out of the rollup; call after the deletes, in their transaction. */
  subtract(): void {
    // finest first: a coarser bucket's extremes are made again from the rows below it
    for (const delta of this.#deltas.take()) this.#subtract(delta);
    this.#tools.subtract();
  }

  /** Forgets what was collected (the transaction rolled back). */
  reset(): void {
    this.#deltas.clear();
    this.#tools.reset();
  }

  #subtract(delta: BucketDelta): void {
    const key = { server: delta.server, level: delta.level, bucket: delta.bucket };
    // the deleted calls were all the bucket held: the row and its causes go
    if (this.#deleteIfAll.run({ ...key, calls: delta.calls }).changes > 0) {
      if (delta.failed > 0) this.#deleteCauses.run(key);
      return;
    }
    // the counts with the first slot in one statement (most buckets a prune touches hold one slot), each other slot after
    const [first, ...others] = delta.slots;
    const [slot, slotCalls] = first ?? [DURATION_HISTOGRAM_SLOTS, 0];
    const row = this.#counts(slot).get(
      delta.ok,
      delta.failed,
      delta.cancelled,
      delta.notCounted,
      delta.answered,
      slotCalls,
      delta.server,
      delta.level,
      delta.bucket,
    ) as RemainingRow | undefined;
    if (row === undefined) return;
    for (const [other, calls] of others) this.#slot(other).run(calls, delta.server, delta.level, delta.bucket);
    for (const [cause, calls] of delta.causes) this.#takeCause.run({ ...key, cause, calls });
    if (delta.causes.size > 0) this.#dropEmptyCauses.run(key);
    const heldMin = delta.minMs !== null && row.minMs !== null && delta.minMs <= row.minMs;
    const heldMax = delta.maxMs !== null && row.maxMs !== null && delta.maxMs >= row.maxMs;
    const heldLast = delta.lastFailure !== null && row.lastFailure !== null && delta.lastFailure >= row.lastFailure;
    if (heldMin || heldMax || heldLast || (row.answered === 0 && row.minMs !== null))
      this.#setExtremes.run({ ...key, ...this.#extremes(delta) });
  }

  #counts(slot: number): Database.Statement {
    const made = this.#takeCounts[slot];
    if (made !== undefined) return made;
    const h = slot < DURATION_HISTOGRAM_SLOTS ? `h${slot} = h${slot} - ?` : 'ok = ok + 0 * ?';
    const statement = this.#db.prepare(
      `UPDATE health_rollup SET ok = ok - ?, failed = failed - ?, cancelled = cancelled - ?, not_counted = not_counted - ?,
         answered = answered - ?, ${h}
       WHERE server = ? AND level = ? AND bucket_start = ?
       RETURNING answered, min_ms AS minMs, max_ms AS maxMs, last_failure_at AS lastFailure`,
    );
    this.#takeCounts[slot] = statement;
    return statement;
  }

  #slot(slot: number): Database.Statement {
    const made = this.#takeSlot[slot];
    if (made !== undefined) return made;
    const statement = this.#db.prepare(
      `UPDATE health_rollup SET h${slot} = h${slot} - ? WHERE server = ? AND level = ? AND bucket_start = ?`,
    );
    this.#takeSlot[slot] = statement;
    return statement;
  }

  /** The extremes of a bucket's remaining calls: a minute's from its steps, a coarser bucket's from the level below. */
  #extremes(delta: BucketDelta): Extremes {
    const end = delta.bucket + (ROLLUP_LEVEL_SIZES[delta.level] as number);
    if (delta.level > MINUTE_LEVEL) {
      const finer = {
        server: delta.server,
        level: delta.level - 1,
        from: delta.bucket,
        to: end,
        size: ROLLUP_LEVEL_SIZES[delta.level - 1],
      };
      const [min, max, lastFailure] = this.#finerExtremes.get(finer) as [number | null, number | null, number | null];
      return { min, max, lastFailure };
    }
    const extremes: Extremes = { min: null, max: null, lastFailure: null };
    for (const [server, outcome, durationMs, createdAt, cause] of this.#remainingCalls.iterate(
      delta.bucket,
      end,
      delta.server,
    ) as Iterable<CallRow>) {
      const call = callOf(server, outcome, cause);
      if (call === null) continue;
      if (call.outcome === 'failed' && call.counted && (extremes.lastFailure === null || createdAt > extremes.lastFailure))
        extremes.lastFailure = createdAt;
      if (call.answered) {
        extremes.min = extremes.min === null ? durationMs : Math.min(extremes.min, durationMs);
        extremes.max = extremes.max === null ? durationMs : Math.max(extremes.max, durationMs);
      }
    }
    return extremes;
  }
}
