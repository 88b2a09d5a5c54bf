import type { PoolClient } from 'pg';
import { backfillCallCounting } from './backfillCallCounting.js';
import { backfillLegacySteps } from './backfillLegacySteps.js';
import { backfillOpenCalls } from './backfillOpenCalls.js';
import { rollupAddRuns } from './rollupAddRuns.js';
import { addSearchColumns } from './searchColumns.js';
import { addTerminationData } from './addTerminationData.js';
import { addToolRollup } from './addToolRollup.js';
import { addTitleSearchIndex } from './titleSearchIndex.js';

/**
 * One numbered, forward-only schema migration.
 *
 * @internal
 */
export interface PostgresMigration {
  readonly version: number;
  readonly name: string;
  /** Runs inside the migration transaction with `search_path` set to the store's schema. */
  up(client: PoolClient): Promise<void>;
}

// The rollup layout these migrations create, frozen as it was written: trace's durationHistogram.ts
// and rollupLevels.ts describe the same layout (PostgresMigrations.test.ts checks that they agree);
// changing those needs a new migration that rebuilds the rollup, never an edit here.
/** Histogram slots (quarter octaves, `duration_bucket`). */
export const ROLLUP_SLOTS_V2 = 114;
/** Bucket sizes of the rollup levels, in ms. */
export const ROLLUP_LEVEL_SIZES_V2: readonly number[] = Object.freeze([60_000, 600_000, 3_600_000, 21_600_000, 86_400_000]);
/**
 * How many rows per server, level and bucket the rollup spreads concurrent writers over (by run).
 *
 * @internal
 */
export const ROLLUP_SHARDS = 4;
const SLOTS = ROLLUP_SLOTS_V2;
const SHARDS = ROLLUP_SHARDS;
const LEVEL_NAMES = '1 min, 10 min, 1 h, 6 h, 1 day';
const LEVELS_SQL = ROLLUP_LEVEL_SIZES_V2.map((size, level) => `(${level}::smallint, ${size}::bigint)`).join(', ');

/** Version 1: runs, steps with the payload as text, the schema version. */
const V1 = `
CREATE TABLE runs (
  id uuid PRIMARY KEY,
  status text NOT NULL CHECK (status IN ('running', 'completed', 'failed', 'cancelled', 'interrupted')),
  configuration text NOT NULL,
  actor text,
  created_at bigint NOT NULL,
  started_at bigint,
  finished_at bigint,
  termination_reason text,
  cancel_requested_at bigint,
  heartbeat_at bigint
);
CREATE INDEX runs_created ON runs (created_at DESC, id DESC);
CREATE TABLE steps (
  run_id uuid NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  sequence integer NOT NULL CHECK (sequence >= 0),
  kind text NOT NULL,
  round integer NOT NULL,
  duration_ms double precision NOT NULL,
  created_at bigint NOT NULL,
  payload text NOT NULL,
  PRIMARY KEY (run_id, sequence)
);
`;

/**
 * Version 2: the tool_server / tool_outcome columns (filled from legacy payloads), per-run
 * counters (next sequence, outcome counts), and the server health rollup.
 */
const V2_COLUMNS = `
ALTER TABLE runs
  ADD COLUMN next_sequence integer NOT NULL DEFAULT 0,
  ADD COLUMN ok_count integer NOT NULL DEFAULT 0,
  ADD COLUMN failed_count integer NOT NULL DEFAULT 0,
  ADD COLUMN cancelled_count integer NOT NULL DEFAULT 0;
-- tool_server / tool_outcome: as the recorder gave them (null on rows from before they existed).
-- call_server / call_outcome: how server health and outcome counts read the step (toolCallOf):
-- the columns first, else the payload (toolIsError, toolServer, the mcp_<server>_ tool name).
ALTER TABLE steps
  ADD COLUMN tool_server text,
  ADD COLUMN tool_outcome text CHECK (tool_outcome IN ('ok', 'failed', 'cancelled')),
  ADD COLUMN call_server text,
  ADD COLUMN call_outcome text CHECK (call_outcome IN ('ok', 'failed', 'cancelled'));
CREATE INDEX runs_configuration ON runs (configuration, created_at DESC, id DESC);
CREATE INDEX runs_running ON runs (created_at) WHERE status = 'running';
`;

const V2_ROLLUP = `
CREATE INDEX steps_call_server ON steps (call_server, created_at) INCLUDE (call_outcome, duration_ms)
  WHERE call_server IS NOT NULL AND call_outcome IS NOT NULL;
CREATE INDEX steps_call_outcome ON steps (call_outcome, created_at) WHERE call_outcome IS NOT NULL;
CREATE INDEX steps_health_edge ON steps (created_at) INCLUDE (call_server, call_outcome, duration_ms)
  WHERE call_server IS NOT NULL AND call_outcome IS NOT NULL;

UPDATE runs r SET
  next_sequence = s.next_sequence,
  ok_count = s.ok_count,
  failed_count = s.failed_count,
  cancelled_count = s.cancelled_count
FROM (
  SELECT run_id,
    max(sequence) + 1 AS next_sequence,
    count(*) FILTER (WHERE call_outcome = 'ok') AS ok_count,
    count(*) FILTER (WHERE call_outcome = 'failed') AS failed_count,
    count(*) FILTER (WHERE call_outcome = 'cancelled') AS cancelled_count
  FROM steps GROUP BY run_id
) s WHERE s.run_id = r.id;

-- The histogram slot of a duration (1-based): the one definition every write path uses.
CREATE FUNCTION duration_bucket(d double precision) RETURNS integer
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN CASE WHEN d IS NULL OR d < 0.0625 THEN 1
              ELSE least(${SLOTS}, 2 + floor((ln(d) / ln(2::double precision) + 4) * 4)::integer) END;

-- A histogram holding one duration in slot k.
CREATE FUNCTION histogram_one(k integer) RETURNS integer[]
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN array_fill(0, ARRAY[k - 1]) || 1 || array_fill(0, ARRAY[${SLOTS} - k]);

-- The histogram with counts[i] durations in slot slots[i].
CREATE FUNCTION histogram_of(slots integer[], counts bigint[]) RETURNS integer[]
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
  AS $fn$
  DECLARE
    h integer[] := array_fill(0, ARRAY[${SLOTS}]);
  BEGIN
    FOR i IN 1 .. coalesce(array_length(slots, 1), 0) LOOP
      h[slots[i]] := h[slots[i]] + counts[i];
    END LOOP;
    RETURN h;
  END
  $fn$;

-- Two histograms added slot by slot.
CREATE FUNCTION histogram_add(a integer[], b integer[]) RETURNS integer[]
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN (SELECT array_agg(x + y ORDER BY i) FROM unnest(a, b) WITH ORDINALITY AS u(x, y, i));

-- The start of the bucket of size \`size\` holding time t (floor, also for negative t).
CREATE FUNCTION bucket_start(t bigint, size bigint) RETURNS bigint
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN t - (((t % size) + size) % size);

-- The rollup shard of a run's steps: writers of different runs that call the same server update
-- different rows (up to ${SHARDS}), so they do not queue on one row lock until each commit is flushed.
CREATE FUNCTION rollup_shard(run_id uuid) RETURNS smallint
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN (get_byte(uuid_send(run_id), 15) % ${SHARDS})::smallint;

-- Per server, time bucket (levels: ${LEVEL_NAMES}) and shard: calls by outcome, the last failure,
-- the duration range and the log-scale histogram. Maintained in the transaction of each step.
CREATE TABLE health_rollup (
  level smallint NOT NULL,
  bucket_start bigint NOT NULL,
  server text NOT NULL,
  shard smallint NOT NULL,
  ok bigint NOT NULL,
  failed bigint NOT NULL,
  cancelled bigint NOT NULL,
  last_failure_at bigint,
  duration_min double precision NOT NULL,
  duration_max double precision NOT NULL,
  histogram integer[] NOT NULL,
  PRIMARY KEY (level, bucket_start, server, shard)
);

-- Adds the tool steps of the given runs to the rollup in bulk (import, migration, bulk loads).
CREATE FUNCTION rollup_add_runs(run_ids uuid[]) RETURNS void
  LANGUAGE sql VOLATILE
  BEGIN ATOMIC
    INSERT INTO health_rollup AS h
      (level, bucket_start, server, shard, ok, failed, cancelled, last_failure_at, duration_min, duration_max, histogram)
    SELECT level, bucket_start, server, shard, sum(ok), sum(failed), sum(cancelled), max(last_failure_at),
           min(duration_min), max(duration_max),
           histogram_of(array_agg(slot), array_agg(n))
    FROM (
      SELECT l.level, bucket_start(s.created_at, l.size) AS bucket_start, s.call_server AS server,
             rollup_shard(s.run_id) AS shard,
             duration_bucket(s.duration_ms) AS slot, count(*)::bigint AS n,
             count(*) FILTER (WHERE s.call_outcome = 'ok') AS ok,
             count(*) FILTER (WHERE s.call_outcome = 'failed') AS failed,
             count(*) FILTER (WHERE s.call_outcome = 'cancelled') AS cancelled,
             max(s.created_at) FILTER (WHERE s.call_outcome = 'failed') AS last_failure_at,
             min(s.duration_ms) AS duration_min, max(s.duration_ms) AS duration_max
      FROM steps s CROSS JOIN (VALUES ${LEVELS_SQL}) AS l(level, size)
      WHERE s.run_id = ANY (run_ids) AND s.call_server IS NOT NULL AND s.call_outcome IS NOT NULL
      GROUP BY 1, 2, 3, 4, 5
    ) g
    GROUP BY level, bucket_start, server, shard
    ORDER BY level, bucket_start, server, shard
    ON CONFLICT (level, bucket_start, server, shard) DO UPDATE SET
      ok = h.ok + excluded.ok,
      failed = h.failed + excluded.failed,
      cancelled = h.cancelled + excluded.cancelled,
      last_failure_at = greatest(h.last_failure_at, excluded.last_failure_at),
      duration_min = least(h.duration_min, excluded.duration_min),
      duration_max = greatest(h.duration_max, excluded.duration_max),
      histogram = histogram_add(h.histogram, excluded.histogram);
  END;

SELECT rollup_add_runs(ARRAY(SELECT id FROM runs));
`;

/**
 * Version 4: why a failed call failed (`call_cause`) and how health counts it (`call_answered`,
 * `call_counted`, decided by trace's `toolCallOf`), the rollup's answered calls and not-counted
 * failures, the failures by cause; the rollup rebuilt from the steps.
 */
const V4_COLUMNS = `
-- call_cause: the ToolFailureCause of a failed call (null: not failed, or not recorded).
-- call_answered: the server answered (its duration is a latency of the server).
-- call_counted: the call counts in the failure rate (not a cancellation, not invalid arguments).
ALTER TABLE steps
  ADD COLUMN call_cause text,
  ADD COLUMN call_answered boolean,
  ADD COLUMN call_counted boolean;
`;

const V4_ROLLUP = `
DROP INDEX steps_call_server;
DROP INDEX steps_health_edge;
CREATE INDEX steps_call_server ON steps (call_server, created_at) INCLUDE (call_outcome, duration_ms, call_answered)
  WHERE call_server IS NOT NULL AND call_outcome IS NOT NULL;
CREATE INDEX steps_health_edge ON steps (created_at)
  INCLUDE (call_server, call_outcome, duration_ms, call_cause, call_answered, call_counted)
  WHERE call_server IS NOT NULL AND call_outcome IS NOT NULL;

-- The histogram, duration_min and duration_max hold answered calls only (null until one is).
ALTER TABLE health_rollup
  ADD COLUMN not_counted bigint NOT NULL DEFAULT 0,
  ADD COLUMN answered bigint NOT NULL DEFAULT 0,
  ALTER COLUMN duration_min DROP NOT NULL,
  ALTER COLUMN duration_max DROP NOT NULL;

-- Failed calls per server, bucket, shard and cause ('unknown' when none was recorded).
CREATE TABLE health_causes (
  level smallint NOT NULL,
  bucket_start bigint NOT NULL,
  server text NOT NULL,
  shard smallint NOT NULL,
  cause text NOT NULL,
  calls bigint NOT NULL,
  PRIMARY KEY (level, bucket_start, server, shard, cause)
);

${rollupAddRuns(LEVELS_SQL)}
TRUNCATE health_rollup;
SELECT rollup_add_runs(ARRAY(SELECT id FROM runs));
`;

/**
 * Version 6: what PostgresPrune needs. `pruned_at`: set when a prune hid a run bigger than one
 * batch (readers find no run and no steps from then on) before deleting its steps in chunks; the
 * next prune finishes a hidden run first. `runs_ended`: the candidates of a prune, by end time.
 */
const V6_RETENTION = `
ALTER TABLE runs ADD COLUMN pruned_at bigint;
CREATE INDEX runs_ended ON runs (finished_at, id) WHERE status <> 'running';
CREATE INDEX runs_pruned ON runs (id) WHERE pruned_at IS NOT NULL;
`;

/**
 * Version 7: an append notes its call in `health_pending` instead of updating a rollup row at
 * every level (PostgresHealthPending moves them in batches). A heap without indexes: rows are
 * inserted by appends and deleted all at once by a move (a prune deletes those of its runs), so
 * it is vacuumed after every few thousand dead rows rather than a share of its size. Every call
 * before this version is in the rollup already.
 */
const V7_PENDING = `
CREATE TABLE health_pending (
  run_id uuid NOT NULL,
  sequence integer NOT NULL,
  server text NOT NULL,
  shard smallint NOT NULL,
  outcome text NOT NULL,
  duration_ms double precision NOT NULL,
  created_at bigint NOT NULL,
  cause text,
  answered boolean NOT NULL,
  counted boolean NOT NULL
) WITH (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 4096, autovacuum_vacuum_insert_scale_factor = 0,
  autovacuum_vacuum_insert_threshold = 4096);
`;

/** Bucket sizes of the rollup levels since version 8 (a level of 32 days over the days), in ms. */
export const ROLLUP_LEVEL_SIZES_V8: readonly number[] = Object.freeze([...ROLLUP_LEVEL_SIZES_V2, 2_764_800_000]);
const LEVELS_SQL_V8 = ROLLUP_LEVEL_SIZES_V8.map((size, level) => `(${level}::smallint, ${size}::bigint)`).join(', ');

/**
 * Version 8: the rollup level of 32 days (5), summed from the day rows (4) of every server and
 * shard; `rollup_add_runs` writes it too from now on. A window of a year reads about 11 rows of it
 * per server and shard instead of 365 day rows.
 */
const V8_LEVEL = `
DELETE FROM health_rollup WHERE level = 5;
DELETE FROM health_causes WHERE level = 5;
WITH days AS (
  SELECT bucket_start(bucket_start, 2764800000) AS b, server, shard, ok, failed, cancelled, not_counted, answered,
         last_failure_at, duration_min, duration_max, histogram
  FROM health_rollup WHERE level = 4
), counts AS (
  SELECT b, server, shard, sum(ok) AS ok, sum(failed) AS failed, sum(cancelled) AS cancelled, sum(not_counted) AS not_counted,
         sum(answered) AS answered, max(last_failure_at) AS last_failure_at, min(duration_min) AS duration_min,
         max(duration_max) AS duration_max
  FROM days GROUP BY b, server, shard
), slots AS (
  SELECT b, server, shard, u.i::integer AS slot, sum(u.x)::bigint AS n
  FROM days, unnest(histogram) WITH ORDINALITY AS u(x, i)
  WHERE u.x <> 0
  GROUP BY b, server, shard, u.i
), histograms AS (
  SELECT b, server, shard, histogram_of(array_agg(slot), array_agg(n)) AS histogram FROM slots GROUP BY b, server, shard
)
INSERT INTO health_rollup
  (level, bucket_start, server, shard, ok, failed, cancelled, not_counted, answered, last_failure_at, duration_min, duration_max, histogram)
SELECT 5, c.b, c.server, c.shard, c.ok, c.failed, c.cancelled, c.not_counted, c.answered, c.last_failure_at, c.duration_min,
       c.duration_max, coalesce(h.histogram, array_fill(0, ARRAY[${SLOTS}]))
FROM counts c LEFT JOIN histograms h USING (b, server, shard);
INSERT INTO health_causes (level, bucket_start, server, shard, cause, calls)
SELECT 5, bucket_start(bucket_start, 2764800000), server, shard, cause, sum(calls)
FROM health_causes WHERE level = 4 GROUP BY 2, 3, 4, 5;
${rollupAddRuns(LEVELS_SQL_V8)}
`;

/**
 * Version 9: the calls on the wire of each run, kept by appends (appendStatement.ts) so that a
 * running run's open calls are read without reading the run. States: 0 open (at its start's
 * sequence), 1 its end came before its start, 2 both came in that order (the same as no row).
 * Rows are deleted as calls end: vacuumed with health_pending, like it.
 */
const V9_OPEN_CALLS = `
CREATE TABLE open_calls (
  run_id uuid NOT NULL,
  call_id text NOT NULL,
  sequence integer NOT NULL,
  state smallint NOT NULL,
  PRIMARY KEY (run_id, call_id)
) WITH (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 4096);
`;

/**
 * Every migration, in order. The newest version is the schema this code writes.
 *
 * @internal
 */
export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = Object.freeze([
  {
    version: 1,
    name: 'runs and steps',
    async up(client: PoolClient): Promise<void> {
      await client.query(V1);
    },
  },
  {
    version: 2,
    name: 'tool columns, run counters, server health rollup',
    async up(client: PoolClient): Promise<void> {
      await client.query(V2_COLUMNS);
      await backfillLegacySteps(client);
      await client.query(V2_ROLLUP);
    },
  },
  {
    version: 3,
    name: 'runs.unstored_steps: steps the recorder could not store, counted on the run',
    async up(client: PoolClient): Promise<void> {
      await client.query('ALTER TABLE runs ADD COLUMN unstored_steps integer NOT NULL DEFAULT 0');
    },
  },
  {
    version: 4,
    name: 'steps.call_cause / call_answered / call_counted; health rollup of answered-call latency, not-counted failures and failures by cause, rebuilt from the steps',
    async up(client: PoolClient): Promise<void> {
      await client.query(V4_COLUMNS);
      await backfillCallCounting(client);
      await client.query(V4_ROLLUP);
    },
  },
  {
    version: 5,
    name: 'runs list filters at fleet size: runs by status and runs with failed / cancelled calls, newest first',
    async up(client: PoolClient): Promise<void> {
      // Without them a filter scanned runs_created and kept the matching rows: fine while matches are
      // dense, but a rare combination (status=interrupted with cancelled calls: 34 of 100 000 runs)
      // read every run (43 ms at 100 000 runs, growing with the fleet).
      await client.query(`
CREATE INDEX runs_status_created ON runs (status, created_at DESC, id DESC);
CREATE INDEX runs_failed_created ON runs (created_at DESC, id DESC) WHERE failed_count > 0;
CREATE INDEX runs_cancelled_created ON runs (created_at DESC, id DESC) WHERE cancelled_count > 0;`);
    },
  },
  {
    version: 6,
    name: 'retention: runs.pruned_at (a run a prune hid while it deletes its steps in chunks), runs by end time',
    async up(client: PoolClient): Promise<void> {
      await client.query(V6_RETENTION);
    },
  },
  {
    version: 7,
    name: 'health_pending: tool calls appended but not yet in the health rollup, moved in in batches and counted by health reads meanwhile',
    async up(client: PoolClient): Promise<void> {
      await client.query(V7_PENDING);
    },
  },
  {
    version: 8,
    name: 'health rollup level of 32 days, summed from the day rows: a window of a year reads about 11 of them instead of 365 days',
    async up(client: PoolClient): Promise<void> {
      await client.query(V8_LEVEL);
    },
  },
  {
    version: 9,
    name: 'open_calls: the calls on the wire of each run, kept by appends, so that a running run’s open calls are read without reading the run',
    async up(client: PoolClient): Promise<void> {
      await client.query(V9_OPEN_CALLS);
      await backfillOpenCalls(client);
    },
  },
  {
    version: 10,
    name: 'runs.late_finish_status / late_finish_at: a final status that arrived after the run had ended (recovery marked it interrupted meanwhile), kept beside how it ended',
    async up(client: PoolClient): Promise<void> {
      await client.query(
        'ALTER TABLE runs ADD COLUMN IF NOT EXISTS late_finish_status text, ADD COLUMN IF NOT EXISTS late_finish_at bigint',
      );
    },
  },
  {
    version: 11,
    name: 'runs.title: the readable title the recorder gave the run (null for a run without one, and for every run before this version)',
    async up(client: PoolClient): Promise<void> {
      await client.query('ALTER TABLE runs ADD COLUMN IF NOT EXISTS title text');
    },
  },
  {
    version: 12,
    name: 'runs.tokens (model tokens of the run, from its llm steps) and steps.call_tool (tool name of an ended call), filled from the steps; indexes for a server’s calls newest first and the server / tool filters of the runs list',
    up: addSearchColumns,
  },
  {
    version: 13,
    name: 'steps_call_server_trouble: one server’s failed and cancelled calls newest first, what a server page lists, without reading its ok calls',
    async up(client: PoolClient): Promise<void> {
      // Without it the listing of a server's failed calls read that server's calls backwards and kept
      // the failed ones: at a failure rate of a few percent, tens of index entries and their runs read
      // for each call listed (p95 119 ms for a page of 50 at 10M steps).
      await client.query(`
CREATE INDEX IF NOT EXISTS steps_call_server_trouble ON steps (call_server, call_outcome, created_at, run_id, sequence)
  INCLUDE (duration_ms, call_tool, call_cause)
  WHERE call_server IS NOT NULL AND call_outcome IN ('failed', 'cancelled');`);
    },
  },
  {
    version: 14,
    name: 'runs_title_trgm: the searched run titles in a pg_trgm GIN index, so that a title search reads the matching runs, not every title',
    up: addTitleSearchIndex,
  },
  {
    version: 15,
    name: "runs.termination_kind and termination_facts: how a run ended as data (its sentence is composed when shown); every ended run's prose read into them, termination_reason keeping only words the sentence would not repeat",
    up: addTerminationData,
  },
  {
    version: 16,
    name: 'runs.cancel_from, cancel_by and cancel_reason: who asked for the first cancel, from where and why (null for a run cancelled before this version)',
    async up(client: PoolClient): Promise<void> {
      await client.query(
        'ALTER TABLE runs ADD COLUMN IF NOT EXISTS cancel_from text, ADD COLUMN IF NOT EXISTS cancel_by text, ADD COLUMN IF NOT EXISTS cancel_reason text',
      );
    },
  },
  {
    version: 17,
    name: "tool_rollup and tool_causes: each server and tool's calls by outcome and cause, answered calls per Prometheus bucket and their summed duration, per rollup level; health_pending.tool",
    up: addToolRollup,
  },
]);

/**
 * The schema version this code writes.
 *
 * @internal
 */
export const POSTGRES_SCHEMA_VERSION: number = POSTGRES_MIGRATIONS[POSTGRES_MIGRATIONS.length - 1]!.version;
