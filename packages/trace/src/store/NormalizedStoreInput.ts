// The normalized shapes the input checks of storeInputChecks.ts return: what a store writes and queries
// by, after the rules have checked the caller's input and filled in the defaults.
import type { FlakyThreshold, RunCursorPosition, RunStatus, TerminalRunStatus } from '@runledger/trace';
import type { ToolOutcome } from '@runledger/core';
import type { TerminationColumns } from './storedTermination.js';

/**
 * A run creation, checked and with its defaults filled in.
 *
 * @public
 */
export interface NormalizedCreateRun {
  /** Lowercase UUID. */
  readonly id: string;
  readonly configuration: string;
  readonly actor: string | null;
  /** The readable title, or null. */
  readonly title: string | null;
  readonly createdAt: number;
}

/**
 * A finish, checked and with its defaults filled in.
 *
 * @public
 */
export interface NormalizedFinishRun {
  readonly status: TerminalRunStatus;
  readonly finishedAt: number;
  /** How the run ended, as the store's columns hold it. */
  readonly termination: TerminationColumns;
  /** Steps that could not be stored, to add to the run's count. */
  readonly unstoredSteps: number;
  /**
   * The termination to store instead when the run's cancel was requested first (the run then ends
   * `cancelled`): the given one when the status is `cancelled` already, else `cancel_while_running`
   * with what the run reported.
   */
  readonly cancelledTermination: TerminationColumns;
}

/**
 * A step to append, checked, with its payload as JSON text.
 *
 * @public
 */
export interface NormalizedAppendStep {
  readonly kind: string;
  readonly round: number;
  readonly durationMs: number;
  readonly createdAt: number;
  readonly payload: Readonly<Record<string, unknown>>;
  /** `JSON.stringify(payload)`, the text of a JSON object: the text a store keeps. */
  readonly payloadText: string;
  readonly toolServer: string | null;
  readonly toolOutcome: ToolOutcome | null;
  /** The sequence the step must get, or null for the run's next. */
  readonly sequence: number | null;
}

/**
 * A run listing query, checked, with defaults filled in and the cursor decoded.
 *
 * @public
 */
export interface NormalizedRunQuery {
  /** The statuses to keep, or null for all. */
  readonly statuses: readonly RunStatus[] | null;
  readonly configuration: string | null;
  readonly hasOutcome: ToolOutcome | null;
  readonly createdFrom: number | null;
  readonly createdTo: number | null;
  /** Runs with a call to this server, or null for any. */
  readonly server: string | null;
  /** Runs with a call of this tool, or null for any. */
  readonly tool: string | null;
  /** Runs whose title contains this text (ASCII letters in any case), or null for any. */
  readonly titleContains: string | null;
  /** 1 to 200. */
  readonly limit: number;
  /** Runs strictly after this position in newest-first order (createdAt, then id, descending), or null. */
  readonly after: RunCursorPosition | null;
}

/**
 * A step read, checked, with defaults filled in.
 *
 * @public
 */
export interface NormalizedStepQuery {
  readonly fromSequence: number;
  /** The most steps to read, or null for all. */
  readonly limit: number | null;
}

/**
 * A server health query, checked, with defaults filled in.
 *
 * @public
 */
export interface NormalizedHealthQuery {
  readonly since: number | null;
  readonly until: number | null;
  readonly flaky: Required<FlakyThreshold>;
}
