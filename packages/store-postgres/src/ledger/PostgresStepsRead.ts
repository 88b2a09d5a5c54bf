// A run's steps read back, every statement timed (PostgresRunStoreOptions.queryTimeoutMs): a page
// in one statement, a run read whole in pages of one snapshot, so that a connection gone silent
// fails the read instead of holding it, and a long run never makes one statement outlast the timeout.
import type { StoredStep } from '@runledger/trace';
import { storedStepReader, type StoredStepRow } from '@runledger/trace/store';
import type pg from 'pg';
import { timedQuery } from '../postgresConnections.js';
import { STEP_COLUMNS } from '../postgresRows.js';
import { storageFailure } from '../storageFailure.js';
import { withTransaction } from '../withTransaction.js';

/**
 * Steps per statement when a run is read whole (`readSteps` without a limit): at fleet size about
 * 0.1 s a page, far inside any sensible timeout.
 *
 * @internal
 */
export const READ_STEPS_PAGE = 20_000;

/** What reads a run's steps: the store's pool and schema, and how long a statement may wait for its answer. */
export interface StepsReadContext {
  readonly pool: pg.Pool;
  readonly q: string;
  readonly timeoutMs: number;
  /** Steps per statement of a whole-run read (tests lower it). */
  readonly page?: number;
}

/** The statement of one page: none of a run a prune hid (its steps go in chunks), in the page's own snapshot. */
function pageStatement(q: string, limit: number): string {
  return `SELECT ${STEP_COLUMNS} FROM ${q}.steps WHERE run_id = $1 AND sequence >= $2
      AND NOT EXISTS (SELECT 1 FROM ${q}.runs WHERE id = $1 AND pruned_at IS NOT NULL)
    ORDER BY sequence LIMIT ${limit}`;
}

/**
 * A run's steps from `fromSequence` in sequence order, at most `limit` of them (null: all).
 *
 * @remarks
 * Up to {@link READ_STEPS_PAGE} steps are one statement. A longer read (no limit, or a larger one)
 * starts the same way; when there are more than a page, it reads again from `fromSequence` in pages
 * inside one `REPEATABLE READ READ ONLY` transaction, so the steps come from one snapshot (never
 * part of a run a prune is deleting) while no statement reads more than a page. A statement without
 * an answer within `timeoutMs` fails the read with `storage_failure` and its connection is dropped.
 *
 * @internal
 */
export async function readStepsOf(
  context: StepsReadContext,
  runId: string,
  fromSequence: number,
  limit: number | null,
): Promise<readonly StoredStep[]> {
  const { pool, q, timeoutMs } = context;
  const page = context.page ?? READ_STEPS_PAGE;
  const wanted = limit ?? Infinity;
  let rows: StoredStepRow[];
  try {
    rows = (await pool.query<StoredStepRow>(timedQuery(pageStatement(q, Math.min(wanted, page + 1)), [runId, fromSequence], timeoutMs)))
      .rows;
  } catch (error) {
    throw storageFailure('readSteps', error, timeoutMs);
  }
  if (rows.length <= page) return rows.map(storedStepReader(runId));
  return readInPages(context, page, runId, fromSequence, wanted);
}

/** More than a page of a run, read in pages of one snapshot, `wanted` steps at most. */
async function readInPages(
  context: StepsReadContext,
  page: number,
  runId: string,
  fromSequence: number,
  wanted: number,
): Promise<readonly StoredStep[]> {
  const { pool, q, timeoutMs } = context;
  const read = storedStepReader(runId);
  try {
    return await withTransaction(
      pool,
      async (client) => {
        const steps: StoredStep[] = [];
        for (let from = fromSequence; steps.length < wanted;) {
          const size = Math.min(page, wanted - steps.length);
          const { rows } = await client.query<StoredStepRow>(timedQuery(pageStatement(q, size), [runId, from], timeoutMs));
          for (const row of rows) steps.push(read(row));
          const last = rows[rows.length - 1];
          if (last === undefined || rows.length < size) break;
          from = last.sequence + 1;
        }
        return steps;
      },
      { begin: 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', timeoutMs },
    );
  } catch (error) {
    throw storageFailure('readSteps', error, timeoutMs);
  }
}
