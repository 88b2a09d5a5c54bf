// Finding runs in the SQLite store (SearchingRunStore's reads beside listRuns): the totals of a
// listing's filters, one server's ended calls and runs by the start of their id, each one
// statement, run by the store inside its read path on queries it has checked.
import type { NormalizedRunTotalsQuery, NormalizedToolCallQuery, RunTotals, StoredToolCall, ToolCallPage } from '@runledger/trace/store';
import { runTotalsOf, toolCallPageOf } from '@runledger/trace/store';
import type Database from 'better-sqlite3';
import { listToolCallsStatement } from './listToolCallsStatement.js';
import { runTotalsStatement } from './runTotalsStatement.js';

/**
 * The search reads of a SqliteRunStore over its cached prepared statements.
 *
 * @internal
 */
export class SqliteRunSearch {
  readonly #stmt: (sql: string) => Database.Statement;

  constructor(stmt: (sql: string) => Database.Statement) {
    this.#stmt = stmt;
  }

  /** How many runs a listing with these filters holds and the tokens they used: one count over the listing's own conditions, of `upTo` runs at most. */
  runTotals({ filters, upTo }: NormalizedRunTotalsQuery): RunTotals {
    const statement = runTotalsStatement(filters, upTo);
    if (statement === null) return { runs: 0, tokens: 0, complete: true };
    return runTotalsOf(this.#stmt(statement.sql).get(...statement.params) as { runs: number; tokens: number; fewest: number | null }, upTo);
  }

  /** A page of one server's ended tool calls, newest first, by keyset over the server's calls of each outcome (steps_server_calls). */
  listToolCalls(q: NormalizedToolCallQuery): ToolCallPage {
    const statement = listToolCallsStatement(q);
    return toolCallPageOf(this.#stmt(statement.sql).all(...statement.params) as StoredToolCall[], q.limit);
  }

  /** The ids of the runs whose id starts with `prefix` (checked, lower case), ascending: one range of the primary key (ids hold only 0-9, a-f and '-', all below 'g'). */
  findRunIdsByPrefix(prefix: string, limit: number): string[] {
    return this.#stmt('SELECT id FROM runs WHERE id >= ? AND id < ? ORDER BY id LIMIT ?')
      .pluck()
      .all(prefix, `${prefix}g`, limit) as string[];
  }
}
