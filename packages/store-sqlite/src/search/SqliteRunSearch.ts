// Finding runs in the SQLite store (SearchingRunStore's reads beside listRuns): the totals of a
// listing's filters, one server's ended calls and runs by the start of their id, each one
// statement, run by the store inside its read path on queries it has checked.
import type {
  NormalizedRunQuery,
  NormalizedRunTotalsQuery,
  NormalizedToolCallQuery,
  RunPage,
  RunTotals,
  StoredRunRow,
  StoredToolCall,
  ToolCallPage,
} from '@runledger/trace/store';
import { runPageOf, runTotalsOf, toolCallPageOf } from '@runledger/trace/store';
import type Database from 'better-sqlite3';
import { listRunsStatement } from './listRunsStatement.js';
import { TITLE_INDEX_MIN_LENGTH, TITLE_INDEX_MOST_MATCHES, titlePhrase } from '../schema/titleSearch.js';
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

  /** A page of runs, newest first, by keyset on (created_at, id) over indexes for status and configuration (and titles: {@link SqliteRunSearch.titleIndexed}). */
  listRuns(q: NormalizedRunQuery): RunPage {
    const statement = listRunsStatement(q, this.titleIndexed(q));
    if (statement === null) return { runs: [], nextCursor: null };
    return runPageOf(this.#stmt(statement.sql).all(...statement.params) as StoredRunRow[], q.limit);
  }

  /**
   * Whether a title search reads the runs the trigram index runs_title finds: for a text of three
   * characters or more that fewer than {@link TITLE_INDEX_MOST_MATCHES} titles may hold (one probe
   * of the index, stopped there). A commoner text is looked for newest first without it: a page
   * fills after a few runs, and capped totals stop at `upTo`, where reading all its matches from
   * the index and sorting them would cost more.
   */
  titleIndexed(q: NormalizedRunQuery): boolean {
    const text = q.titleContains;
    // the characters of the first 6 UTF-16 units: 3 or more exactly when the text has 3 or more
    if (text === null || [...text.slice(0, TITLE_INDEX_MIN_LENGTH * 2)].length < TITLE_INDEX_MIN_LENGTH) return false;
    const probe = this.#stmt('SELECT count(*) FROM (SELECT 1 FROM runs_title WHERE runs_title MATCH ? LIMIT ?)').pluck();
    return (probe.get(titlePhrase(text), TITLE_INDEX_MOST_MATCHES) as number) < TITLE_INDEX_MOST_MATCHES;
  }

  /** How many runs a listing with these filters holds and the tokens they used: one count over the listing's own conditions, of `upTo` runs at most. */
  runTotals({ filters, upTo }: NormalizedRunTotalsQuery): RunTotals {
    const statement = runTotalsStatement(filters, upTo, this.titleIndexed(filters));
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
