import { UNKNOWN_FAILURE_CAUSE } from '@runledger/trace';
// The SQL function rollup_add_runs that migrations 4 and 8 create (import and bulk loads call it).

/**
 * The SQL function `rollup_add_runs` (version 4's, and version 8's with the 32-day level): the tool
 * steps of the given runs added to the rollup and the causes in bulk, at the given levels. Frozen
 * as versions 4 and 8 wrote it.
 *
 * @internal
 */
export const rollupAddRuns = (levels: string): string => `
CREATE OR REPLACE FUNCTION rollup_add_runs(run_ids uuid[]) RETURNS void
  LANGUAGE sql VOLATILE
  BEGIN ATOMIC
    INSERT INTO health_rollup AS h
      (level, bucket_start, server, shard, ok, failed, cancelled, not_counted, answered, last_failure_at,
       duration_min, duration_max, histogram)
    SELECT level, bucket_start, server, shard, sum(ok), sum(failed), sum(cancelled), sum(not_counted), sum(answered),
           max(last_failure_at), min(duration_min), max(duration_max),
           histogram_of(array_agg(slot) FILTER (WHERE slot IS NOT NULL), array_agg(answered) FILTER (WHERE slot IS NOT NULL))
    FROM (
      SELECT l.level, bucket_start(s.created_at, l.size) AS bucket_start, s.call_server AS server,
             rollup_shard(s.run_id) AS shard,
             CASE WHEN s.call_answered THEN duration_bucket(s.duration_ms) END AS slot,
             count(*) FILTER (WHERE s.call_outcome = 'ok') AS ok,
             count(*) FILTER (WHERE s.call_outcome = 'failed') AS failed,
             count(*) FILTER (WHERE s.call_outcome = 'cancelled') AS cancelled,
             count(*) FILTER (WHERE s.call_outcome = 'failed' AND NOT s.call_counted) AS not_counted,
             count(*) FILTER (WHERE s.call_answered) AS answered,
             max(s.created_at) FILTER (WHERE s.call_outcome = 'failed' AND s.call_counted) AS last_failure_at,
             min(s.duration_ms) FILTER (WHERE s.call_answered) AS duration_min,
             max(s.duration_ms) FILTER (WHERE s.call_answered) AS duration_max
      FROM steps s CROSS JOIN (VALUES ${levels}) AS l(level, size)
      WHERE s.run_id = ANY (run_ids) AND s.call_server IS NOT NULL AND s.call_outcome IS NOT NULL
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
      histogram = histogram_add(h.histogram, excluded.histogram);
    INSERT INTO health_causes AS c (level, bucket_start, server, shard, cause, calls)
    SELECT l.level, bucket_start(s.created_at, l.size), s.call_server, rollup_shard(s.run_id),
           coalesce(s.call_cause, '${UNKNOWN_FAILURE_CAUSE}'), count(*)
    FROM steps s CROSS JOIN (VALUES ${levels}) AS l(level, size)
    WHERE s.run_id = ANY (run_ids) AND s.call_server IS NOT NULL AND s.call_outcome = 'failed'
    GROUP BY 1, 2, 3, 4, 5
    ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (level, bucket_start, server, shard, cause) DO UPDATE SET calls = c.calls + excluded.calls;
  END;
`;
