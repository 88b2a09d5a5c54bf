import type Database from 'better-sqlite3';
import type { ToolOutcome } from '@runledger/core';
import { toolCallOf, UNKNOWN_FAILURE_CAUSE } from '@runledger/trace';
import { DURATION_HISTOGRAM_SLOTS, durationSlot, ROLLUP_LEVEL_SIZES, rollupBucketStart } from '@runledger/trace/store';

const MINUTE_LEVEL = 0;
const H = Array.from({ length: DURATION_HISTOGRAM_SLOTS }, (_, k) => `h${k}`);
const COUNT_COLUMNS = 'ok, failed, cancelled, not_counted, answered, last_failure_at, min_ms, max_ms';

/** A call row of a minute: outcome, duration, time, cause. */
type CallRow = [ToolOutcome, number, number, string | null];

/**
 * Keeps the server-health rollup equal to what the remaining steps say while a prune deletes
 * steps: the buckets that held a deleted call are made again, in the prune's transaction.
 *
 * @remarks
 * Collect the minutes (per server) of the steps about to go with {@link SqlitePruneRollup.collect},
 * delete them, then {@link SqlitePruneRollup.rebuild}: each touched minute bucket is recomputed
 * from the steps left in it (the steps_calls index, one minute of one server), and each bucket of
 * the coarser levels above it from the rows of the level just below (sums, min, max, last
 * failure; the levels nest, and are rebuilt finest first), so the rollup is what appending the
 * remaining steps alone would have made. Rebuilding a bucket reads at most 10 rows (a day is 4
 * six-hour rows, not up to 1440 minute rows), so a prune costs the same per step however dense
 * the data. `health_servers` (the span of days
 * a server was called) is left as it is: a wider span only costs a read that finds nothing.
 *
 * @internal
 */
export class SqlitePruneRollup {
  readonly #minutes: Database.Statement;
  readonly #calls: Database.Statement;
  readonly #deleteRollup: Database.Statement;
  readonly #deleteCauses: Database.Statement;
  readonly #insertMinute: Database.Statement;
  readonly #insertCause: Database.Statement;
  readonly #sumLevel: Database.Statement;
  readonly #sumCauses: Database.Statement;
  /** server → minute bucket starts touched in this transaction. */
  readonly #touched = new Map<string, Set<number>>();

  constructor(db: Database.Database) {
    const minute = ROLLUP_LEVEL_SIZES[MINUTE_LEVEL] as number;
    this.#minutes = db
      .prepare(
        `SELECT DISTINCT call_server, created_at - (created_at % ${minute}) FROM steps
         WHERE id >= (? << 32) + ? AND id < (? << 32) + ? AND call_server IS NOT NULL`,
      )
      .raw();
    this.#calls = db
      .prepare(
        'SELECT call_outcome, duration_ms, created_at, call_cause FROM steps WHERE created_at >= ? AND created_at < ? AND call_server = ?',
      )
      .raw();
    this.#deleteRollup = db.prepare('DELETE FROM health_rollup WHERE server = ? AND level = ? AND bucket_start = ?');
    this.#deleteCauses = db.prepare('DELETE FROM health_causes WHERE server = ? AND level = ? AND bucket_start = ?');
    this.#insertMinute = db.prepare(
      `INSERT INTO health_rollup (server, level, bucket_start, ${COUNT_COLUMNS}, ${H.join(', ')})
       VALUES (?, ${MINUTE_LEVEL}, ?, ?, ?, ?, ?, ?, ?, ?, ?, ${H.map(() => '?').join(', ')})`,
    );
    this.#insertCause = db.prepare('INSERT INTO health_causes (server, level, bucket_start, cause, calls) VALUES (?, ?, ?, ?, ?)');
    this.#sumLevel = db.prepare(
      `INSERT INTO health_rollup (server, level, bucket_start, ${COUNT_COLUMNS}, ${H.join(', ')})
       SELECT server, @level, @bucket, sum(ok), sum(failed), sum(cancelled), sum(not_counted), sum(answered), max(last_failure_at),
              min(min_ms), max(max_ms), ${H.map((h) => `sum(${h})`).join(', ')}
       FROM health_rollup WHERE server = @server AND level = @finer AND bucket_start >= @bucket AND bucket_start < @end
       GROUP BY server`,
    );
    this.#sumCauses = db.prepare(
      `INSERT INTO health_causes (server, level, bucket_start, cause, calls)
       SELECT server, @level, @bucket, cause, sum(calls)
       FROM health_causes WHERE server = @server AND level = @finer AND bucket_start >= @bucket AND bucket_start < @end
       GROUP BY server, cause`,
    );
  }

  /** Notes the minutes of the calls among sequences [from, to) of run `runNo`, before they are deleted. */
  collect(runNo: number, from: number, to: number): void {
    for (const [server, minute] of this.#minutes.all(runNo, from, runNo, to) as [string, number][]) {
      let minutes = this.#touched.get(server);
      if (minutes === undefined) this.#touched.set(server, (minutes = new Set()));
      minutes.add(minute);
    }
  }

  /** Makes every touched bucket again from the steps left, at every level; call after the deletes, in their transaction. */
  rebuild(): void {
    for (const [server, minutes] of this.#touched) {
      const coarser = ROLLUP_LEVEL_SIZES.map(() => new Set<number>());
      for (const minute of minutes) {
        this.#rebuildMinute(server, minute);
        for (let level = MINUTE_LEVEL + 1; level < ROLLUP_LEVEL_SIZES.length; level++)
          coarser[level]!.add(rollupBucketStart(level, minute));
      }
      for (let level = MINUTE_LEVEL + 1; level < ROLLUP_LEVEL_SIZES.length; level++) {
        for (const bucket of coarser[level]!) {
          this.#deleteRollup.run(server, level, bucket);
          this.#deleteCauses.run(server, level, bucket);
          const range = { server, level, finer: level - 1, bucket, end: bucket + (ROLLUP_LEVEL_SIZES[level] as number) };
          this.#sumLevel.run(range);
          this.#sumCauses.run(range);
        }
      }
    }
    this.#touched.clear();
  }

  /** Forgets what was collected (the transaction rolled back). */
  reset(): void {
    this.#touched.clear();
  }

  #rebuildMinute(server: string, minute: number): void {
    this.#deleteRollup.run(server, MINUTE_LEVEL, minute);
    this.#deleteCauses.run(server, MINUTE_LEVEL, minute);
    const rows = this.#calls.all(minute, minute + (ROLLUP_LEVEL_SIZES[MINUTE_LEVEL] as number), server) as CallRow[];
    if (rows.length === 0) return;
    let ok = 0;
    let failed = 0;
    let cancelled = 0;
    let notCounted = 0;
    let answered = 0;
    let lastFailure: number | null = null;
    let min: number | null = null;
    let max: number | null = null;
    const histogram = new Array<number>(DURATION_HISTOGRAM_SLOTS).fill(0);
    const causes = new Map<string, number>();
    for (const [outcome, durationMs, createdAt, cause] of rows) {
      // counted exactly as an append counts it (SqliteHealthWriter.add): trace's toolCallOf decides
      const call = toolCallOf({ kind: 'tool', payload: null, toolServer: server, toolOutcome: outcome, toolFailureCause: cause });
      if (call === null) continue;
      if (call.outcome === 'ok') ok++;
      else if (call.outcome === 'cancelled') cancelled++;
      else {
        failed++;
        if (!call.counted) notCounted++;
        else if (lastFailure === null || createdAt > lastFailure) lastFailure = createdAt;
        const name = call.cause ?? UNKNOWN_FAILURE_CAUSE;
        causes.set(name, (causes.get(name) ?? 0) + 1);
      }
      if (call.answered) {
        answered++;
        min = min === null ? durationMs : Math.min(min, durationMs);
        max = max === null ? durationMs : Math.max(max, durationMs);
        const k = durationSlot(durationMs);
        histogram[k] = (histogram[k] as number) + 1;
      }
    }
    if (ok + failed + cancelled === 0) return;
    this.#insertMinute.run(server, minute, ok, failed, cancelled, notCounted, answered, lastFailure, min, max, ...histogram);
    for (const [cause, calls] of causes) this.#insertCause.run(server, MINUTE_LEVEL, minute, cause, calls);
  }
}
