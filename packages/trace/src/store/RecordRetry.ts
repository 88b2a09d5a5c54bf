import { RunStoreError, RunStoreErrorCode } from '../store/RunStoreError.js';

/**
 * How the recorder retries a store write that failed for a reason waiting may fix.
 *
 * @public
 */
export interface RecordRetryOptions {
  /** How many times a write is tried in all, the first try included; default 8. */
  readonly attempts?: number;
  /** The wait before the second try, doubled before each later one; default 25 ms. */
  readonly initialDelayMs?: number;
  /** The longest wait between two tries; default 2 000 ms. */
  readonly maxDelayMs?: number;
  /**
   * How long one try may take before it counts as failed (a connection that went silent), in ms;
   * default 30 000; 0 for no limit. A try given up this way may still complete in the store: the
   * next try names the same sequence, so nothing is stored twice.
   */
  readonly attemptTimeoutMs?: number;
}

/** A retry policy, checked and with its defaults filled in. */
export interface RetryPolicy {
  readonly attempts: number;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  readonly attemptTimeoutMs: number;
}

const DEFAULT_RETRY: RetryPolicy = Object.freeze({ attempts: 8, initialDelayMs: 25, maxDelayMs: 2_000, attemptTimeoutMs: 30_000 });

/**
 * Checks retry options and fills in the defaults.
 *
 * @throws RangeError naming the option when one breaks its rule.
 */
export function retryPolicy(options: RecordRetryOptions | undefined, name: string): RetryPolicy {
  const attempts = options?.attempts ?? DEFAULT_RETRY.attempts;
  if (!Number.isSafeInteger(attempts) || attempts < 1) {
    throw new RangeError(`${name}.attempts must be an integer ≥ 1, got ${String(attempts)}`);
  }
  const initialDelayMs = options?.initialDelayMs ?? DEFAULT_RETRY.initialDelayMs;
  const maxDelayMs = options?.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs;
  const attemptTimeoutMs = options?.attemptTimeoutMs ?? DEFAULT_RETRY.attemptTimeoutMs;
  for (const [key, value] of [
    ['initialDelayMs', initialDelayMs],
    ['maxDelayMs', maxDelayMs],
    ['attemptTimeoutMs', attemptTimeoutMs],
  ] as const) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new RangeError(`${name}.${key} must be a finite number ≥ 0, got ${String(value)}`);
    }
  }
  return { attempts, initialDelayMs, maxDelayMs, attemptTimeoutMs };
}

/**
 * Tells whether a failed store write may succeed when tried again.
 *
 * @remarks
 * A store's refusal of the input itself (`invalid_input`, `run_not_found`, `sequence_conflict`,
 * `schema_too_new`) never changes by waiting. Everything else — a `storage_failure` (connection
 * terminated or reset, pool error, a lock held too long, a serialization failure, a full disk) or
 * an error of a store that does not use {@link RunStoreError} — is retried: a retry of an append
 * that names its sequence cannot store a step twice.
 */
export function isRetryable(error: unknown): boolean {
  if (!RunStoreError.is(error)) return true;
  return error.code === RunStoreErrorCode.STORAGE_FAILURE;
}

/** The wait before try number `attempt + 1` (attempt counts from 1), with ±25 % jitter. */
export function retryDelay(policy: RetryPolicy, attempt: number): number {
  const base = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** Math.min(attempt - 1, 30));
  return base * (0.75 + Math.random() * 0.5);
}

/**
 * Runs `write` until it succeeds, fails for good, or the attempts are used up; rejects with the
 * last error.
 */
export async function withRetry<T>(policy: RetryPolicy, write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await withDeadline(policy.attemptTimeoutMs, write);
    } catch (error) {
      if (attempt >= policy.attempts || !isRetryable(error)) throw error;
      await sleep(retryDelay(policy, attempt));
    }
  }
}

/** Runs one try; past `ms` (when > 0) it counts as a failed try with a `storage_failure`. */
function withDeadline<T>(ms: number, write: () => Promise<T>): Promise<T> {
  const pending = write();
  if (ms <= 0) return pending;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(RunStoreError.storageFailure(`the store did not answer within ${ms} ms (StartRunOptions.retry.attemptTimeoutMs)`)),
      ms,
    );
  });
  pending.catch(() => undefined); // a late failure of a try given up is not unhandled
  return Promise.race([pending, deadline]).finally(() => clearTimeout(timer));
}

/** Waits; the timer keeps the process alive, so an awaited write is never dropped by an exit. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
