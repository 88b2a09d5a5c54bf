// The writes of the server-health rollup (the sibling of store-sqlite's SqliteHealthWriter): SQL
// run inside the append statement, so the rollup and the steps never disagree. The bulk path
// (importRun, migrations) is the SQL function rollup_add_runs, made by PostgresMigrations.ts.
import { UNKNOWN_FAILURE_CAUSE } from '@runledger/trace';
import { DURATION_HISTOGRAM_SLOTS, ROLLUP_LEVEL_SIZES } from '@runledger/trace/store';

/**
 * The common table expressions `rollup` and `causes` of the append statement: one tool call added
 * to `health_rollup` at every level (in the run's shard) and, when it failed, to `health_causes`.
 *
 * @remarks
 * They read the inserted row from the CTE `step` and the append's parameters: $1 run id, $4
 * duration, $5 time, $9 call outcome, $10 call server, $12 cause, $13 answered, $14 counted (how
 * the call counts was decided by trace's toolCallOf).
 */
export function healthRollupWrites(q: string): string {
  const levels = ROLLUP_LEVEL_SIZES.map((size, level) => `(${level}::smallint, ${size}::bigint)`).join(', ');
  return `rollup AS (
  -- how the call counts ($13 answered, $14 counted) was decided by trace's toolCallOf
  INSERT INTO ${q}.health_rollup AS h
    (level, bucket_start, server, shard, ok, failed, cancelled, not_counted, answered, last_failure_at,
     duration_min, duration_max, histogram)
  SELECT l.level, ${q}.bucket_start($5::bigint, l.size), $10::text, ${q}.rollup_shard($1::uuid),
    ($9::text = 'ok')::int, ($9::text = 'failed')::int, ($9::text = 'cancelled')::int,
    ($9::text = 'failed' AND NOT $14::boolean)::int, $13::boolean::int,
    CASE WHEN $9::text = 'failed' AND $14::boolean THEN $5::bigint END,
    CASE WHEN $13::boolean THEN $4::float8 END, CASE WHEN $13::boolean THEN $4::float8 END,
    CASE WHEN $13::boolean THEN ${q}.histogram_one(${q}.duration_bucket($4::float8)) ELSE array_fill(0, ARRAY[${DURATION_HISTOGRAM_SLOTS}]) END
  FROM step CROSS JOIN (VALUES ${levels}) AS l (level, size)
  WHERE $10::text IS NOT NULL AND $9::text IS NOT NULL
  ORDER BY l.level
  ON CONFLICT (level, bucket_start, server, shard) DO UPDATE SET
    ok = h.ok + excluded.ok,
    failed = h.failed + excluded.failed,
    cancelled = h.cancelled + excluded.cancelled,
    not_counted = h.not_counted + excluded.not_counted,
    answered = h.answered + excluded.answered,
    last_failure_at = greatest(h.last_failure_at, excluded.last_failure_at),
    duration_min = least(h.duration_min, excluded.duration_min),
    duration_max = greatest(h.duration_max, excluded.duration_max),
    histogram[${q}.duration_bucket($4::float8)] = h.histogram[${q}.duration_bucket($4::float8)] + $13::boolean::int
), causes AS (
  INSERT INTO ${q}.health_causes AS c (level, bucket_start, server, shard, cause, calls)
  SELECT l.level, ${q}.bucket_start($5::bigint, l.size), $10::text, ${q}.rollup_shard($1::uuid),
    coalesce($12::text, '${UNKNOWN_FAILURE_CAUSE}'), 1
  FROM step CROSS JOIN (VALUES ${levels}) AS l (level, size)
  WHERE $10::text IS NOT NULL AND $9::text = 'failed'
  ORDER BY l.level
  ON CONFLICT (level, bucket_start, server, shard, cause) DO UPDATE SET calls = c.calls + 1
)`;
}
