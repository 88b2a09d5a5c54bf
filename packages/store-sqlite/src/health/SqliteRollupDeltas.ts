import type { ToolOutcome } from '@runledger/core';
import { UNKNOWN_FAILURE_CAUSE } from '@runledger/trace';
import { durationSlot, ROLLUP_LEVEL_SIZES, rollupBucketStart, type ToolCallFacts, toolCallOf } from '@runledger/trace/store';

/** A call's row as the rollup reads it from the steps: server, outcome, duration, time, cause. */
export type CallRow = [string, ToolOutcome, number, number, string | null];

/** How a call counts, exactly as every health read counts it: trace's toolCallOf decides. */
export function callOf(server: string, outcome: ToolOutcome, cause: string | null): ToolCallFacts | null {
  return toolCallOf({ kind: 'tool', payload: null, toolServer: server, toolOutcome: outcome, toolFailureCause: cause });
}

/** What some calls of one rollup bucket (one server, level and bucket start) add up to. */
export interface BucketDelta {
  readonly server: string;
  readonly level: number;
  readonly bucket: number;
  calls: number;
  ok: number;
  failed: number;
  cancelled: number;
  notCounted: number;
  answered: number;
  /** The shortest and longest answered duration, the last counted failure. */
  minMs: number | null;
  maxMs: number | null;
  lastFailure: number | null;
  /** histogram slot → answered calls. */
  readonly slots: Map<number, number>;
  /** cause → failed calls. */
  readonly causes: Map<string, number>;
}

/**
 * Sums calls per server, level and bucket, as the health rollup holds them: what a batch of calls
 * adds to each row (SqliteHealthWriter, moving pending calls in) or takes out of it
 * (SqlitePruneRollup, deleting calls).
 *
 * @internal
 */
export class RollupDeltas {
  /** `server level bucket` → the sums of that bucket. */
  readonly #deltas = new Map<string, BucketDelta>();

  /** How many buckets hold calls. */
  get size(): number {
    return this.#deltas.size;
  }

  /** Adds a call to its bucket at every level. */
  add(server: string, call: ToolCallFacts, durationMs: number, createdAt: number): void {
    const slot = call.answered ? durationSlot(durationMs) : -1;
    for (let level = 0; level < ROLLUP_LEVEL_SIZES.length; level++) {
      const delta = this.#deltaOf(server, level, rollupBucketStart(level, createdAt));
      delta.calls++;
      if (call.outcome === 'ok') delta.ok++;
      else if (call.outcome === 'cancelled') delta.cancelled++;
      else {
        delta.failed++;
        if (!call.counted) delta.notCounted++;
        else if (delta.lastFailure === null || createdAt > delta.lastFailure) delta.lastFailure = createdAt;
        const cause = call.cause ?? UNKNOWN_FAILURE_CAUSE;
        delta.causes.set(cause, (delta.causes.get(cause) ?? 0) + 1);
      }
      if (slot >= 0) {
        delta.answered++;
        delta.minMs = delta.minMs === null ? durationMs : Math.min(delta.minMs, durationMs);
        delta.maxMs = delta.maxMs === null ? durationMs : Math.max(delta.maxMs, durationMs);
        delta.slots.set(slot, (delta.slots.get(slot) ?? 0) + 1);
      }
    }
  }

  /** Adds the call of a step row, when it is one (a row the pure definition does not count is left out). */
  addRow([server, outcome, durationMs, createdAt, cause]: CallRow): void {
    const call = callOf(server, outcome, cause);
    if (call !== null) this.add(server, call, durationMs, createdAt);
  }

  /** Every bucket's sums, finest level first, and forgets them. */
  take(): BucketDelta[] {
    const deltas = [...this.#deltas.values()].sort((a, b) => a.level - b.level);
    this.#deltas.clear();
    return deltas;
  }

  /** Forgets what was added (its transaction rolled back). */
  clear(): void {
    this.#deltas.clear();
  }

  #deltaOf(server: string, level: number, bucket: number): BucketDelta {
    const key = `${server}\u0000${level}\u0000${bucket}`;
    let delta = this.#deltas.get(key);
    if (delta === undefined) {
      delta = {
        server,
        level,
        bucket,
        calls: 0,
        ok: 0,
        failed: 0,
        cancelled: 0,
        notCounted: 0,
        answered: 0,
        minMs: null,
        maxMs: null,
        lastFailure: null,
        slots: new Map(),
        causes: new Map(),
      };
      this.#deltas.set(key, delta);
    }
    return delta;
  }
}
