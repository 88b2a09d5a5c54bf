// The runs list of a store: the page made of the runs it read past the cursor (a SQL store's rows,
// the in-memory store's runs), one composition of the page and its next cursor for every store.
import type { RunPage, StoredRun } from '@runledger/trace';
import { encodeRunCursor } from './runCursor.js';
import { storedRunOfRow, type StoredRunRow } from './storedRunOfRow.js';

/**
 * The page of `limit` runs made of the rows a store's statement read, newest first (up to
 * `limit + 1`: one row past the page tells that there is a next one), with the cursor of the next
 * page when there is one.
 *
 * @public
 */
export function runPageOf(rows: readonly StoredRunRow[], limit: number): RunPage {
  return pageOfRuns(rows, limit, storedRunOfRow);
}

/**
 * The page of the first `limit` of `found` (newest first, past the cursor; more than `limit` tells
 * that there is a next page), each read with `runOf`, with the cursor of the next page when there is
 * one: {@link runPageOf}'s page, for a store that keeps runs rather than rows.
 *
 * @internal
 */
export function pageOfRuns<T>(found: readonly T[], limit: number, runOf: (item: T) => StoredRun): RunPage {
  const runs = found.slice(0, limit).map(runOf);
  const last = runs[runs.length - 1];
  const nextCursor = found.length > limit && last !== undefined ? encodeRunCursor({ createdAt: last.createdAt, id: last.id }) : null;
  return { runs, nextCursor };
}
