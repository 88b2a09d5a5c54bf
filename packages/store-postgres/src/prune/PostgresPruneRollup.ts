import type { PoolClient } from 'pg';
import { UNKNOWN_FAILURE_CAUSE } from '@runledger/trace';
import { ROLLUP_LEVEL_SIZES, rollupBucketStart } from '@runledger/trace/store';
import type { HealthRow } from '../health/PostgresHealthReader.js';
import { subtractToolCalls } from '../toolRollup/PostgresToolRollup.js';

const MINUTE_LEVEL = 0;
const MINUTE = ROLLUP_LEVEL_SIZES[MINUTE_LEVEL] as number;

/**
 * A deleted tool call, as the delete returned it: server, time, shard, outcome, cause, how it
 * counts (trace's toolCallOf decided answered / counted when the step was stored), its histogram slot
 * (1-based, `duration_bucket`; null when not answered), duration and tool name (for the tool rollup).
 */
export type DeletedCall = [
  server: string,
  createdAt: number,
  shard: number,
  outcome: 'ok' | 'failed' | 'cancelled',
  cause: string | null,
  answered: boolean,
  counted: boolean,
  slot: number | null,
  durationMs: number,
  tool: string | null,
];

/** What the deleted calls took out of one rollup bucket. */
interface Delta {
  readonly level: number;
  readonly bucket: number;
  readonly server: string;
  readonly shard: number;
  ok: number;
  failed: number;
  cancelled: number;
  notCounted: number;
  answered: number;
  readonly slots: Map<number, number>;
  /** The least / greatest answered duration and the latest counted failure among the deleted calls. */
  min: number | null;
  max: number | null;
  lastFailure: number | null;
  readonly causes: Map<string, number>;
}

/** A locked row of `health_rollup`, without its histogram (the update takes the deleted calls' slots out of it in the server). */
interface RollupRow extends Omit<HealthRow, 'histogram'> {
  level: number;
  bucket_start: number;
  shard: number;
}

/** A locked row of `health_causes`. */
interface CauseRow {
  level: number;
  bucket_start: number;
  server: string;
  shard: number;
  cause: string;
  calls: number;
}

/** The columns of a rollup row the update sets ($1–$12 of its statement, in order). */
const UPDATED_COLUMNS = [
  'level',
  'bucket_start',
  'server',
  'shard',
  'ok',
  'failed',
  'cancelled',
  'not_counted',
  'answered',
  'last_failure_at',
  'duration_min',
  'duration_max',
] as const satisfies readonly (keyof RollupRow)[];

const keyOf = (level: number, bucket: number, server: string, shard: number): string =>
  `${level}\u0000${bucket}\u0000${shard}\u0000${server}`;

/**
 * Takes the calls a prune deletes out of the server-health rollup, in the prune's transaction, so
 * that the rollup stays what appending the remaining steps alone would have made.
 *
 * @remarks
 * The deleted calls are added up per bucket (every level, the run's shard): counts, the histogram
 * slots of the answered ones, their least and greatest duration, the latest counted failure, the
 * failures by cause. {@link PostgresPruneRollup.subtract} locks the `health_causes` rows of those
 * buckets and causes, then their `health_rollup` rows, each in key order; appends do not write
 * those rows (they note their calls as pending) and moves of pending calls wait for the prune's
 * commit (the rollup's advisory lock, taken by PostgresPrune). Counts and histograms are
 * subtracted; a row left without calls is deleted. Where a deleted call held a row's least or
 * greatest duration or its last failure, those three are computed again: the minute's from the
 * steps left in it (`steps_call_server`, one minute of one server, the run's shard), a coarser
 * bucket's from the rows of the level below (found by primary key), level after level. A call
 * still pending among those steps may lend the row its duration early: the move that adds it
 * later takes the least and greatest again, which changes nothing.
 *
 * @internal
 */
export class PostgresPruneRollup {
  readonly #lockRollup: string;
  readonly #lockCauses: string;
  readonly #updateRollup: string;
  readonly #deleteRollup: string;
  readonly #updateCauses: string;
  readonly #deleteCauses: string;
  readonly #extremesOfMinutes: string;
  readonly #extremesOfLevel: string;
  readonly #q: string;

  constructor(q: string) {
    this.#q = q;
    const keys = 'unnest($1::smallint[], $2::bigint[], $3::text[], $4::smallint[]) AS k (level, bucket, server, shard)';
    const matches = (t: string): string =>
      `${t}.level = k.level AND ${t}.bucket_start = k.bucket AND ${t}.server = k.server AND ${t}.shard = k.shard`;
    this.#lockRollup = `SELECT h.level, h.bucket_start, h.server, h.shard, h.ok, h.failed, h.cancelled, h.not_counted, h.answered,
        h.last_failure_at, h.duration_min, h.duration_max
      FROM ${keys} JOIN ${q}.health_rollup h ON ${matches('h')}
      ORDER BY h.level, h.bucket_start, h.server, h.shard FOR UPDATE OF h`;
    this.#lockCauses = `SELECT c.level, c.bucket_start, c.server, c.shard, c.cause, c.calls
      FROM unnest($1::smallint[], $2::bigint[], $3::text[], $4::smallint[], $5::text[]) AS k (level, bucket, server, shard, cause)
      JOIN ${q}.health_causes c ON ${matches('c')} AND c.cause = k.cause
      ORDER BY c.level, c.bucket_start, c.server, c.shard, c.cause FOR UPDATE OF c`;
    // the histogram is taken down in the server: the deleted calls' slots ($13) and their counts,
    // negative ($14), each an array literal per row; a row's 114 slots never travel to the prune and back
    this.#updateRollup = `UPDATE ${q}.health_rollup h SET ok = k.ok, failed = k.failed, cancelled = k.cancelled,
        not_counted = k.not_counted, answered = k.answered, last_failure_at = k.last_failure_at,
        duration_min = k.duration_min, duration_max = k.duration_max,
        histogram = ${q}.histogram_add(h.histogram, ${q}.histogram_of(k.slots::integer[], k.taken::bigint[]))
      FROM unnest($1::smallint[], $2::bigint[], $3::text[], $4::smallint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[],
        $9::bigint[], $10::bigint[], $11::float8[], $12::float8[], $13::text[], $14::text[])
        AS k (level, bucket, server, shard, ok, failed, cancelled, not_counted, answered, last_failure_at, duration_min, duration_max, slots, taken)
      WHERE ${matches('h')}`;
    this.#deleteRollup = `DELETE FROM ${q}.health_rollup h USING ${keys} WHERE ${matches('h')}`;
    this.#updateCauses = `UPDATE ${q}.health_causes c SET calls = k.calls
      FROM unnest($1::smallint[], $2::bigint[], $3::text[], $4::smallint[], $5::text[], $6::bigint[]) AS k (level, bucket, server, shard, cause, calls)
      WHERE ${matches('c')} AND c.cause = k.cause`;
    this.#deleteCauses = `DELETE FROM ${q}.health_causes c
      USING unnest($1::smallint[], $2::bigint[], $3::text[], $4::smallint[], $5::text[]) AS k (level, bucket, server, shard, cause)
      WHERE ${matches('c')} AND c.cause = k.cause`;
    // least / greatest answered duration and last counted failure of the calls left in each minute
    this.#extremesOfMinutes = `UPDATE ${q}.health_rollup h SET duration_min = e.mn, duration_max = e.mx, last_failure_at = e.lf
      FROM ${keys} CROSS JOIN LATERAL (
        SELECT min(s.duration_ms) FILTER (WHERE s.call_answered) AS mn, max(s.duration_ms) FILTER (WHERE s.call_answered) AS mx,
               max(s.created_at) FILTER (WHERE s.call_outcome = 'failed' AND s.call_counted) AS lf
        FROM ${q}.steps s
        WHERE s.call_server = k.server AND s.created_at >= k.bucket AND s.created_at < k.bucket + ${MINUTE}
          AND s.call_server IS NOT NULL AND s.call_outcome IS NOT NULL AND ${q}.rollup_shard(s.run_id) = k.shard
      ) e
      WHERE ${matches('h')}`;
    this.#extremesOfLevel = extremesOfLevelStatement(q);
  }

  /** Takes the deleted calls out of the rollups (health, tools); call after their delete, in its transaction. */
  async subtract(client: PoolClient, calls: readonly DeletedCall[]): Promise<void> {
    if (calls.length === 0) return;
    const deltas = deltasOf(calls);
    const all = [...deltas.values()];
    const causeKeys = all.flatMap((d) => [...d.causes.keys()].map((cause) => [d, cause] as const));
    const causeRows =
      causeKeys.length === 0
        ? { rows: [] as CauseRow[] }
        : await client.query<CauseRow>(this.#lockCauses, [
            causeKeys.map(([d]) => d.level),
            causeKeys.map(([d]) => d.bucket),
            causeKeys.map(([d]) => d.server),
            causeKeys.map(([d]) => d.shard),
            causeKeys.map(([, cause]) => cause),
          ]);
    const rollupRows = await client.query<RollupRow>(this.#lockRollup, columns(all));

    const updated: [RollupRow, Delta][] = [];
    const emptied: Delta[] = [];
    const recompute: Delta[][] = ROLLUP_LEVEL_SIZES.map(() => []);
    for (const row of rollupRows.rows) {
      const d = deltas.get(keyOf(row.level, row.bucket_start, row.server, row.shard));
      if (d === undefined) continue;
      const next: RollupRow = {
        ...row,
        ok: row.ok - d.ok,
        failed: row.failed - d.failed,
        cancelled: row.cancelled - d.cancelled,
        not_counted: row.not_counted - d.notCounted,
        answered: row.answered - d.answered,
      };
      if (next.ok + next.failed + next.cancelled <= 0) {
        emptied.push(d);
        continue;
      }
      if (next.answered <= 0) {
        next.duration_min = null;
        next.duration_max = null;
      }
      if (next.failed - next.not_counted <= 0) next.last_failure_at = null;
      const extremeGone =
        (next.answered > 0 &&
          ((d.min !== null && d.min <= (row.duration_min ?? d.min)) || (d.max !== null && d.max >= (row.duration_max ?? d.max)))) ||
        (next.last_failure_at !== null && d.lastFailure !== null && d.lastFailure >= next.last_failure_at);
      if (extremeGone) recompute[row.level]!.push(d);
      updated.push([next, d]);
    }
    if (updated.length > 0) {
      const columnsOf = UPDATED_COLUMNS.map((column) => updated.map(([row]) => row[column]));
      await client.query(this.#updateRollup, [
        ...columnsOf,
        updated.map(([, d]) => `{${[...d.slots.keys()].join(',')}}`),
        updated.map(([, d]) => `{${[...d.slots.values()].map((n) => -n).join(',')}}`),
      ]);
    }
    if (emptied.length > 0) await client.query(this.#deleteRollup, columns(emptied));
    // level after level: a coarser bucket's extremes come from the finer rows just made right
    for (const [level, keys] of recompute.entries()) {
      if (keys.length === 0) continue;
      if (level === MINUTE_LEVEL) await client.query(this.#extremesOfMinutes, columns(keys));
      else await client.query(this.#extremesOfLevel, [...columns(keys), ROLLUP_LEVEL_SIZES[level], ROLLUP_LEVEL_SIZES[level - 1]]);
    }

    const keep: [CauseRow, number][] = [];
    const drop: CauseRow[] = [];
    for (const row of causeRows.rows) {
      const taken = deltas.get(keyOf(row.level, row.bucket_start, row.server, row.shard))?.causes.get(row.cause) ?? 0;
      if (row.calls - taken <= 0) drop.push(row);
      else keep.push([row, row.calls - taken]);
    }
    const causeColumns = (rows: readonly CauseRow[]): unknown[] => [
      rows.map((r) => r.level),
      rows.map((r) => r.bucket_start),
      rows.map((r) => r.server),
      rows.map((r) => r.shard),
      rows.map((r) => r.cause),
    ];
    if (keep.length > 0) {
      await client.query(this.#updateCauses, [...causeColumns(keep.map(([r]) => r)), keep.map(([, calls]) => calls)]);
    }
    if (drop.length > 0) await client.query(this.#deleteCauses, causeColumns(drop));
    // and out of the per-tool rollup, whose rows a prune locks after the health rollup's, as a move writes them
    await subtractToolCalls(client, this.#q, calls);
  }
}

/**
 * The statement that sets the least / greatest duration and the last failure of rollup rows
 * (keys `$1`–`$4`) from the rows of the level below inside each bucket, found by their whole
 * primary key (`$5`: the bucket size, `$6`: the size below). The bucket starts below are one array,
 * so that each is a probe of the key: joined with a set of them instead, the planner read every row
 * of the server and shard at the level below — the whole history — for each bucket.
 *
 * @internal
 */
export function extremesOfLevelStatement(q: string): string {
  return `UPDATE ${q}.health_rollup h SET duration_min = e.mn, duration_max = e.mx, last_failure_at = e.lf
      FROM unnest($1::smallint[], $2::bigint[], $3::text[], $4::smallint[]) AS k (level, bucket, server, shard) CROSS JOIN LATERAL (
        SELECT min(f.duration_min) AS mn, max(f.duration_max) AS mx, max(f.last_failure_at) AS lf
        FROM ${q}.health_rollup f
        WHERE f.level = k.level - 1 AND f.server = k.server AND f.shard = k.shard
          AND f.bucket_start = ANY (ARRAY(SELECT generate_series(k.bucket, k.bucket + $5::bigint - 1, $6::bigint)))
      ) e
      WHERE h.level = k.level AND h.bucket_start = k.bucket AND h.server = k.server AND h.shard = k.shard`;
}

/** The key columns of buckets, for `unnest`. */
function columns(deltas: readonly Delta[]): unknown[] {
  return [deltas.map((d) => d.level), deltas.map((d) => d.bucket), deltas.map((d) => d.server), deltas.map((d) => d.shard)];
}

/** The deleted calls added up per bucket of every level, in key order. */
function deltasOf(calls: readonly DeletedCall[]): Map<string, Delta> {
  const deltas = new Map<string, Delta>();
  for (const [server, createdAt, shard, outcome, cause, answered, counted, slot, durationMs] of calls) {
    const minute = createdAt - (((createdAt % MINUTE) + MINUTE) % MINUTE);
    for (let level = MINUTE_LEVEL; level < ROLLUP_LEVEL_SIZES.length; level++) {
      const bucket = level === MINUTE_LEVEL ? minute : rollupBucketStart(level, minute);
      const key = keyOf(level, bucket, server, shard);
      let d = deltas.get(key);
      if (d === undefined) {
        d = {
          level,
          bucket,
          server,
          shard,
          ok: 0,
          failed: 0,
          cancelled: 0,
          notCounted: 0,
          answered: 0,
          slots: new Map(),
          min: null,
          max: null,
          lastFailure: null,
          causes: new Map(),
        };
        deltas.set(key, d);
      }
      if (outcome === 'ok') d.ok++;
      else if (outcome === 'cancelled') d.cancelled++;
      else {
        d.failed++;
        if (!counted) d.notCounted++;
        else if (d.lastFailure === null || createdAt > d.lastFailure) d.lastFailure = createdAt;
        const name = cause ?? UNKNOWN_FAILURE_CAUSE;
        d.causes.set(name, (d.causes.get(name) ?? 0) + 1);
      }
      if (answered) {
        d.answered++;
        if (slot !== null) d.slots.set(slot, (d.slots.get(slot) ?? 0) + 1);
        if (d.min === null || durationMs < d.min) d.min = durationMs;
        if (d.max === null || durationMs > d.max) d.max = durationMs;
      }
    }
  }
  return deltas;
}
