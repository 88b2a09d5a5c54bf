// Finding runs in the SQLite store (the sibling of store-postgres's PostgresRunSearch): a page of
// the runs list, the totals of a listing's filters, one server's ended calls and runs by the start
// of their id, each one statement on the checked query, run in the store's read path.
import type { RunPage, RunQuery, RunTotals, RunTotalsQuery, StoredToolCall, ToolCallPage, ToolCallQuery } from '@runledger/trace';
import {
  checkRunIdPrefix,
  checkRunQuery,
  checkRunTotalsQuery,
  checkToolCallQuery,
  type NormalizedRunQuery,
  runPageOf,
  runTotalsOf,
  type StoredRunRow,
  toolCallPageOf,
} from '@runledger/trace/store';
import type Database from 'better-sqlite3';
import type { SqliteAccess } from '../SqliteAccess.js';
import { listRunsStatement } from './listRunsStatement.js';
import { TITLE_INDEX_MIN_LENGTH, TITLE_INDEX_MOST_MATCHES, titlePhrase } from '../schema/titleSearch.js';
import { listToolCallsStatement } from './listToolCallsStatement.js';
import { runTotalsStatement } from './runTotalsStatement.js';

/**
 * The search reads of a SqliteRunStore over its cached prepared statements, each in the store's
 * read path.
 *
 * @internal
 */
export class SqliteRunSearch {
  readonly #access: SqliteAccess;

  constructor(access: SqliteAccess) {
    this.#access = access;
  }

  /** A page of runs, newest first, by keyset on (created_at, id) over indexes for status and configuration (and titles: {@link SqliteRunSearch.titleIndexed}). */
  async listRuns(query?: RunQuery): Promise<RunPage> {
    const q = checkRunQuery(query);
    return this.#access.read(() => {
      const statement = listRunsStatement(q, this.titleIndexed(q));
      if (statement === null) return { runs: [], nextCursor: null };
      return runPageOf(this.#stmt(statement.sql).all(...statement.params) as StoredRunRow[], q.limit);
    });
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
  async runTotals(query?: RunTotalsQuery): Promise<RunTotals> {
    const { filters, upTo } = checkRunTotalsQuery(query);
    return this.#access.read(() => {
      const statement = runTotalsStatement(filters, upTo, this.titleIndexed(filters));
      if (statement === null) return { runs: 0, tokens: 0, complete: true };
      return runTotalsOf(
        this.#stmt(statement.sql).get(...statement.params) as { runs: number; tokens: number; fewest: number | null },
        upTo,
      );
    });
  }

  /** A page of one server's ended tool calls, newest first, by keyset over the server's calls of each outcome (steps_server_calls). */
  async listToolCalls(query: ToolCallQuery): Promise<ToolCallPage> {
    const q = checkToolCallQuery(query);
    return this.#access.read(() => {
      const statement = listToolCallsStatement(q);
      return toolCallPageOf(this.#stmt(statement.sql).all(...statement.params) as StoredToolCall[], q.limit);
    });
  }

  /** The ids of the runs whose id starts with `prefix` (checked: lower case), ascending: one range of the primary key (ids hold only 0-9, a-f and '-', all below 'g'). */
  async findRunIdsByPrefix(prefix: string, limit?: number): Promise<readonly string[]> {
    const q = checkRunIdPrefix(prefix, limit);
    const from = q.prefix;
    if (from === null) return [];
    return this.#access.read(
      () =>
        this.#stmt('SELECT id FROM runs WHERE id >= ? AND id < ? ORDER BY id LIMIT ?').pluck().all(from, `${from}g`, q.limit) as string[],
    );
  }

  #stmt(sql: string): Database.Statement {
    return this.#access.stmt(sql);
  }
}
