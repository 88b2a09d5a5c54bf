import type pg from 'pg';
import { withTransaction } from '../withTransaction.js';
import { rollPendingStatement } from './PostgresHealthWriter.js';
import { storageFailure } from '../storageFailure.js';

/** Pending calls a store lets gather before it moves them into the rollup (PostgresRunStore). */
export const ROLL_PENDING_AT = 4096;

/**
 * The transaction-scoped advisory lock that moves of pending calls and prunes of one schema take
 * (keyed on the quoted schema name): they change the same rollup rows, so they take turns instead
 * of waiting for each other's row locks in opposite orders.
 */
export const ROLLUP_LOCK_KEY = "hashtext('runledger.rollup'), hashtext($1)";

/**
 * The tool calls appended but not yet in the server-health rollup (`health_pending`, schema
 * version 7, with their run's shard and how they count): an append notes its call there in its
 * own statement; {@link PostgresHealthPending.roll} moves them all into the rollup in one.
 *
 * @remarks
 * A tool call is counted exactly once, in the rollup or pending: a health read adds the pending
 * calls in the same statement, so in the same snapshot, as the rollup (PostgresHealthReader), and
 * a prune deletes the pending rows of the steps it deletes and takes only the others out of the
 * rollup (PostgresPrune). This takes the rollup off the append's path: an append inserts one heap
 * row instead of a rollup row at every level (each rewritten with its 114-slot histogram, under a
 * row lock every writer of that server and shard queues on), and a move of a few thousand calls
 * over twenty servers upserts about a hundred rows once each. Any process may move them, one at a
 * time per schema (an advisory lock; a process that finds it taken leaves the move to its holder);
 * a process that dies leaves its pending calls for the next move, counted meanwhile. After a move
 * the table is vacuumed (it holds a few thousand live rows at most, so that takes a few ms), so its
 * heap stays that small whether autovacuum runs or not.
 *
 * @internal
 */
export class PostgresHealthPending {
  readonly #pool: pg.Pool;
  readonly #q: string;
  readonly #roll: string;
  /** Calls this store noted as pending since it last moved them. */
  #noted = 0;
  /** The move under way, if any. */
  #moving: Promise<void> | null = null;
  /** How many noted (or found) pending calls make a move due; tests lower it. */
  rollAt: number = ROLL_PENDING_AT;

  constructor(pool: pg.Pool, quotedSchema: string) {
    this.#pool = pool;
    this.#q = quotedSchema;
    this.#roll = rollPendingStatement(quotedSchema);
  }

  /** Counts a call this store's append noted as pending, and moves the pending calls once enough were noted. */
  noted(): void {
    if (++this.#noted >= this.rollAt) this.moveSoon();
  }

  /**
   * After a health read that found `found` pending calls: left by processes that stopped before
   * they moved them, they are moved once there are many, so the next reads do not count them one
   * by one again.
   */
  found(found: number): void {
    if (found >= this.rollAt) this.moveSoon();
  }

  /** Moves the pending calls in the background, unless a move is under way. */
  moveSoon(): void {
    this.#moving ??= this.#moveNoted().finally(() => {
      this.#moving = null;
    });
  }

  /** Resolves once no move is under way; then moves what this store noted since (as a store does before it closes). */
  async settle(): Promise<void> {
    await this.#moving;
    if (this.#noted > 0) await this.#moveNoted();
  }

  /** Resolves once no move is under way. */
  async settled(): Promise<void> {
    await this.#moving;
  }

  /** {@link PostgresHealthPending.roll}, never rejecting: a move that fails (or finds another one under way) leaves the calls pending, still counted by health reads. */
  async #moveNoted(): Promise<void> {
    const noted = this.#noted;
    this.#noted = 0;
    try {
      await this.roll();
    } catch {
      this.#noted += noted;
    }
  }

  /**
   * Moves every pending call into the rollup in one transaction; null when another connection is
   * moving them (or pruning) right now.
   *
   * @throws RunStoreError `storage_failure` when the transaction fails (nothing moved: the calls stay pending).
   */
  async roll(): Promise<number | null> {
    let moved: number | null;
    try {
      moved = await withTransaction(this.#pool, async (client) => {
        const locked = await client.query<{ locked: boolean }>(`SELECT pg_try_advisory_xact_lock(${ROLLUP_LOCK_KEY}) AS locked`, [this.#q]);
        if (locked.rows[0]?.locked !== true) return null;
        return (await client.query<{ moved: number }>(this.#roll)).rows[0]!.moved;
      });
    } catch (error) {
      throw storageFailure('serverHealth', error);
    }
    // the moved rows are dead tuples now: without a vacuum (autovacuum off, or not due for a
    // minute) the heap would only grow, and every move and health read scans all of it; the
    // empty pages stay (no truncation, which waits for appends to let go of the table). The
    // open calls that ended since are dead too (a call ends between two moves): vacuumed with them
    if (moved !== null && moved > 0)
      await this.#pool
        .query(`VACUUM (SKIP_LOCKED, TRUNCATE false) ${this.#q}.health_pending, ${this.#q}.open_calls`)
        .catch(() => undefined);
    return moved;
  }
}
