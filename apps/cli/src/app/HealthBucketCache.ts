import type { RunStore, ServerHealth } from '@runledger/trace';

/** How long a closed bucket's health is reused, in ms. */
const TTL_MS = 60_000;
/** How long after its end a bucket is still read afresh (a call recorded at 13:59:59 may be stored a moment later). */
const SETTLE_MS = 60_000;
/** The most buckets kept: the 24 hours and 30 days of the windows, with room to spare. */
const MAX_ENTRIES = 256;

/**
 * The server health of closed trend buckets, reused for a minute: the charts of the servers page
 * and a server's page read one health per hour or day, and all but the last of those are history.
 *
 * @remarks
 * A bucket is reused only once it ended a minute ago ({@link SETTLE_MS}) and for a minute
 * ({@link TTL_MS}); the bucket that holds now, and the window's own health, are always read afresh.
 * So a call stored late into a closed bucket (a spool delivered later, an import, a prune) shows in
 * the charts within a minute. Concurrent views share one read; a failed read is not kept.
 *
 * @internal
 */
export class HealthBucketCache {
  readonly #entries = new Map<string, { readonly at: number; readonly value: Promise<readonly ServerHealth[]> }>();

  /** The health of `[since, until)` at `now`: kept from a read less than a minute old when the bucket is closed. */
  read(store: RunStore, since: number, until: number, now: number): Promise<readonly ServerHealth[]> {
    if (until > now - SETTLE_MS) return store.serverHealth({ since, until });
    const key = `${since}:${until}`;
    const hit = this.#entries.get(key);
    if (hit !== undefined && now - hit.at < TTL_MS && now >= hit.at) return hit.value;
    const value = store.serverHealth({ since, until });
    this.#entries.delete(key);
    this.#entries.set(key, { at: now, value });
    value.catch(() => {
      if (this.#entries.get(key)?.value === value) this.#entries.delete(key);
    });
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= MAX_ENTRIES) break;
      this.#entries.delete(oldest);
    }
    return value;
  }

  /** How many buckets are kept (for tests). */
  get size(): number {
    return this.#entries.size;
  }
}
