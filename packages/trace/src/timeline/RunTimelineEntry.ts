import { ToolOutcome } from '@runledger/core';

/**
 * A run lifecycle event shown in the timeline beside the steps.
 *
 * @public
 */
export const RunLifecycleEvent = {
  STARTED: 'started',
  CANCEL_REQUESTED: 'cancel_requested',
  CANCELLED: 'cancelled',
  COMPLETED: 'completed',
  FAILED: 'failed',
  INTERRUPTED: 'interrupted',
} as const;

/**
 * One of the event strings of {@link (RunLifecycleEvent:variable)}.
 *
 * @public
 */
export type RunLifecycleEvent = (typeof RunLifecycleEvent)[keyof typeof RunLifecycleEvent];

/**
 * Where a started tool call stands while no step records its end: still on the wire (the run is
 * running), or interrupted (the run ended without it).
 *
 * @public
 */
export const RunCallState = {
  ON_THE_WIRE: 'on_the_wire',
  INTERRUPTED: 'interrupted',
} as const;

/**
 * One of the strings of {@link (RunCallState:variable)}.
 *
 * @public
 */
export type RunCallState = (typeof RunCallState)[keyof typeof RunCallState];

/**
 * The outcome cell of a timeline entry: a `ToolOutcome` string, or `''` for none.
 *
 * @public
 */
export type RunTimelineOutcome = ToolOutcome | '';

/**
 * A detail value of a timeline entry: metadata only, never content.
 *
 * @public
 */
export type RunTimelineDetail = string | number | boolean;

/**
 * The fields of a {@link RunTimelineEntry}.
 *
 * @public
 */
export interface RunTimelineEntryFields {
  readonly time: number;
  readonly sequence: number | null;
  readonly event: RunLifecycleEvent | null;
  readonly kind: string;
  readonly source: string;
  readonly round: number | null;
  readonly durationMs: number | null;
  readonly outcome: RunTimelineOutcome;
  readonly details: Readonly<Record<string, RunTimelineDetail>>;
  readonly unreadable: boolean;
  readonly unreadableReason: string | null;
  /** For a started call without an end: on the wire or interrupted; default null. */
  readonly callState?: RunCallState | null;
  /** For a call to a writing tool that may have run on the server unseen (see {@link RunTimelineEntry.mayHaveExecuted}); default false. */
  readonly mayHaveExecuted?: boolean;
}

/**
 * One row of a run's timeline: a step, or a lifecycle event of the run.
 *
 * @remarks
 * The `OUTCOME_*` constants are typed as the `ToolOutcome` values themselves, so renaming one
 * side alone breaks compilation; a test asserts the strings are equal end to end.
 *
 * @public
 */
export class RunTimelineEntry {
  /** No outcome: the entry is not a tool call, or the row states none. */
  static readonly OUTCOME_NONE = '' as const;
  /** The call ended `ok`: `ToolOutcome.OK` itself. */
  static readonly OUTCOME_OK: typeof ToolOutcome.OK = ToolOutcome.OK;
  /** The call ended `failed`: `ToolOutcome.FAILED` itself. */
  static readonly OUTCOME_FAILED: typeof ToolOutcome.FAILED = ToolOutcome.FAILED;
  /** The call ended `cancelled`: `ToolOutcome.CANCELLED` itself. */
  static readonly OUTCOME_CANCELLED: typeof ToolOutcome.CANCELLED = ToolOutcome.CANCELLED;

  /** When it happened, in ms since the epoch. */
  readonly time: number;
  /** The step's sequence; null for a lifecycle event. */
  readonly sequence: number | null;
  /** The lifecycle event; null for a step. */
  readonly event: RunLifecycleEvent | null;
  /** The step kind as stored (possibly unknown in a damaged row), or `run` for a lifecycle event. */
  readonly kind: string;
  /** Where it came from: the MCP server of a tool call, the model of an LLM call, `run` for a lifecycle event, else `agent`. */
  readonly source: string;
  /** The agent loop's round of a step; null for a lifecycle event. */
  readonly round: number | null;
  /** Milliseconds the step took; null for a lifecycle event. */
  readonly durationMs: number | null;
  /** The step's outcome as {@link stepOutcome} reads it; `''` for none. */
  readonly outcome: RunTimelineOutcome;
  /** Allow-listed metadata only. */
  readonly details: Readonly<Record<string, RunTimelineDetail>>;
  /** True when the stored row could not be read; the rest of the timeline renders regardless. */
  readonly unreadable: boolean;
  /** Why the row could not be read, or null. */
  readonly unreadableReason: string | null;
  /**
   * For a `tool_start` entry (a call sent and not answered yet): `on_the_wire` while the run
   * runs, `interrupted` once it ended without the call's step; null for every other entry.
   */
  readonly callState: RunCallState | null;
  /**
   * True for a call to a tool that writes whose request may have reached the server with no answer
   * saying what became of it, so what it changed is unknown: a `tool` step that ended `cancelled`,
   * or `failed` by a timeout, a broken connection, an HTTP error status or an unreadable answer,
   * unless its `sends` detail is 0 (it never left); and a `tool_start` entry whose call was
   * interrupted. False for every other entry: an answered call, one refused before it was sent.
   */
  readonly mayHaveExecuted: boolean;

  /** @internal */
  constructor(
    time: number,
    sequence: number | null,
    event: RunLifecycleEvent | null,
    kind: string,
    source: string,
    round: number | null,
    durationMs: number | null,
    outcome: RunTimelineOutcome,
    details: Readonly<Record<string, RunTimelineDetail>>,
    unreadable: boolean,
    unreadableReason: string | null,
    callState: RunCallState | null = null,
    mayHaveExecuted = false,
  ) {
    // Positional and not frozen at run time: a timeline of 100 000 entries is built often, and
    // a temporary fields object and freezing cost about a quarter of the build. The fields are
    // readonly to TypeScript.
    this.time = time;
    this.sequence = sequence;
    this.event = event;
    this.kind = kind;
    this.source = source;
    this.round = round;
    this.durationMs = durationMs;
    this.outcome = outcome;
    this.details = details;
    this.unreadable = unreadable;
    this.unreadableReason = unreadableReason;
    this.callState = callState;
    this.mayHaveExecuted = mayHaveExecuted;
  }

  /** Makes an entry from its fields (the timeline factory does this; tests and renderers may too). */
  static of(fields: RunTimelineEntryFields): RunTimelineEntry {
    return new RunTimelineEntry(
      fields.time,
      fields.sequence,
      fields.event,
      fields.kind,
      fields.source,
      fields.round,
      fields.durationMs,
      fields.outcome,
      Object.freeze({ ...fields.details }),
      fields.unreadable,
      fields.unreadableReason,
      fields.callState ?? null,
      fields.mayHaveExecuted === true,
    );
  }

  /** True for a lifecycle event of the run rather than a step. */
  get isLifecycle(): boolean {
    return this.event !== null;
  }
}
