import type { PoolClient } from 'pg';
import { UNKNOWN_FAILURE_CAUSE } from '@runledger/trace';
import { ROLLUP_LEVEL_SIZES, rollupBucketStart } from '@runledger/trace/store';

const MINUTE_LEVEL = 0;
const MINUTE = ROLLUP_LEVEL_SIZES[MINUTE_LEVEL] as number;
const COUNT_COLUMNS = 'ok, failed, cancelled, not_counted, answered, last_failure_at, duration_min, duration_max, histogram';

/** A minute bucket of one server in one shard that held a deleted call, as the delete returned it. */
export interface TouchedMinute {
  readonly server: string;
  readonly minute: number;
  readonly shard: number;
}

/** The rollup buckets touched, one array per column (for `unnest`), every level. */
interface BucketKeys {
  readonly levels: number[];
  readonly buckets: number[];
  readonly servers: string[];
  readonly shards: number[];
}

/** Rebuilt rows take the place of the deleted ones; an append that waited for them adds its call (as an append's own upsert does). */
function onConflictAdd(q: string): string {
  return `ON CONFLICT (level, bucket_start, server, shard) DO UPDATE SET
        ok = h.ok + excluded.ok,
        failed = h.failed + excluded.failed,
        cancelled = h.cancelled + excluded.cancelled,
        not_counted = h.not_counted + excluded.not_counted,
        answered = h.answered + excluded.answered,
        last_failure_at = greatest(h.last_failure_at, excluded.last_failure_at),
        duration_min = least(h.duration_min, excluded.duration_min),
        duration_max = greatest(h.duration_max, excluded.duration_max),
        histogram = ${q}.histogram_add(h.histogram, excluded.histogram)`;
}

/**
 * The SQL that keeps the server-health rollup equal to what the remaining steps say while a prune
 * deletes steps: the buckets that held a deleted call are made again, in the prune's transaction.
 *
 * @remarks
 * After the steps are deleted, {@link PostgresPruneRollup.rebuild} takes the minute buckets
 * (server, shard) they touched and the coarser buckets above them: it locks their rows of
 * `health_causes`, then of `health_rollup`, each in key order (the order an append takes them: its
 * statement runs the `causes` CTE before the `rollup` one, each level by level), then the rows of
 * `health_causes` again without waiting (a cause an append added in between), deletes them, and
 * inserts each minute bucket again from the steps left in it (`steps_call_server`, one minute of
 * one server, the run's shard) and each coarser bucket from the rows of the level below. An append to one of
 * those buckets waits for the prune's commit and then adds its call to the rebuilt row; one that
 * came first is in the steps the rebuild reads. `health_servers` has no PostgreSQL counterpart.
 *
 * @internal
 */
export class PostgresPruneRollup {
  readonly #lockRollup: string;
  readonly #lockCauses: string;
  readonly #relockCauses: string;
  readonly #deleteRollup: string;
  readonly #deleteCauses: string;
  readonly #minuteRollup: string;
  readonly #minuteCauses: string;
  readonly #levelRollup: string;
  readonly #levelCauses: string;

  constructor(q: string) {
    const keys = 'unnest($1::smallint[], $2::bigint[], $3::text[], $4::smallint[]) AS k (level, bucket, server, shard)';
    const matches = (t: string): string =>
      `${t}.level = k.level AND ${t}.bucket_start = k.bucket AND ${t}.server = k.server AND ${t}.shard = k.shard`;
    this.#lockRollup = `SELECT 1 FROM ${keys} JOIN ${q}.health_rollup h ON ${matches('h')}
      ORDER BY h.level, h.bucket_start, h.server, h.shard FOR UPDATE OF h`;
    this.#lockCauses = `SELECT 1 FROM ${keys} JOIN ${q}.health_causes c ON ${matches('c')}
      ORDER BY c.level, c.bucket_start, c.server, c.shard, c.cause FOR UPDATE OF c`;
    this.#relockCauses = `${this.#lockCauses} NOWAIT`;
    this.#deleteRollup = `DELETE FROM ${q}.health_rollup h USING ${keys} WHERE ${matches('h')}`;
    this.#deleteCauses = `DELETE FROM ${q}.health_causes c USING ${keys} WHERE ${matches('c')}`;
    // the minute keys ($1 level 0 only) joined to the calls left in them, as rollup_add_runs counts them
    const minuteCalls = (filter: string): string => `FROM ${keys}
      JOIN ${q}.steps s ON s.call_server = k.server AND s.created_at >= k.bucket AND s.created_at < k.bucket + ${MINUTE}
      WHERE k.level = ${MINUTE_LEVEL} AND s.call_server IS NOT NULL AND ${filter} AND ${q}.rollup_shard(s.run_id) = k.shard`;
    this.#minuteRollup = `INSERT INTO ${q}.health_rollup AS h (level, bucket_start, server, shard, ${COUNT_COLUMNS})
      SELECT ${MINUTE_LEVEL}, bucket, server, shard, sum(ok), sum(failed), sum(cancelled), sum(not_counted), sum(answered),
             max(last_failure_at), min(duration_min), max(duration_max),
             ${q}.histogram_of(array_agg(slot) FILTER (WHERE slot IS NOT NULL), array_agg(answered) FILTER (WHERE slot IS NOT NULL))
      FROM (
        SELECT k.bucket, k.server, k.shard,
               CASE WHEN s.call_answered THEN ${q}.duration_bucket(s.duration_ms) END AS slot,
               count(*) FILTER (WHERE s.call_outcome = 'ok') AS ok,
               count(*) FILTER (WHERE s.call_outcome = 'failed') AS failed,
               count(*) FILTER (WHERE s.call_outcome = 'cancelled') AS cancelled,
               count(*) FILTER (WHERE s.call_outcome = 'failed' AND NOT s.call_counted) AS not_counted,
               count(*) FILTER (WHERE s.call_answered) AS answered,
               max(s.created_at) FILTER (WHERE s.call_outcome = 'failed' AND s.call_counted) AS last_failure_at,
               min(s.duration_ms) FILTER (WHERE s.call_answered) AS duration_min,
               max(s.duration_ms) FILTER (WHERE s.call_answered) AS duration_max
        ${minuteCalls('s.call_outcome IS NOT NULL')}
        GROUP BY 1, 2, 3, 4
      ) g
      GROUP BY bucket, server, shard
      ORDER BY bucket, server, shard
      ${onConflictAdd(q)}`;
    this.#minuteCauses = `INSERT INTO ${q}.health_causes AS c (level, bucket_start, server, shard, cause, calls)
      SELECT ${MINUTE_LEVEL}, k.bucket, k.server, k.shard, coalesce(s.call_cause, '${UNKNOWN_FAILURE_CAUSE}'), count(*)
      ${minuteCalls("s.call_outcome = 'failed'")}
      GROUP BY 1, 2, 3, 4, 5
      ORDER BY 1, 2, 3, 4, 5
      ON CONFLICT (level, bucket_start, server, shard, cause) DO UPDATE SET calls = c.calls + excluded.calls`;
    // the keys of level $5 joined to the rows of the level below inside them, each found by its
    // whole primary key ($6: the bucket size, $7: the size below), not by a range of bucket_start
    // (which would read every server's rows of that range)
    const finer = (table: string): string => `FROM ${keys}
      CROSS JOIN LATERAL generate_series(k.bucket, k.bucket + $6::bigint - 1, $7::bigint) AS g (bucket_start)
      JOIN ${q}.${table} f ON f.level = k.level - 1 AND f.bucket_start = g.bucket_start AND f.server = k.server AND f.shard = k.shard
      WHERE k.level = $5::smallint`;
    this.#levelRollup = `INSERT INTO ${q}.health_rollup AS h (level, bucket_start, server, shard, ${COUNT_COLUMNS})
      SELECT $5::smallint, k.bucket, k.server, k.shard, sum(f.ok), sum(f.failed), sum(f.cancelled), sum(f.not_counted), sum(f.answered),
             max(f.last_failure_at), min(f.duration_min), max(f.duration_max), ${q}.histogram_sum(f.histogram)
      ${finer('health_rollup')}
      GROUP BY k.bucket, k.server, k.shard
      ORDER BY k.bucket, k.server, k.shard
      ${onConflictAdd(q)}`;
    this.#levelCauses = `INSERT INTO ${q}.health_causes AS c (level, bucket_start, server, shard, cause, calls)
      SELECT $5::smallint, k.bucket, k.server, k.shard, f.cause, sum(f.calls)
      ${finer('health_causes')}
      GROUP BY k.bucket, k.server, k.shard, f.cause
      ORDER BY k.bucket, k.server, k.shard, f.cause
      ON CONFLICT (level, bucket_start, server, shard, cause) DO UPDATE SET calls = c.calls + excluded.calls`;
  }

  /** Makes every bucket that held one of the deleted calls again from the steps left; call after the deletes, in their transaction. */
  async rebuild(client: PoolClient, touched: readonly TouchedMinute[]): Promise<void> {
    if (touched.length === 0) return;
    const keys = bucketKeys(touched);
    const all = [keys.levels, keys.buckets, keys.servers, keys.shards];
    await client.query(this.#lockCauses, all);
    await client.query(this.#lockRollup, all);
    // a cause new in one of these buckets, committed by an append between the two locks, is not
    // locked yet: locked now, or (an append holds it and waits for a rollup row locked above)
    // lock_not_available, and the batch runs again (PostgresPrune)
    await client.query(this.#relockCauses, all);
    await client.query(this.#deleteCauses, all);
    await client.query(this.#deleteRollup, all);
    await client.query(this.#minuteRollup, all);
    for (let level = MINUTE_LEVEL + 1; level < ROLLUP_LEVEL_SIZES.length; level++) {
      await client.query(this.#levelRollup, [...all, level, ROLLUP_LEVEL_SIZES[level], ROLLUP_LEVEL_SIZES[level - 1]]);
    }
    await client.query(this.#minuteCauses, all);
    for (let level = MINUTE_LEVEL + 1; level < ROLLUP_LEVEL_SIZES.length; level++) {
      await client.query(this.#levelCauses, [...all, level, ROLLUP_LEVEL_SIZES[level], ROLLUP_LEVEL_SIZES[level - 1]]);
    }
  }
}

/** The touched minutes and every coarser bucket above them, each once, in key order. */
function bucketKeys(touched: readonly TouchedMinute[]): BucketKeys {
  const seen = new Set<string>();
  const rows: [number, number, string, number][] = [];
  for (const { server, minute, shard } of touched) {
    for (let level = MINUTE_LEVEL; level < ROLLUP_LEVEL_SIZES.length; level++) {
      const bucket = level === MINUTE_LEVEL ? minute : rollupBucketStart(level, minute);
      const key = `${level}\u0000${bucket}\u0000${shard}\u0000${server}`;
      if (seen.has(key)) continue;
      seen.add(key);
      rows.push([level, bucket, server, shard]);
    }
  }
  const keys: BucketKeys = { levels: [], buckets: [], servers: [], shards: [] };
  for (const [level, bucket, server, shard] of rows) {
    keys.levels.push(level);
    keys.buckets.push(bucket);
    keys.servers.push(server);
    keys.shards.push(shard);
  }
  return keys;
}
