// The runs list of a SQL store: the page made of the rows its keyset statement read.
import type { RunPage } from './RunStore.js';
import { encodeRunCursor } from './storeInputChecks.js';
import { storedRunOfRow, type StoredRunRow } from './storedRunOfRow.js';

/**
 * The page of `limit` runs made of the rows a store's statement read, newest first (up to
 * `limit + 1`: one row past the page tells that there is a next one), with the cursor of the next
 * page when there is one.
 *
 * @public
 */
export function runPageOf(rows: readonly StoredRunRow[], limit: number): RunPage {
  const runs = rows.slice(0, limit).map(storedRunOfRow);
  const last = runs[runs.length - 1];
  const nextCursor = rows.length > limit && last !== undefined ? encodeRunCursor({ createdAt: last.createdAt, id: last.id }) : null;
  return { runs, nextCursor };
}
