import type { ToolOutcome } from '@runledger/core';
import type Database from 'better-sqlite3';
import type { SqliteHealthWriter } from './SqliteHealthWriter.js';
import { type CallRow, RollupDeltas } from './SqliteRollupDeltas.js';

/** Pending calls a store lets gather before it moves them into the rollup (SqliteRunStore). */
export const ROLL_PENDING_AT = 4096;

/**
 * The tool calls appended but not yet in the server-health rollup (`health_pending`, schema
 * version 11, the call columns of their steps): an append notes its call here, in its own
 * transaction; {@link SqliteHealthPending.roll} moves them all into the rollup in one.
 *
 * @remarks
 * A tool call is counted exactly once, in the rollup or here: a health read adds the pending
 * calls in the same snapshot as the rollup (SqliteHealthReader), and a
 * prune moves them in before it takes deleted calls out (SqlitePrune). This keeps the rollup off
 * the append's path: an append writes one narrow row instead of a rollup row at every level (each
 * rewritten with its 114 histogram slots), and a roll of a thousand calls over twenty servers
 * updates about a hundred rows, once each. Any process may roll; a process that dies leaves its
 * pending calls for the next roll, counted meanwhile.
 *
 * @internal
 */
export class SqliteHealthPending {
  readonly #pend: Database.Statement;
  readonly #calls: Database.Statement;
  readonly #count: Database.Statement;
  readonly #clear: Database.Statement;
  readonly #writer: SqliteHealthWriter;

  constructor(db: Database.Database, writer: SqliteHealthWriter) {
    this.#writer = writer;
    this.#pend = db.prepare('INSERT INTO health_pending (server, outcome, duration_ms, created_at, cause) VALUES (?, ?, ?, ?, ?)');
    this.#calls = db.prepare('SELECT server, outcome, duration_ms, created_at, cause FROM health_pending').raw();
    this.#count = db.prepare('SELECT count(*) FROM health_pending').pluck();
    this.#clear = db.prepare('DELETE FROM health_pending');
  }

  /** Notes a tool call as pending (its step's call columns); inside the transaction that inserts the step. */
  pend(server: string, outcome: ToolOutcome, durationMs: number, createdAt: number, cause: string | null): void {
    this.#pend.run(server, outcome, durationMs, createdAt, cause);
  }

  /** The pending calls, as the steps' call columns (a health read counts them). */
  calls(): CallRow[] {
    return this.#calls.all() as CallRow[];
  }

  /** How many calls are pending. */
  count(): number {
    return this.#count.get() as number;
  }

  /** Moves every pending call into the rollup; inside a write transaction. Returns how many moved. */
  roll(): number {
    const deltas = new RollupDeltas();
    let calls = 0;
    for (const row of this.#calls.iterate() as Iterable<CallRow>) {
      deltas.addRow(row);
      calls++;
    }
    if (calls === 0) return 0;
    this.#writer.add(deltas);
    this.#clear.run();
    return calls;
  }
}
