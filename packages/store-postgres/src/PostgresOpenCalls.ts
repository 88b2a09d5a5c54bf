// The calls on the wire of each run, kept in `open_calls` (schema version 9) by the append's own
// statement: what trace's OpenCallSet holds for the run, so that readOpenCalls costs the open
// calls, not the run. States: 0 open (at its start's sequence), 1 its end came before its start,
// 2 both came in that order (the same as no row; kept so that a start is one upsert).
// An end deletes the open row its snapshot sees; one whose statement began before its start
// committed (it waited for the run row) does not see that row, but its upsert does (ON CONFLICT
// reads the newest row) and closes it (state 2) instead of noting an end that came first.
import { storedStepReader, type StoredStepRow } from '@runledger/trace/store';
import { callIdOfStoredStep, OpenCallSet, type OpenCallsRead } from '@runledger/trace';
import type pg from 'pg';
import { STEP_COLUMNS } from './postgresRows.js';
import { timedQuery } from './postgresConnections.js';
import { storageFailure } from './storageFailure.js';

/** What a fold of a run's steps holds of an open call. */
export interface HeldCall {
  readonly sequence: number;
  readonly callId: string;
}

/** Folds the steps of one run (in sequence order) into an OpenCallSet, as appends keep open_calls. */
export function foldOpenCalls(
  steps: Iterable<{ sequence: number; kind: string; payload: string }>,
  calls = new OpenCallSet<HeldCall>(),
): OpenCallSet<HeldCall> {
  for (const step of steps) {
    const callId = callIdOfStoredStep(step);
    if (callId === null) continue;
    if (step.kind === 'tool_start') calls.start(callId, step.sequence, { sequence: step.sequence, callId });
    else calls.end(callId);
  }
  return calls;
}

/** Writes what a fold of run `runId`'s steps holds into `table` (open_calls, qualified or not); returns the rows written. */
export async function insertOpenCalls(client: pg.ClientBase, table: string, runId: string, calls: OpenCallSet<HeldCall>): Promise<number> {
  const open = calls.values();
  const ended = calls.endedFirst();
  if (open.length + ended.length === 0) return 0;
  await client.query(
    `INSERT INTO ${table} (run_id, call_id, sequence, state)
     SELECT $1::uuid, u.call_id, u.sequence, u.state FROM unnest($2::text[], $3::integer[], $4::smallint[]) AS u(call_id, sequence, state)`,
    [
      runId,
      [...open.map((call) => call.callId), ...ended],
      [...open.map((call) => call.sequence), ...ended.map(() => 0)],
      [...open.map(() => 0), ...ended.map(() => 1)],
    ],
  );
  return open.length + ended.length;
}

/**
 * The CTEs of one append ({@link appendStatement}) that note the call its step starts or ends:
 * `$2` the kind, `$15` the call id (null: none), `run` the bumped run row (none when refused).
 */
export function openCallsWrite(q: string): string {
  return `opened AS (
  INSERT INTO ${q}.open_calls AS o (run_id, call_id, sequence, state)
  SELECT $1::uuid, $15::text, run.sequence, 0 FROM run WHERE $2::text = 'tool_start' AND $15::text IS NOT NULL
  ON CONFLICT (run_id, call_id) DO UPDATE SET sequence = EXCLUDED.sequence, state = CASE o.state WHEN 1 THEN 2 ELSE 0 END
), closed AS (
  DELETE FROM ${q}.open_calls o USING run
  WHERE $2::text = 'tool' AND o.run_id = $1::uuid AND o.call_id = $15::text AND o.state = 0
  RETURNING o.run_id
), ended_first AS (
  INSERT INTO ${q}.open_calls AS o (run_id, call_id, sequence, state)
  SELECT $1::uuid, $15::text, run.sequence, 1 FROM run
  WHERE $2::text = 'tool' AND $15::text IS NOT NULL AND NOT EXISTS (SELECT 1 FROM closed)
  ON CONFLICT (run_id, call_id) DO UPDATE SET state = CASE o.state WHEN 0 THEN 2 ELSE 1 END
)`;
}

/**
 * The same for a batch ({@link appendBatchStatement}): `input` the appends (`kind`, `call_id`,
 * `ord`), `run` the bumped rows by `ord`. A batch holds at most one append per run, so no two of
 * its rows meet the same call.
 */
export function openCallsBatchWrite(q: string): string {
  return `opened AS (
  INSERT INTO ${q}.open_calls AS o (run_id, call_id, sequence, state)
  SELECT i.run_id, i.call_id, run.sequence, 0 FROM input i JOIN run ON run.ord = i.ord
  WHERE i.kind = 'tool_start' AND i.call_id IS NOT NULL
  ON CONFLICT (run_id, call_id) DO UPDATE SET sequence = EXCLUDED.sequence, state = CASE o.state WHEN 1 THEN 2 ELSE 0 END
), closed AS (
  DELETE FROM ${q}.open_calls o USING input i JOIN run ON run.ord = i.ord
  WHERE i.kind = 'tool' AND o.run_id = i.run_id AND o.call_id = i.call_id AND o.state = 0
  RETURNING o.run_id
), ended_first AS (
  INSERT INTO ${q}.open_calls AS o (run_id, call_id, sequence, state)
  SELECT i.run_id, i.call_id, run.sequence, 1 FROM input i JOIN run ON run.ord = i.ord
  WHERE i.kind = 'tool' AND i.call_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM closed c WHERE c.run_id = i.run_id)
  ON CONFLICT (run_id, call_id) DO UPDATE SET state = CASE o.state WHEN 0 THEN 2 ELSE 1 END
)`;
}

/**
 * A run's step count, its open calls' start steps and the calls whose end came first, in one
 * statement (one snapshot): a row per open call (state 0, with its step) or early end (state 1,
 * no step), or one row with a null state when there are neither; no row when there is no such
 * run or a prune hid it.
 */
export function readOpenCallsStatement(q: string): string {
  const columns = STEP_COLUMNS.split(', ')
    .map((column) => `s.${column}`)
    .join(', ');
  return `SELECT r.next_sequence AS read_to, o.state, o.call_id, ${columns}
FROM ${q}.runs r
LEFT JOIN ${q}.open_calls o ON o.run_id = r.id AND o.state IN (0, 1)
LEFT JOIN ${q}.steps s ON o.state = 0 AND s.run_id = o.run_id AND s.sequence = o.sequence
WHERE r.id = $1::uuid AND r.pruned_at IS NULL
ORDER BY o.sequence`;
}

/** Runs {@link readOpenCallsStatement} (its `text`) for a run: its open calls' starts, its step count and the ends that came first, or null. */
export async function readOpenCallsOf(pool: pg.Pool, text: string, runId: string, timeoutMs: number): Promise<OpenCallsRead | null> {
  type Row = StoredStepRow & { read_to: number; state: number | null; call_id: string | null };
  let rows: Row[];
  try {
    rows = (await pool.query<Row>(timedQuery(text, [runId], timeoutMs))).rows;
  } catch (error) {
    throw storageFailure('readOpenCalls', error, timeoutMs);
  }
  const first = rows[0];
  if (first === undefined) return null;
  return {
    starts: rows.filter((row) => row.state === 0).map(storedStepReader(runId)),
    readTo: first.read_to,
    endedFirst: rows
      .filter((row) => row.state === 1)
      .map((row) => row.call_id!)
      .sort(),
  };
}
