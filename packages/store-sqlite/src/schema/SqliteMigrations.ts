import type Database from 'better-sqlite3';
import { DURATION_HISTOGRAM_SLOTS, toolCallOf } from '@runledger/trace/store';
import { ROWID_PARTS, STEP_ROWID } from '../sqliteRows.js';
import { backfillCallCauses } from './backfillCallCauses.js';
import { backfillOpenCalls } from './backfillOpenCalls.js';
import { backfillRunTokens } from './backfillRunTokens.js';
import { rebuildHealthRollup } from './rebuildHealthRollup.js';
import { addTerminationData } from './addTerminationData.js';
import { addTitleSearch } from './titleSearch.js';
import { histogramColumnsOf } from './histogramColumnsOf.js';
import { keyRollupTimeFirst } from './keyRollupTimeFirst.js';
import { addToolRollup } from './addToolRollup.js';

/**
 * One numbered, forward-only schema migration; it runs inside its own write transaction.
 *
 * @internal
 */
export interface SqliteMigration {
  readonly version: number;
  readonly name: string;
  /** Runs inside the migration's write transaction. */
  up(db: Database.Database): void;
}

/**
 * The rollup layout of versions 4 to 8, frozen as it was written: 80 histogram columns at a third
 * of an octave, levels of a minute, an hour, a day (level 2) and 32 days. Version 9 rebuilt the
 * rollup in trace's shared layout (durationHistogram.ts, rollupLevels.ts).
 *
 * @internal
 */
export const HISTOGRAM_BUCKETS_V4 = 80;
const DAY_LEVEL_V4 = 2;

const histogramNames = Array.from({ length: HISTOGRAM_BUCKETS_V4 }, (_, k) => `h${k}`).join(', ');
const histogramColumns = histogramColumnsOf(HISTOGRAM_BUCKETS_V4);

/**
 * Every migration in order. Version 1 is the first released schema (steps without the tool
 * columns, payloads with `toolIsError` only); later versions only ever add.
 *
 * @internal
 */
export const SQLITE_MIGRATIONS: readonly SqliteMigration[] = Object.freeze([
  {
    version: 1,
    name: 'runs and steps',
    up(db) {
      db.exec(`
CREATE TABLE runs (
  id TEXT PRIMARY KEY NOT NULL,
  status TEXT NOT NULL,
  configuration TEXT NOT NULL,
  actor TEXT,
  created_at INTEGER NOT NULL,
  started_at INTEGER,
  finished_at INTEGER,
  termination_reason TEXT,
  cancel_requested_at INTEGER
);
CREATE INDEX runs_created ON runs (created_at DESC, id DESC);
CREATE TABLE steps (
  run_id TEXT NOT NULL,
  sequence INTEGER NOT NULL,
  kind TEXT NOT NULL,
  round INTEGER NOT NULL,
  duration_ms REAL NOT NULL,
  payload TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (run_id, sequence)
);`);
    },
  },
  {
    version: 2,
    name: 'steps clustered by run and sequence; tool_server and tool_outcome as recorded; call_server and call_outcome as health counts them, filled in for older rows from their payloads',
    up(db) {
      // Each run gets a number; a step's rowid is (run number << 32) + sequence, so a run's steps
      // sit together in rowid order and reading them is one range scan of the table itself.
      db.exec(`
ALTER TABLE runs ADD COLUMN run_no INTEGER;
UPDATE runs SET run_no = m.n FROM (SELECT id, row_number() OVER (ORDER BY created_at, id) AS n FROM runs) AS m WHERE m.id = runs.id;
CREATE UNIQUE INDEX runs_run_no ON runs (run_no);
CREATE TABLE steps_v2 (
  id INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL,
  sequence INTEGER NOT NULL,
  kind TEXT NOT NULL,
  round INTEGER NOT NULL,
  duration_ms REAL NOT NULL,
  created_at INTEGER NOT NULL,
  payload TEXT NOT NULL,
  tool_server TEXT,
  tool_outcome TEXT,
  call_server TEXT,
  call_outcome TEXT
);
-- steps whose run row is missing cannot get a rowid; they are kept aside, never dropped
CREATE TABLE orphaned_steps_v1 AS SELECT * FROM steps WHERE run_id NOT IN (SELECT id FROM runs);
INSERT INTO steps_v2 (id, run_id, sequence, kind, round, duration_ms, created_at, payload)
  SELECT (runs.run_no << 32) + steps.sequence, steps.run_id, steps.sequence, steps.kind, steps.round, steps.duration_ms,
         steps.created_at, steps.payload
  FROM steps JOIN runs ON runs.id = steps.run_id ORDER BY 1;
DROP TABLE steps;
ALTER TABLE steps_v2 RENAME TO steps;`);
      if ((db.prepare('SELECT count(*) FROM orphaned_steps_v1').pluck().get() as number) === 0) db.exec('DROP TABLE orphaned_steps_v1');
      // a rowid as its run number and sequence: past run number 2^21 it is no exact JS number
      const update = db.prepare(`UPDATE steps SET call_server = ?, call_outcome = ? WHERE id = ${STEP_ROWID}`);
      const rows = db.prepare(`SELECT ${ROWID_PARTS}, kind, payload FROM steps WHERE kind = 'tool'`).raw().all() as [
        number,
        number,
        string,
        unknown,
      ][];
      for (const [runNo, sequence, kind, payload] of rows) {
        const call = toolCallOf({
          kind,
          payload: typeof payload === 'string' ? payload : String(payload),
          toolServer: null,
          toolOutcome: null,
        });
        if (call !== null) update.run(call.server, call.outcome, runNo, sequence);
      }
      db.exec(`
CREATE INDEX steps_calls ON steps (created_at, call_server, call_outcome, duration_ms) WHERE call_server IS NOT NULL;`);
    },
  },
  {
    version: 3,
    name: 'runs.heartbeat_at, step and outcome counters, listing indexes',
    up(db) {
      db.exec(`
ALTER TABLE runs ADD COLUMN heartbeat_at INTEGER;
ALTER TABLE runs ADD COLUMN step_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN ok_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN failed_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN cancelled_count INTEGER NOT NULL DEFAULT 0;
UPDATE runs SET
  step_count = (SELECT count(*) FROM steps WHERE steps.id >= (runs.run_no << 32) AND steps.id < ((runs.run_no + 1) << 32)),
  ok_count = (SELECT count(*) FROM steps WHERE steps.id >= (runs.run_no << 32) AND steps.id < ((runs.run_no + 1) << 32) AND call_outcome = 'ok'),
  failed_count = (SELECT count(*) FROM steps WHERE steps.id >= (runs.run_no << 32) AND steps.id < ((runs.run_no + 1) << 32) AND call_outcome = 'failed'),
  cancelled_count = (SELECT count(*) FROM steps WHERE steps.id >= (runs.run_no << 32) AND steps.id < ((runs.run_no + 1) << 32) AND call_outcome = 'cancelled');
CREATE INDEX runs_status_created ON runs (status, created_at DESC, id DESC);
CREATE INDEX runs_configuration_created ON runs (configuration, created_at DESC, id DESC);`);
    },
  },
  {
    version: 4,
    name: 'server-health rollup per server and minute, hour, day and 32 days',
    up(db) {
      db.exec(`
CREATE TABLE health_rollup (
  level INTEGER NOT NULL,
  bucket_start INTEGER NOT NULL,
  server TEXT NOT NULL,
  ok INTEGER NOT NULL DEFAULT 0,
  failed INTEGER NOT NULL DEFAULT 0,
  cancelled INTEGER NOT NULL DEFAULT 0,
  last_failure_at INTEGER,
  min_ms REAL NOT NULL,
  max_ms REAL NOT NULL,
  ${histogramColumns},
  PRIMARY KEY (level, server, bucket_start)
) WITHOUT ROWID;`);
      // Left empty: migration 9 rebuilds the rollup from the steps, so filling it here would be
      // work thrown away.
    },
  },
  {
    version: 5,
    name: 'health rollup keyed by (server, level, bucket_start): the rows one call updates sit on one or two pages',
    up(db) {
      // An append updates one row per level for its server. Keyed by level first, those four rows
      // sat in four parts of the b-tree (four pages to the WAL per step); keyed by server first,
      // a server's newest minute, hour, day and 32 days are neighbours.
      db.exec(`
CREATE TABLE health_rollup_v5 (
  server TEXT NOT NULL,
  level INTEGER NOT NULL,
  bucket_start INTEGER NOT NULL,
  ok INTEGER NOT NULL DEFAULT 0,
  failed INTEGER NOT NULL DEFAULT 0,
  cancelled INTEGER NOT NULL DEFAULT 0,
  last_failure_at INTEGER,
  min_ms REAL NOT NULL,
  max_ms REAL NOT NULL,
  ${histogramColumns},
  PRIMARY KEY (server, level, bucket_start)
) WITHOUT ROWID;
INSERT INTO health_rollup_v5 (server, level, bucket_start, ok, failed, cancelled, last_failure_at, min_ms, max_ms, ${histogramNames})
  SELECT server, level, bucket_start, ok, failed, cancelled, last_failure_at, min_ms, max_ms, ${histogramNames}
  FROM health_rollup ORDER BY server, level, bucket_start;
DROP TABLE health_rollup;
ALTER TABLE health_rollup_v5 RENAME TO health_rollup;`);
    },
  },
  {
    version: 6,
    name: 'health_servers: the first and last day each server was called, so a health read visits only the servers of its window',
    up(db) {
      // Without it a health read visited every server the rollup ever held, once per range of
      // its window: with thousands of servers from long ago, a one-hour window cost 35+ ms.
      db.exec(`
CREATE TABLE health_servers (
  server TEXT PRIMARY KEY NOT NULL,
  first_day INTEGER NOT NULL,
  last_day INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO health_servers (server, first_day, last_day)
  SELECT server, min(bucket_start), max(bucket_start) FROM health_rollup WHERE level = ${DAY_LEVEL_V4} GROUP BY server;`);
    },
  },
  {
    version: 7,
    name: 'runs.unstored_steps: how many steps of a run the recorder could not store (a counted loss, never a silent one)',
    up(db) {
      db.exec('ALTER TABLE runs ADD COLUMN unstored_steps INTEGER NOT NULL DEFAULT 0;');
    },
  },
  {
    version: 8,
    name: 'steps.call_cause (why a failed call failed); health rollup rebuilt from the steps: latency over answered calls only, invalid-argument calls kept out of the failure rate, failures by cause',
    up(db) {
      // Before: the histogram and min/max held every call, cancelled ones and calls that never got
      // an answer included, and every failure counted in the failure rate. The rollup cannot be
      // corrected in place (it does not know which duration was which), so it is made again from
      // the steps — by version 9, which rebuilds it in the shared layout anyway; this version
      // fills in the causes the rebuild reads and leaves the rollup empty.
      db.exec(`
ALTER TABLE steps ADD COLUMN call_cause TEXT;
DROP INDEX steps_calls;
CREATE INDEX steps_calls ON steps (created_at, call_server, call_outcome, duration_ms, call_cause) WHERE call_server IS NOT NULL;
DROP TABLE health_rollup;
CREATE TABLE health_rollup (
  server TEXT NOT NULL,
  level INTEGER NOT NULL,
  bucket_start INTEGER NOT NULL,
  ok INTEGER NOT NULL DEFAULT 0,
  failed INTEGER NOT NULL DEFAULT 0,
  cancelled INTEGER NOT NULL DEFAULT 0,
  not_counted INTEGER NOT NULL DEFAULT 0,
  answered INTEGER NOT NULL DEFAULT 0,
  last_failure_at INTEGER,
  min_ms REAL,
  max_ms REAL,
  ${histogramColumns},
  PRIMARY KEY (server, level, bucket_start)
) WITHOUT ROWID;
CREATE TABLE health_causes (
  server TEXT NOT NULL,
  level INTEGER NOT NULL,
  bucket_start INTEGER NOT NULL,
  cause TEXT NOT NULL,
  calls INTEGER NOT NULL,
  PRIMARY KEY (server, level, bucket_start, cause)
) WITHOUT ROWID;
DELETE FROM health_servers;`);
      backfillCallCauses(db);
    },
  },
  {
    version: 9,
    name: "health rollup rebuilt from the steps in trace's shared layout: 114 quarter-octave histogram slots; levels of 1 min, 10 min, 1 h, 6 h and 1 day",
    up(db) {
      // The old rollup cannot be converted (a third-octave bucket straddles quarter-octave slots),
      // so it is made again from the steps, the source of truth, through the writer appends use,
      // in bounded batches (REBUILD_BATCH steps, keyset by rowid): memory stays flat on any table.
      db.exec(`
DROP TABLE health_rollup;
DROP TABLE health_causes;
CREATE TABLE health_rollup (
  server TEXT NOT NULL,
  level INTEGER NOT NULL,
  bucket_start INTEGER NOT NULL,
  ok INTEGER NOT NULL DEFAULT 0,
  failed INTEGER NOT NULL DEFAULT 0,
  cancelled INTEGER NOT NULL DEFAULT 0,
  not_counted INTEGER NOT NULL DEFAULT 0,
  answered INTEGER NOT NULL DEFAULT 0,
  last_failure_at INTEGER,
  min_ms REAL,
  max_ms REAL,
  ${histogramColumnsOf(DURATION_HISTOGRAM_SLOTS)},
  PRIMARY KEY (server, level, bucket_start)
) WITHOUT ROWID;
CREATE TABLE health_causes (
  server TEXT NOT NULL,
  level INTEGER NOT NULL,
  bucket_start INTEGER NOT NULL,
  cause TEXT NOT NULL,
  calls INTEGER NOT NULL,
  PRIMARY KEY (server, level, bucket_start, cause)
) WITHOUT ROWID;
DELETE FROM health_servers;`);
      rebuildHealthRollup(db);
    },
  },
  {
    version: 10,
    name: 'runs list filters at fleet size: runs with failed / cancelled calls, newest first',
    up(db) {
      // runs_status_created (version 3) serves the status filter; without these the "has failed /
      // has cancelled calls" filters scanned runs_created and kept the matching rows, reading every
      // run when few match.
      db.exec(`
CREATE INDEX runs_failed_created ON runs (created_at DESC, id DESC) WHERE failed_count > 0;
CREATE INDEX runs_cancelled_created ON runs (created_at DESC, id DESC) WHERE cancelled_count > 0;`);
    },
  },
  {
    version: 11,
    name: 'health_pending: tool calls appended but not yet in the health rollup, moved in in batches and counted by health reads meanwhile',
    up(db) {
      // an append notes its call here (its step's call columns) instead of updating a rollup row
      // at every level (SqliteHealthPending); every call before this version is in the rollup already
      db.exec(`
CREATE TABLE health_pending (
  id INTEGER PRIMARY KEY,
  server TEXT NOT NULL,
  outcome TEXT NOT NULL,
  duration_ms REAL NOT NULL,
  created_at INTEGER NOT NULL,
  cause TEXT
)`);
    },
  },
  {
    version: 12,
    name: 'health rollup level of 32 days, summed from the day rows: a window of a year reads about 11 of them instead of 365 days',
    up(db) {
      // the day level and the new one as they were when this was written (trace's rollupLevels.ts since)
      const day = 4;
      const level = 5;
      const size = 2_764_800_000;
      const start = `bucket_start - (((bucket_start % ${size}) + ${size}) % ${size})`;
      const slots = Array.from({ length: DURATION_HISTOGRAM_SLOTS }, (_, k) => `h${k}`);
      db.exec(`
DELETE FROM health_rollup WHERE level = ${level};
DELETE FROM health_causes WHERE level = ${level};
INSERT INTO health_rollup (server, level, bucket_start, ok, failed, cancelled, not_counted, answered, last_failure_at, min_ms, max_ms, ${slots.join(', ')})
SELECT server, ${level}, ${start}, sum(ok), sum(failed), sum(cancelled), sum(not_counted), sum(answered), max(last_failure_at),
       min(min_ms), max(max_ms), ${slots.map((h) => `sum(${h})`).join(', ')}
FROM health_rollup WHERE level = ${day} GROUP BY server, ${start};
INSERT INTO health_causes (server, level, bucket_start, cause, calls)
SELECT server, ${level}, ${start}, cause, sum(calls) FROM health_causes WHERE level = ${day} GROUP BY server, ${start}, cause;`);
    },
  },
  {
    version: 13,
    name: 'open_calls: the calls on the wire of each run, kept by appends, so that a running run’s open calls are read without reading the run',
    up(db) {
      // states: 0 open (at its start's sequence), 1 its end came first, 2 both came in that order
      // (SqliteOpenCalls keeps them from now on); filled in here by folding every run's call steps
      // in sequence order, as trace's OpenCallSet does (not those of runs a prune already hid: a
      // run number can be handed out again)
      db.exec(`
CREATE TABLE open_calls (
  run_no INTEGER NOT NULL,
  call_id TEXT NOT NULL,
  sequence INTEGER NOT NULL,
  state INTEGER NOT NULL,
  PRIMARY KEY (run_no, call_id)
) WITHOUT ROWID`);
      backfillOpenCalls(db);
    },
  },
  {
    version: 14,
    name: 'health rollup and causes keyed time first (level, bucket_start, server): the calls of one batch or one prune transaction dirty a few pages per level, not one per server',
    up: keyRollupTimeFirst,
  },
  {
    version: 15,
    name: 'run_counter: the last run number handed out, so that a number is never handed out again while rows of its old run remain',
    up(db) {
      // A new run used to get one past the highest number in runs. A prune hides a big run (its
      // row goes first, its steps in chunks after); with a second prune deleting the newest run
      // meanwhile, the next run got the hidden run's number and its steps as its own. The counter
      // starts above every number any table still holds and only ever grows: the trigger moves it
      // on with every run inserted, by any path or process. Written to run again over its own
      // result (tests lay a file out as an older version and migrate it again).
      db.exec(`
CREATE TABLE IF NOT EXISTS run_counter (last_run_no INTEGER NOT NULL);
INSERT INTO run_counter (last_run_no) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM run_counter);
UPDATE run_counter SET last_run_no = max(last_run_no,
  coalesce((SELECT max(run_no) FROM runs), 0),
  coalesce((SELECT max(id) >> 32 FROM steps), 0),
  coalesce((SELECT max(run_no) FROM open_calls), 0));
CREATE TRIGGER IF NOT EXISTS runs_count_run_no AFTER INSERT ON runs WHEN NEW.run_no IS NOT NULL BEGIN
  UPDATE run_counter SET last_run_no = NEW.run_no WHERE last_run_no < NEW.run_no;
END;`);
    },
  },
  {
    version: 16,
    name: 'runs.late_finish_status / late_finish_at: a final status that arrived after the run had ended (recovery marked it interrupted meanwhile), kept beside how it ended',
    up(db) {
      // Written to run again over its own result, like version 15.
      const columns = new Set(db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('runs') as string[]);
      if (!columns.has('late_finish_status')) db.exec('ALTER TABLE runs ADD COLUMN late_finish_status TEXT;');
      if (!columns.has('late_finish_at')) db.exec('ALTER TABLE runs ADD COLUMN late_finish_at INTEGER;');
    },
  },
  {
    version: 17,
    name: 'runs.title: the readable title the recorder gave the run (null for a run without one, and for every run before this version)',
    up(db) {
      // Written to run again over its own result, like version 15.
      const columns = new Set(db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('runs') as string[]);
      if (!columns.has('title')) db.exec('ALTER TABLE runs ADD COLUMN title TEXT;');
    },
  },
  {
    version: 18,
    name: "runs.tokens (the model tokens of a run's steps, filled in from its llm steps); indexes for one server's calls newest first and for the runs list's server and tool filters",
    up(db) {
      // Written to run again over its own result, like version 15.
      const columns = new Set(db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('runs') as string[]);
      if (!columns.has('tokens')) db.exec('ALTER TABLE runs ADD COLUMN tokens INTEGER NOT NULL DEFAULT 0;');
      backfillRunTokens(db);
      // steps_server_calls: a server's ended calls of one outcome newest first are one range; the
      // listing of every outcome merges the three ranges (a UNION ALL in index order), so a rare
      // outcome is found without reading the server's other calls, and no server's calls are read
      // for another's. steps_call_servers and steps_call_tools: a run's calls of a server, or of a
      // tool (its payload's toolName when a string; json_valid first, json_extract throws on
      // malformed text), are one range of (key, rowid), the run's steps being one rowid range, so
      // the runs list's filters cost a seek per run, not the run's steps. findRunIdsByPrefix needs
      // none: the primary key on runs.id is a range scan already.
      db.exec(`
CREATE INDEX IF NOT EXISTS steps_server_calls ON steps (call_server, call_outcome, created_at, run_id, sequence) WHERE call_outcome IS NOT NULL;
CREATE INDEX IF NOT EXISTS steps_call_servers ON steps (call_server) WHERE call_outcome IS NOT NULL;
CREATE INDEX IF NOT EXISTS steps_call_tools ON steps ((CASE WHEN json_valid(payload) THEN CASE json_type(payload, '$.toolName') WHEN 'text' THEN json_extract(payload, '$.toolName') END END)) WHERE call_outcome IS NOT NULL;`);
    },
  },
  {
    version: 19,
    name: 'runs_title: the run titles in a trigram full-text index, so that a title search reads the matching runs, not every title',
    up: addTitleSearch,
  },
  {
    version: 20,
    name: "runs.termination_kind and termination_facts: how a run ended as data (its sentence is composed when shown); every ended run's prose read into them, termination_reason keeping only words the sentence would not repeat",
    up: addTerminationData,
  },
  {
    version: 21,
    name: 'runs.cancel_from, cancel_by and cancel_reason: who asked for the first cancel, from where and why (null for a run cancelled before this version)',
    up(db) {
      // Written to run again over its own result, like version 15.
      const columns = new Set(db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('runs') as string[]);
      for (const column of ['cancel_from', 'cancel_by', 'cancel_reason']) {
        if (!columns.has(column)) db.exec(`ALTER TABLE runs ADD COLUMN ${column} TEXT;`);
      }
    },
  },
  {
    version: 22,
    name: "tool_rollup and tool_causes: each server and tool's calls by outcome and cause, answered calls per Prometheus bucket and their summed duration, per rollup level; health_pending.tool",
    up: addToolRollup,
  },
]);

/**
 * The newest schema version this package knows.
 *
 * @internal
 */
export const SQLITE_SCHEMA_VERSION: number = SQLITE_MIGRATIONS.length;
