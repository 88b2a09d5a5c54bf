import type Database from 'better-sqlite3';
import { DURATION_HISTOGRAM_SLOTS } from '@runledger/trace/store';
import type { RollupDeltas } from './SqliteRollupDeltas.js';

/** The rollup's columns after its key, in the order of the upsert's parameters. */
const COUNT_COLUMNS = ['ok', 'failed', 'cancelled', 'not_counted', 'answered'] as const;
const SLOT_COLUMNS = Array.from({ length: DURATION_HISTOGRAM_SLOTS }, (_, k) => `h${k}`);

/**
 * Writes the server-health rollup (schema version 9's tables, keyed time first since version 14):
 * sums of calls, each bucket's row updated once per batch ({@link SqliteHealthWriter.add}).
 *
 * @remarks
 * Appends do not write here: they note their calls in `health_pending` (SqliteHealthPending),
 * which moves them in in batches. How a call counts comes from trace ({@link RollupDeltas}, by
 * `toolCallOf`: `answered`, `counted`, `cause`), never decided here: `not_counted` holds failed
 * calls that are not in the failure rate, `answered` the calls whose duration is in the
 * histogram and min/max (null until a call is answered), `last_failure_at` the last counted
 * failure; `health_causes` holds the failed calls by cause (`unknown` when none was recorded).
 *
 * @internal
 */
export class SqliteHealthWriter {
  readonly #bucket: Database.Statement;
  readonly #cause: Database.Statement;

  constructor(db: Database.Database) {
    const columns = ['server', 'level', 'bucket_start', ...COUNT_COLUMNS, 'last_failure_at', 'min_ms', 'max_ms', ...SLOT_COLUMNS];
    this.#bucket = db.prepare(`
INSERT INTO health_rollup (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})
ON CONFLICT (level, bucket_start, server) DO UPDATE SET
  ${[...COUNT_COLUMNS, ...SLOT_COLUMNS].map((c) => `${c} = ${c} + excluded.${c}`).join(',\n  ')},
  last_failure_at = CASE
    WHEN excluded.last_failure_at IS NOT NULL AND (last_failure_at IS NULL OR excluded.last_failure_at > last_failure_at)
    THEN excluded.last_failure_at ELSE last_failure_at END,
  min_ms = coalesce(min(min_ms, excluded.min_ms), min_ms, excluded.min_ms),
  max_ms = coalesce(max(max_ms, excluded.max_ms), max_ms, excluded.max_ms)`);
    this.#cause = db.prepare(`
INSERT INTO health_causes (server, level, bucket_start, cause, calls) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (level, bucket_start, server, cause) DO UPDATE SET calls = calls + excluded.calls`);
  }

  /** Adds summed calls to the rollup (each bucket's row once), inside a write transaction. */
  add(deltas: RollupDeltas): void {
    const values = new Array<unknown>(11 + DURATION_HISTOGRAM_SLOTS);
    for (const d of deltas.take()) {
      values[0] = d.server;
      values[1] = d.level;
      values[2] = d.bucket;
      values[3] = d.ok;
      values[4] = d.failed;
      values[5] = d.cancelled;
      values[6] = d.notCounted;
      values[7] = d.answered;
      values[8] = d.lastFailure;
      values[9] = d.minMs;
      values[10] = d.maxMs;
      values.fill(0, 11);
      for (const [slot, n] of d.slots) values[11 + slot] = n;
      this.#bucket.run(values);
      for (const [cause, n] of d.causes) this.#cause.run(d.server, d.level, d.bucket, cause, n);
    }
  }
}
