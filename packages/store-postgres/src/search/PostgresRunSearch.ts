// Finding runs in the PostgreSQL store (the sibling of store-sqlite's SqliteRunSearch): a page of
// the runs list, the totals of a listing's filters, one server's ended calls and runs by the start
// of their id, each one statement.
import type { RunPage, RunQuery, RunStoreError, RunTotals, RunTotalsQuery, ToolCallPage, ToolCallQuery } from '@runledger/trace';
import {
  checkRunIdPrefix,
  checkRunQuery,
  checkRunTotalsQuery,
  checkToolCallQuery,
  runPageOf,
  runTotalsOf,
  type StoredRunRow,
  toolCallPageOf,
} from '@runledger/trace/store';
import type pg from 'pg';
import type { PostgresAccess } from '../PostgresAccess.js';
import { listRunsStatement, runTotalsStatement } from './listRunsStatement.js';
import { listToolCallsStatement, storedToolCallOfRow, type ToolCallRow } from './listToolCallsStatement.js';
import { runIdsByPrefixStatement } from './runIdsByPrefixStatement.js';

/**
 * The search reads of a PostgresRunStore, run through the store's timed queries and reported as its
 * storage failures; each refused once the store is closed.
 *
 * @internal
 */
export class PostgresRunSearch {
  readonly #access: PostgresAccess;
  readonly #q: string;

  constructor(access: PostgresAccess) {
    this.#access = access;
    this.#q = access.q;
  }

  /** A page of runs, newest first, with keyset paging. */
  async listRuns(query?: RunQuery): Promise<RunPage> {
    this.#access.open();
    const q = checkRunQuery(query);
    const statement = listRunsStatement(q, this.#q);
    let rows: StoredRunRow[];
    try {
      rows = (await this.#query<StoredRunRow>(statement.sql, statement.values)).rows;
    } catch (error) {
      throw this.#failure('listRuns', error);
    }
    return runPageOf(rows, q.limit);
  }

  /** How many runs a listing with these filters holds and the sum of their tokens (its cursor and limit are not applied); with `upTo`, of `upTo` runs at most. */
  async runTotals(query?: RunTotalsQuery): Promise<RunTotals> {
    this.#access.open();
    const { filters, upTo } = checkRunTotalsQuery(query);
    const statement = runTotalsStatement(filters, this.#q, upTo);
    let row: { runs: number; tokens: number; fewest: number | null };
    try {
      row = (await this.#query<typeof row>(statement.sql, statement.values)).rows[0]!;
    } catch (error) {
      throw this.#failure('runTotals', error);
    }
    return runTotalsOf(row, upTo);
  }

  /** One server's ended tool calls, newest first, keyset-paged over the server's part of `steps_call_server`. */
  async listToolCalls(query: ToolCallQuery): Promise<ToolCallPage> {
    this.#access.open();
    const q = checkToolCallQuery(query);
    const statement = listToolCallsStatement(q, this.#q);
    let rows: ToolCallRow[];
    try {
      rows = (await this.#query<ToolCallRow>(statement.sql, statement.values)).rows;
    } catch (error) {
      throw this.#failure('listToolCalls', error);
    }
    return toolCallPageOf(rows.map(storedToolCallOfRow), q.limit);
  }

  /** The ids of the runs whose id starts with `prefix` (any case), ascending: a range of the primary key. */
  async findRunIdsByPrefix(prefix: string, limit?: number): Promise<readonly string[]> {
    this.#access.open();
    const q = checkRunIdPrefix(prefix, limit);
    if (q.prefix === null) return [];
    const statement = runIdsByPrefixStatement(q.prefix, q.limit, this.#q);
    try {
      return (await this.#query<{ id: string }>(statement.sql, statement.values)).rows.map((row) => row.id);
    } catch (error) {
      throw this.#failure('findRunIdsByPrefix', error);
    }
  }

  #query<R extends pg.QueryResultRow>(text: string, values: readonly unknown[]): Promise<pg.QueryResult<R>> {
    return this.#access.timed<R>(text, values);
  }

  #failure(what: string, error: unknown): RunStoreError {
    return this.#access.failure(what, error);
  }
}
