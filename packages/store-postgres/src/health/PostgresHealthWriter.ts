// The writes of the server-health rollup (the sibling of store-sqlite's SqliteHealthWriter): the
// append notes its call in `health_pending` inside its own statement; the pending calls are moved
// into the rollup in one statement per batch (PostgresHealthPending runs it); an import adds its
// run's calls with the same statement over the steps it wrote. (Migrations 4 and 8 add runs in bulk
// with the SQL function rollup_add_runs, frozen as they made it.)
import { UNKNOWN_FAILURE_CAUSE } from '@runledger/trace';
import { ROLLUP_LEVEL_SIZES } from '@runledger/trace/store';
import { toolRollupWrites } from '../toolRollup/PostgresToolRollup.js';

const levelsOf = (): string => ROLLUP_LEVEL_SIZES.map((size, level) => `(${level}::smallint, ${size}::bigint)`).join(', ');

/**
 * The common table expression `pending` of the append statement: the tool call of the inserted
 * step noted in `health_pending` (its run's shard, and how it counts), to be moved into the
 * rollup with the other pending calls by {@link rollPendingStatement}.
 *
 * @remarks
 * It reads the inserted row from the CTE `step` and the append's parameters: $1 run id, $4
 * duration, $5 time, $9 call outcome, $10 call server, $12 cause, $13 answered, $14 counted (how
 * the call counts was decided by trace's toolCallOf), $16 tool name (for the tool rollup).
 */
export function healthPendingWrite(q: string): string {
  return `pending AS (
  INSERT INTO ${q}.health_pending (run_id, sequence, server, shard, outcome, duration_ms, created_at, cause, answered, counted, tool)
  SELECT $1::uuid, step.sequence, $10::text, ${q}.rollup_shard($1::uuid), $9::text, $4::float8, $5::bigint, $12::text,
    $13::boolean, $14::boolean, $16::text
  FROM step
  WHERE $10::text IS NOT NULL AND $9::text IS NOT NULL
)`;
}

/**
 * One statement that moves every pending call (that its snapshot sees) into `health_rollup` and
 * `health_causes`: deleted from `health_pending`, summed per level, bucket, server and shard, each
 * row upserted once; returns how many calls moved.
 *
 * @remarks
 * Rollup rows are taken in key order before any cause row (the causes read the rollup's count
 * first), the order an import's {@link rollRunStatement} (the same statement) and the migrations'
 * `rollup_add_runs` take them, so a move and an import never wait for each other in a circle. Calls committed while it runs are not in its snapshot: they stay pending for
 * the next move.
 */
export function rollPendingStatement(q: string): string {
  return rollupStatement(
    q,
    `DELETE FROM ${q}.health_pending
  RETURNING server, shard, outcome, duration_ms, created_at, cause, answered, counted, tool`,
  );
}

/**
 * One statement that adds the ended tool calls of run $1 (steps with a call server and outcome,
 * as an import wrote them) to `health_rollup` and `health_causes`, each row upserted once.
 */
export function rollRunStatement(q: string): string {
  return rollupStatement(
    q,
    `SELECT call_server AS server, ${q}.rollup_shard(run_id) AS shard, call_outcome AS outcome, duration_ms, created_at,
    call_cause AS cause, call_answered AS answered, call_counted AS counted, call_tool AS tool
  FROM ${q}.steps WHERE run_id = $1::uuid AND call_server IS NOT NULL AND call_outcome IS NOT NULL`,
  );
}

/**
 * The one rollup update: the calls `moved` reads (server, shard, outcome, duration_ms, created_at,
 * cause, answered, counted, tool) summed per level, bucket, server and shard into `health_rollup`, and the
 * failed ones per cause into `health_causes`, and per server and tool into the tool rollup
 * ({@link toolRollupWrites}, after them); returns how many calls it added (`moved`) and how many
 * cause rows it wrote (`causes`).
 */
function rollupStatement(q: string, calls: string): string {
  const levels = levelsOf();
  return `WITH moved AS (
  ${calls}
), rolled AS (
  INSERT INTO ${q}.health_rollup AS h
    (level, bucket_start, server, shard, ok, failed, cancelled, not_counted, answered, last_failure_at,
     duration_min, duration_max, histogram)
  SELECT level, bucket_start, server, shard, sum(ok), sum(failed), sum(cancelled), sum(not_counted), sum(answered),
         max(last_failure_at), min(duration_min), max(duration_max),
         ${q}.histogram_of(array_agg(slot) FILTER (WHERE slot IS NOT NULL), array_agg(answered) FILTER (WHERE slot IS NOT NULL))
  FROM (
    SELECT l.level, ${q}.bucket_start(m.created_at, l.size) AS bucket_start, m.server, m.shard,
           CASE WHEN m.answered THEN ${q}.duration_bucket(m.duration_ms) END AS slot,
           count(*) FILTER (WHERE m.outcome = 'ok') AS ok,
           count(*) FILTER (WHERE m.outcome = 'failed') AS failed,
           count(*) FILTER (WHERE m.outcome = 'cancelled') AS cancelled,
           count(*) FILTER (WHERE m.outcome = 'failed' AND NOT m.counted) AS not_counted,
           count(*) FILTER (WHERE m.answered) AS answered,
           max(m.created_at) FILTER (WHERE m.outcome = 'failed' AND m.counted) AS last_failure_at,
           min(m.duration_ms) FILTER (WHERE m.answered) AS duration_min,
           max(m.duration_ms) FILTER (WHERE m.answered) AS duration_max
    FROM moved m CROSS JOIN (VALUES ${levels}) AS l (level, size)
    GROUP BY 1, 2, 3, 4, 5
  ) g
  GROUP BY level, bucket_start, server, shard
  ORDER BY level, bucket_start, server, shard
  ON CONFLICT (level, bucket_start, server, shard) DO UPDATE SET
    ok = h.ok + excluded.ok,
    failed = h.failed + excluded.failed,
    cancelled = h.cancelled + excluded.cancelled,
    not_counted = h.not_counted + excluded.not_counted,
    answered = h.answered + excluded.answered,
    last_failure_at = greatest(h.last_failure_at, excluded.last_failure_at),
    duration_min = least(h.duration_min, excluded.duration_min),
    duration_max = greatest(h.duration_max, excluded.duration_max),
    histogram = ${q}.histogram_add(h.histogram, excluded.histogram)
  RETURNING 1
), causes AS (
  INSERT INTO ${q}.health_causes AS c (level, bucket_start, server, shard, cause, calls)
  SELECT l.level, ${q}.bucket_start(m.created_at, l.size), m.server, m.shard, coalesce(m.cause, '${UNKNOWN_FAILURE_CAUSE}'), count(*)
  FROM moved m CROSS JOIN (VALUES ${levels}) AS l (level, size)
    -- after every rollup row: the count needs the whole of rolled
    CROSS JOIN (SELECT count(*) FROM rolled) AS after_rollup
  WHERE m.outcome = 'failed'
  GROUP BY 1, 2, 3, 4, 5
  ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (level, bucket_start, server, shard, cause) DO UPDATE SET calls = c.calls + excluded.calls
  RETURNING 1
), ${toolRollupWrites(q, 'moved')}
SELECT (SELECT count(*) FROM moved)::int AS moved, (SELECT count(*) FROM causes)::int AS causes`;
}
