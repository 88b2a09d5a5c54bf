/**
 * The health of one MCP server over a time window.
 *
 * @remarks
 * `failureRate` is `failed / (ok + failed)`: cancellations are our own doing and never count
 * against a server. It is `null` when the server answered no call in the window.
 *
 * @public
 */
export interface ServerHealth {
  /** The server id (the `toolServer` of its steps). */
  readonly server: string;
  /** All tool calls to the server: ok + failed + cancelled. */
  readonly calls: number;
  readonly ok: number;
  readonly failed: number;
  readonly cancelled: number;
  /** failed / (ok + failed); null when ok + failed is 0. */
  readonly failureRate: number | null;
  /** When the last failed call was recorded (ms since the epoch), or null. */
  readonly lastFailureAt: number | null;
  /** Median duration of the server's calls in ms, or null when there are none. */
  readonly p50DurationMs: number | null;
  /** 95th percentile duration of the server's calls in ms, or null when there are none. */
  readonly p95DurationMs: number | null;
  /** True when failureRate reaches the threshold over at least the minimum of answered calls. */
  readonly flaky: boolean;
}

/**
 * When a server counts as flaky: a failure rate of at least `failureRate` over at least
 * `minAnsweredCalls` answered (ok or failed) calls. Defaults: 0.2 and 5.
 *
 * @public
 */
export interface FlakyThreshold {
  readonly failureRate?: number;
  readonly minAnsweredCalls?: number;
}

/**
 * The window and threshold of a server health query.
 *
 * @public
 */
export interface ServerHealthQuery {
  /** Only steps created at or after this time (ms since the epoch). */
  readonly since?: number;
  /** Only steps created before this time (ms since the epoch). */
  readonly until?: number;
  readonly flaky?: FlakyThreshold;
}
