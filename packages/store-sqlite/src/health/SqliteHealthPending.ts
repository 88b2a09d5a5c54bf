import type { ToolOutcome } from '@runledger/core';
import type Database from 'better-sqlite3';
import type { SqliteHealthWriter } from './SqliteHealthWriter.js';
import { type CallRow, RollupDeltas } from './SqliteRollupDeltas.js';
import type { SqliteToolRollup, ToolCallRow } from '../toolRollup/SqliteToolRollup.js';

/** Pending calls a store lets gather before it moves them into the rollup (SqliteRunStore). */
export const ROLL_PENDING_AT = 4096;

/** How a store moves its pending calls into the rollup. */
export interface PendingMoves {
  /** Runs `roll` in a write transaction of the store, after the writes queued before it. */
  readonly write: (roll: () => number) => Promise<unknown>;
}

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
 * pending calls for the next roll, counted meanwhile. A roll writes the per-tool rollup too
 * (SqliteToolRollup, from the pending calls' `tool`, schema version 22), in the same transaction.
 *
 * @internal
 */
export class SqliteHealthPending {
  readonly #pend: Database.Statement;
  readonly #calls: Database.Statement;
  readonly #callsIn: Database.Statement;
  readonly #count: Database.Statement;
  readonly #clear: Database.Statement;
  readonly #writer: SqliteHealthWriter;
  readonly #tools: SqliteToolRollup | undefined;
  readonly #moves: PendingMoves | undefined;
  /** Calls noted here since the last move. */
  #noted = 0;
  /** The move under way, if any. */
  #moving: Promise<void> | null = null;
  /** How many calls noted by the store (or found pending by a health read) make a move due; tests lower it. */
  rollAt: number = ROLL_PENDING_AT;

  /**
   * `moves`: how the store moves them (without, calls are only noted, and moved by whoever calls
   * {@link SqliteHealthPending.roll}); `tools`: the per-tool rollup a move writes too (without,
   * only the health rollup: schema 22's migration, which makes the tool rollup after).
   */
  constructor(db: Database.Database, writer: SqliteHealthWriter, moves?: PendingMoves, tools?: SqliteToolRollup) {
    this.#writer = writer;
    this.#tools = tools;
    this.#moves = moves;
    this.#pend = db.prepare('INSERT INTO health_pending (server, outcome, duration_ms, created_at, cause, tool) VALUES (?, ?, ?, ?, ?, ?)');
    this.#calls = db.prepare('SELECT server, outcome, duration_ms, created_at, cause, tool FROM health_pending').raw();
    this.#callsIn = db
      .prepare('SELECT server, outcome, duration_ms, created_at, cause FROM health_pending WHERE created_at >= ? AND created_at < ?')
      .raw();
    this.#count = db.prepare('SELECT count(*) FROM health_pending').pluck();
    this.#clear = db.prepare('DELETE FROM health_pending');
  }

  /** Notes a tool call as pending (its step's call columns and tool name); inside the transaction that inserts the step. */
  pend(server: string, outcome: ToolOutcome, durationMs: number, createdAt: number, cause: string | null, tool: string | null): void {
    this.#pend.run(server, outcome, durationMs, createdAt, cause, tool);
    this.#noted++;
  }

  /** After writes that noted calls (appends, an import): moves the pending calls once enough were noted. */
  due(): void {
    if (this.#moves !== undefined && this.#noted >= this.rollAt) this.moveSoon();
  }

  /**
   * After a health read that found `found` pending calls: left by processes that stopped before
   * they moved them, they are moved once there are many, so the next reads do not count them one
   * by one again.
   */
  found(found: number): void {
    if (this.#moves !== undefined && found >= this.rollAt) this.moveSoon();
  }

  /** Moves the pending calls after the writes queued now, unless a move is under way. */
  moveSoon(): void {
    this.#moving ??= this.#moveNoted().finally(() => {
      this.#moving = null;
    });
  }

  /** Resolves once no move is under way; then moves what was noted since (as a store does before it closes). */
  async settle(): Promise<void> {
    await this.#moving;
    if (this.#noted > 0) await this.#moveNoted();
  }

  /** {@link SqliteHealthPending.roll} in a write of the store, never rejecting: a move that fails leaves the calls pending, still counted by health reads, for the next. */
  async #moveNoted(): Promise<void> {
    const moves = this.#moves;
    if (moves === undefined) return;
    const noted = this.#noted;
    this.#noted = 0;
    try {
      await moves.write(() => this.roll());
    } catch {
      this.#noted += noted;
    }
  }

  /**
   * The pending calls created in [from, to), as the steps' call columns (a health read counts them):
   * filtered by SQLite, so the calls of other times cost the read a row scan, not a row each.
   */
  callsIn(from: number, to: number): CallRow[] {
    return this.#callsIn.all(from, to) as CallRow[];
  }

  /** How many calls are pending. */
  count(): number {
    return this.#count.get() as number;
  }

  /** Moves every pending call into the rollups (health, tools); inside a write transaction. Returns how many moved. */
  roll(): number {
    const deltas = new RollupDeltas();
    const calls = this.#calls.all() as ToolCallRow[];
    for (const [server, outcome, durationMs, createdAt, cause] of calls) deltas.addRow([server, outcome, durationMs, createdAt, cause]);
    if (calls.length === 0) return 0;
    this.#writer.add(deltas);
    this.#tools?.add(calls);
    this.#clear.run();
    return calls.length;
  }
}
