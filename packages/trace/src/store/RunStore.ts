import type { ToolOutcome } from '@runledger/core';
import type { RunStatus, TerminalRunStatus } from '../step/RunStatus.js';
import type { RunTermination } from '../step/RunTerminationReason.js';
import type { ServerHealth, ServerHealthQuery } from '../health/ServerHealth.js';
import type { PruneRunsQuery, PruneRunsResult } from './PruningRunStore.js';
import type { OpenCallsRead } from './OpenCalls.js';
import type { RunTotals, RunTotalsQuery } from './SearchingRunStore.js';
import type { ToolCallPage, ToolCallQuery } from './StoredToolCall.js';
import type { ToolCallTotals, ToolCallTotalsQuery } from './ToolCallTotals.js';
import type { CancelRequestInput, StoredCancelRequest } from './CancelRequest.js';

/**
 * How many tool calls of a run ended in each outcome.
 *
 * @public
 */
export interface OutcomeCounts {
  readonly ok: number;
  readonly failed: number;
  readonly cancelled: number;
}

/**
 * A run as a store keeps it. Times are milliseconds since the epoch.
 *
 * @public
 */
export interface StoredRun {
  /** A UUID. */
  readonly id: string;
  readonly status: RunStatus;
  /** The name of the agent configuration the run used. */
  readonly configuration: string;
  /** Who started the run, if known. */
  readonly actor: string | null;
  /** The run's readable title, as the recorder gave it; absent (read as null) from a store that keeps none. */
  readonly title?: string | null;
  readonly createdAt: number;
  readonly startedAt: number | null;
  readonly finishedAt: number | null;
  /**
   * Why the run ended, in words (an error message, a cancel reason): the sentence of
   * {@link StoredRun.termination}, composed when the run is read (or the prose an older version
   * stored, where it was spelled otherwise); null while running.
   */
  readonly terminationReason: string | null;
  /**
   * How the run ended, as data: its kind and facts (`runTerminationText` composes its
   * sentence); null while running. Absent from a store that keeps only the words (read
   * {@link StoredRun.terminationReason}, or `runTerminationOf`).
   */
  readonly termination?: RunTermination | null;
  /** When a cancel was first requested, or null. */
  readonly cancelRequestedAt: number | null;
  /**
   * Who asked for that first cancel, from where and why; absent (read as null) when no cancel was
   * requested, when it was requested without saying where from, or by a store that keeps none
   * (a run cancelled before the store kept requests reads without it).
   */
  readonly cancelRequest?: StoredCancelRequest | null;
  /** The last sign of life of the process running it, or null. */
  readonly heartbeatAt: number | null;
  /** How many steps the run has. */
  readonly stepCount: number;
  /** Its tool calls by outcome. */
  readonly outcomeCounts: OutcomeCounts;
  /**
   * The model tokens its steps used (the sum of {@link stepTokens} over its steps); absent (read
   * as 0) from a store that does not count them.
   */
  readonly tokens?: number;
  /**
   * How many steps the recorder could not store (nor spool): a loss that is counted, never
   * silent. 0 for a run that lost nothing; absent (read as 0) from a store that does not count.
   * It only grows: a final status that arrives after the run has ended adds its count too.
   */
  readonly unstoredSteps?: number;
  /**
   * The status a final status asked for when it arrived after the run had ended already (say,
   * recovery marked the run `interrupted` while its process's finish waited in a spool); absent
   * or null when none came late. The first late one is kept; it never changes how the run ended.
   */
  readonly lateFinishStatus?: TerminalRunStatus | null;
  /** The time (`FinishRunInput.finishedAt`) of that late final status; absent or null when none came late. */
  readonly lateFinishAt?: number | null;
}

/**
 * A step as a store keeps it.
 *
 * @remarks
 * `payload` is the stored JSON text, exactly as read: it may be malformed in a damaged store, so
 * readers parse it tolerantly (a step that cannot be read renders as unreadable, with its
 * sequence). `kind` is the stored string and may be unknown for the same reason.
 *
 * @public
 */
export interface StoredStep {
  readonly runId: string;
  /** 0-based, gap-free within the run. */
  readonly sequence: number;
  readonly kind: string;
  readonly round: number;
  readonly durationMs: number;
  readonly createdAt: number;
  /** The payload JSON text. */
  readonly payload: string;
  /** The MCP server of a tool step, or null. */
  readonly toolServer: string | null;
  /** The outcome of a tool step, or null. */
  readonly toolOutcome: ToolOutcome | null;
}

/**
 * What a store needs to create a run.
 *
 * @public
 */
export interface CreateRunInput {
  /** A UUID; the store makes one when absent. */
  readonly id?: string;
  readonly configuration: string;
  readonly actor?: string | null;
  /** A readable title: 1 to 200 characters, no control characters; absent or null for none. */
  readonly title?: string | null;
  /** Defaults to now. The run starts at the same time. */
  readonly createdAt?: number;
}

/**
 * One step to append: the recorder's filtered payload and the columns queries need.
 *
 * @public
 */
export interface AppendStepInput {
  readonly kind: string;
  readonly round: number;
  readonly durationMs: number;
  readonly createdAt: number;
  /** The step's payload (RunStep.toPayload() after the privacy filter). */
  readonly payload: Readonly<Record<string, unknown>>;
  readonly toolServer: string | null;
  readonly toolOutcome: ToolOutcome | null;
  /**
   * The sequence the step must get, which makes the append idempotent (a retry after a lost
   * answer stores nothing twice).
   *
   * @remarks
   * When the run's next sequence is this one, the step is appended. When a step with the same
   * kind, round, duration, time and payload is stored at this sequence already, its sequence is
   * returned and nothing is written. Another step at this sequence is refused with
   * `sequence_conflict`, a sequence past the run's next with `invalid_input` (sequences stay
   * gap-free). Absent: the run's next sequence, as before.
   */
  readonly sequence?: number;
}

/**
 * How a run ends.
 *
 * @public
 */
export interface FinishRunInput {
  readonly status: TerminalRunStatus;
  /**
   * When the run ended; defaults to now. Give it to make the finish idempotent: the same status
   * and time again (a retry after a lost answer, a repeated spool delivery) changes nothing.
   */
  readonly finishedAt?: number;
  /** Why the run ended, as text: read as a reason runledger wrote where it is one, else as the caller's own (`other`). */
  readonly terminationReason?: string | null;
  /** Why the run ended, as data; given, it is stored instead of {@link FinishRunInput.terminationReason}. */
  readonly termination?: RunTermination | null;
  /** How many steps of the run could not be stored; added to the run's count. Default 0. */
  readonly unstoredSteps?: number;
}

/**
 * Filters and paging of a run listing. Runs come newest first (createdAt, then id, descending).
 *
 * @public
 */
export interface RunQuery {
  readonly status?: RunStatus | readonly RunStatus[];
  readonly configuration?: string;
  /** Only runs with at least one tool call that ended in this outcome. */
  readonly hasOutcome?: ToolOutcome;
  /** Only runs created at or after this time. */
  readonly createdFrom?: number;
  /** Only runs created before this time. */
  readonly createdTo?: number;
  /**
   * Only runs with at least one ended tool call to this MCP server (its steps' `toolServer`).
   * Honoured by a {@link SearchingRunStore} (every store of runledger); see {@link canSearchRuns}.
   */
  readonly server?: string;
  /**
   * Only runs with at least one ended tool call of this tool (its steps' `toolName`, exactly).
   * Honoured by a {@link SearchingRunStore}.
   */
  readonly tool?: string;
  /**
   * Only runs whose title contains this text, ignoring the case of the letters A to Z (a run
   * without a title never matches). Honoured by a {@link SearchingRunStore}.
   */
  readonly titleContains?: string;
  /** Page size; default 50, at most 200. */
  readonly limit?: number;
  /** The `nextCursor` of the previous page (keyset paging). */
  readonly cursor?: string | null;
}

/**
 * One page of runs.
 *
 * @public
 */
export interface RunPage {
  readonly runs: readonly StoredRun[];
  /** Pass as `cursor` for the next page; null on the last page. */
  readonly nextCursor: string | null;
}

/**
 * Which steps of a run to read.
 *
 * @public
 */
export interface StepQuery {
  /** The first sequence to read; default 0. */
  readonly fromSequence?: number;
  /** The most steps to read; default all. */
  readonly limit?: number;
}

/**
 * The storage contract every run store implements (SQLite, PostgreSQL, in memory), pinned by
 * one shared contract test suite.
 *
 * @remarks
 * Every method that writes is durable when its promise resolves: a step is committed when
 * `appendStep` resolves. Sequences are 0-based, gap-free and unique per run, whatever number of
 * writers append concurrently; an append that names its sequence is idempotent. Terminal is
 * terminal: finishing a finished run never changes how it ended (a late finish is kept beside it,
 * with its unstored steps: see `finishRun`). `requestCancel`
 * is idempotent and keeps the first request's time. The store decides atomically whether a
 * cancel or the finish came first: a run whose cancel was requested while it was running ends
 * `cancelled` whatever status its finish asks for (recovery included), and a cancel requested
 * after the run finished is kept as `cancelRequestedAt` on the finished run (see
 * `isLateCancel`).
 *
 * @public
 */
export interface RunStore {
  /** Creates a run with status `running`. */
  createRun(input: CreateRunInput): Promise<StoredRun>;
  /**
   * Appends a step with the run's next sequence and returns that sequence.
   *
   * @throws RunStoreError when the run does not exist.
   */
  appendStep(runId: string, step: AppendStepInput): Promise<number>;
  /**
   * Ends a running run (`cancelled` when a cancel was requested first); returns the run as
   * stored afterwards.
   *
   * @remarks
   * On a run that has ended already, how it ended is never changed. The finish that ended it,
   * arriving again (same status and `finishedAt`), changes nothing; any other finish is late: its
   * `unstoredSteps` are added (the count only grows) and, when it is the first late one, its
   * status and time are kept as `lateFinishStatus` / `lateFinishAt`. The same late finish again
   * changes nothing.
   *
   * @throws RunStoreError when the run does not exist.
   */
  finishRun(runId: string, finish: FinishRunInput): Promise<StoredRun>;
  /**
   * Marks that a cancel was requested (by this or another process); returns the run. On a
   * finished run the request is kept as a late one and changes nothing else.
   *
   * @remarks
   * `request` says who asked, from where and why (see `checkCancelRequest`); the first request
   * is kept with its time as {@link StoredRun.cancelRequest}, a later one changes nothing.
   *
   * @throws RunStoreError when the run does not exist, or (`invalid_input`) when `at` or `request` breaks its rule.
   */
  requestCancel(runId: string, at?: number, request?: CancelRequestInput): Promise<StoredRun>;
  /** Records a sign of life of the process running the run. */
  heartbeat(runId: string, at?: number): Promise<void>;
  /**
   * Marks `interrupted` every running run whose heartbeat (or start) is older than
   * `staleBefore` (`cancelled` when its cancel was requested); returns their ids.
   */
  recoverInterrupted(staleBefore: number): Promise<readonly string[]>;
  /** One run, or null. */
  getRun(runId: string): Promise<StoredRun | null>;
  /** A page of runs, newest first. */
  listRuns(query?: RunQuery): Promise<RunPage>;
  /** A run's steps in sequence order. */
  readSteps(runId: string, query?: StepQuery): Promise<readonly StoredStep[]>;
  /** Per-server health over a time window, ordered by server id. */
  serverHealth(query?: ServerHealthQuery): Promise<readonly ServerHealth[]>;
  /**
   * Calls `onCancel` once when a cancel is requested for the run, by any process; returns a
   * function that stops watching. Stores push where they can (LISTEN/NOTIFY) and poll otherwise.
   */
  watchCancel(runId: string, onCancel: () => void): () => void;
  /**
   * Writes a run and its steps exactly as another store holds them (same id, sequences, times
   * and payload text), for copying between stores. A run whose id already exists is left as it
   * is and `false` is returned; `true` when imported.
   */
  importRun(run: StoredRun, steps: readonly StoredStep[]): Promise<boolean>;
  /**
   * Deletes every run that ended before `query.olderThan`, whole, in bounded batches; never a
   * running run. Optional, so that stores written before it still implement RunStore: every store
   * of runledger has it (see {@link PruningRunStore} and {@link canPruneRuns}).
   *
   * @throws RunStoreError (`invalid_input`) from `checkPruneRunsQuery`.
   */
  pruneRuns?(query: PruneRunsQuery): Promise<PruneRunsResult>;
  /**
   * The calls on the wire of a run (the `tool_start` steps no step has ended) and the step count
   * they were read at, without reading the run's steps; null when there is no such run. Optional,
   * so that stores written before it still implement RunStore: every store of runledger has it
   * (see {@link OpenCallsRunStore} and {@link canReadOpenCalls}).
   */
  readOpenCalls?(runId: string): Promise<OpenCallsRead | null>;
  /**
   * Totals of a listing's filters. Optional, so that stores written before it still implement
   * RunStore: every store of runledger has it (see {@link SearchingRunStore} and {@link canSearchRuns}).
   */
  runTotals?(query?: RunTotalsQuery): Promise<RunTotals>;
  /** One server's ended tool calls, newest first. Optional (see {@link SearchingRunStore}). */
  listToolCalls?(query: ToolCallQuery): Promise<ToolCallPage>;
  /** The ids of the runs whose id starts with a prefix. Optional (see {@link SearchingRunStore}). */
  findRunIdsByPrefix?(prefix: string, limit?: number): Promise<readonly string[]>;
  /**
   * The ended tool calls of a window summed per server and tool. Optional, so that stores written
   * before it still implement RunStore: every store of runledger has it (see
   * {@link ToolTotalsRunStore} and {@link canReadToolCallTotals}).
   */
  toolCallTotals?(query?: ToolCallTotalsQuery): Promise<readonly ToolCallTotals[]>;
  /** Releases connections and timers. */
  close(): Promise<void>;
}
