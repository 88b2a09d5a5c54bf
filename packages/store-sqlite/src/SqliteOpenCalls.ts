// The calls on the wire of each run, kept by appends in `open_calls` (schema version 13): what
// OpenCallSet holds for the run, so that readOpenCalls costs the open calls, not the run.
import type { StoredStep } from '@runledger/trace';
import { storedStepReader, type StoredStepRow } from '@runledger/trace/store';
import type Database from 'better-sqlite3';
import { READ_STEP_COLUMNS } from './sqliteRows.js';

/**
 * The states of an `open_calls` row (schema version 13 writes the same numbers): the call is open
 * (at its start's sequence), its end came before its start, or both came in that order (the same
 * as no row; kept rather than deleted so that a start is one statement).
 */
const OPEN = 0;
const ENDED_FIRST = 1;
const CLOSED = 2;

/** Keeps `open_calls` as appends and imports write steps, and reads a run's open calls. @internal */
export class SqliteOpenCalls {
  readonly #start: Database.Statement;
  readonly #close: Database.Statement;
  readonly #endFirst: Database.Statement;
  readonly #read: Database.Statement;
  readonly #forget: Database.Statement;
  readonly #endedFirstOf: Database.Statement;

  constructor(db: Database.Database) {
    // a start opens its call, closes one whose end came first, re-opens a closed one
    this.#start = db.prepare(
      `INSERT INTO open_calls (run_no, call_id, sequence, state) VALUES (?, ?, ?, ${OPEN})
       ON CONFLICT (run_no, call_id) DO UPDATE SET sequence = excluded.sequence,
         state = CASE state WHEN ${ENDED_FIRST} THEN ${CLOSED} ELSE ${OPEN} END`,
    );
    this.#close = db.prepare(`DELETE FROM open_calls WHERE run_no = ? AND call_id = ? AND state = ${OPEN}`);
    this.#endFirst = db.prepare(
      `INSERT INTO open_calls (run_no, call_id, sequence, state) VALUES (?, ?, ?, ${ENDED_FIRST})
       ON CONFLICT (run_no, call_id) DO UPDATE SET state = ${ENDED_FIRST}`,
    );
    this.#read = db.prepare(
      `SELECT ${READ_STEP_COLUMNS} FROM steps
         WHERE id IN (SELECT (run_no << 32) + sequence FROM open_calls WHERE run_no = ? AND state = ${OPEN}) ORDER BY id`,
    );
    this.#forget = db.prepare('DELETE FROM open_calls WHERE run_no = ?');
    this.#endedFirstOf = db.prepare(`SELECT call_id FROM open_calls WHERE run_no = ? AND state = ${ENDED_FIRST}`).pluck();
  }

  /** A step written at `sequence` that starts (`tool_start`) or ends (`tool`) call `callId`. */
  note(runNo: number, kind: string, callId: string, sequence: number): void {
    if (kind === 'tool_start') this.#start.run(runNo, callId, sequence);
    else if (this.#close.run(runNo, callId).changes === 0) this.#endFirst.run(runNo, callId, sequence);
  }

  /** The open calls' start steps of run `runNo` (id `runId`), in sequence order, and the calls whose end came first; call inside a read transaction. */
  read(runNo: number, runId: string): { starts: StoredStep[]; endedFirst: string[] } {
    return {
      starts: (this.#read.all(runNo) as StoredStepRow[]).map(storedStepReader(runId)),
      endedFirst: this.#endedFirstOf.all(runNo) as string[],
    };
  }

  /** Forgets a deleted run's rows (its number may be handed out again). */
  forget(runNo: number): void {
    this.#forget.run(runNo);
  }
}
