// The runs of InMemoryRunStore as it keeps them: each with its outcome counts, tokens and ended
// calls up to date as steps arrive, the filters of a listing over them and the frozen run a caller
// sees (the in-memory counterpart of a SQL store's rows and statements).
import type { RunStatus, TerminalRunStatus } from '../../step/RunStatus.js';
import type { OutcomeCounts, StoredRun, StoredStep } from '../RunStore.js';
import type { StoredToolCall } from '../StoredToolCall.js';
import { readFailureFacts } from '../../step/RunStepSchema.js';
import type { NormalizedCancelRequest } from '../CancelRequest.js';
import type { NormalizedRunQuery } from '../NormalizedStoreInput.js';
import { cancelRequestField } from '../CancelRequestColumns.js';
import { toolCallOf } from '../../health/ToolCallFacts.js';
import { plainToolName } from '../toolCallTotalsFold.js';
import { parsePayload } from '../../step/readStepOutcome.js';
import { RunStepKind } from '../../step/RunStepKind.js';
import { stepTokens } from '../../step/stepTokens.js';
import { type TerminationColumns, terminationOfColumns, terminationTextOfColumns } from '../storedTermination.js';

/** The runs of an InMemoryRunStore and its peers, and the listeners of their cancel requests. */
export class InMemoryState {
  readonly runs = new Map<string, MutableRun>();
  readonly cancelListeners = new Set<(runId: string) => void>();
}

/** A run as the in-memory store keeps it, with what its queries read kept up to date. */
export interface MutableRun {
  id: string;
  status: RunStatus;
  configuration: string;
  actor: string | null;
  title: string | null;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  /** How it ended, as every store's columns hold it. */
  termination: TerminationColumns;
  cancelRequestedAt: number | null;
  /** Who asked for that first cancel, from where and why; null when it did not say. */
  cancelRequest: NormalizedCancelRequest | null;
  heartbeatAt: number | null;
  unstoredSteps: number;
  /** The first final status that arrived after the run had ended, and its time. */
  lateFinishStatus?: TerminalRunStatus;
  lateFinishAt?: number | null;
  steps: StoredStep[];
  counts: { ok: number; failed: number; cancelled: number };
  /** The sum of {@link stepTokens} over its steps. */
  tokens: number;
  /** Its ended tool calls (the `tool` steps with an outcome), in sequence order. */
  calls: EndedCall[];
}

/** An ended tool call as the store keeps it: its server may be unknown (a legacy row naming none). */
export type EndedCall = Omit<StoredToolCall, 'server'> & { readonly server: string | null };

/**
 * Keeps a stored step (appended or imported) on its run with what queries read of it: outcome
 * counts, tokens, its call. `appended` is the payload as appended, when the step was.
 */
export function add(run: MutableRun, step: StoredStep, appended?: unknown): void {
  run.steps.push(step);
  // Read from the stored text, as a database store reads its rows; but a tool step (no tokens) whose
  // appended payload is plain data holding its name reads the name there, the very string its text
  // holds: recording a tool step parses no JSON it has just written.
  const named = step.kind === RunStepKind.TOOL ? plainToolName(appended) : undefined;
  let record: Readonly<Record<string, unknown>> = {};
  if (named === undefined) {
    const payload = parsePayload(step.payload);
    if (typeof payload === 'object' && payload !== null && !Array.isArray(payload)) record = payload as Record<string, unknown>;
    run.tokens += stepTokens(step.kind, record);
  }
  // a failed call's cause is read from the payload: the appended data, when its name was read there
  const call = toolCallOf(
    named === undefined ? step : { kind: step.kind, payload: appended, toolServer: step.toolServer, toolOutcome: step.toolOutcome },
  );
  if (call === null) return;
  run.counts[call.outcome] += 1;
  const toolName = named ?? record['toolName'];
  run.calls.push(
    Object.freeze({
      runId: run.id,
      sequence: step.sequence,
      server: call.server,
      tool: typeof toolName === 'string' ? toolName : null,
      outcome: call.outcome,
      cause: call.cause,
      failureFacts:
        call.outcome === 'failed'
          ? readFailureFacts(named === undefined ? record['toolFailureFacts'] : (appended as Record<string, unknown>)['toolFailureFacts'])
          : null,
      durationMs: step.durationMs,
      createdAt: step.createdAt,
    }),
  );
}

/** Whether a run passes a listing's filters (not its cursor). */
export function isKept(run: MutableRun, q: NormalizedRunQuery): boolean {
  if (q.statuses !== null && !q.statuses.includes(run.status)) return false;
  if (q.configuration !== null && run.configuration !== q.configuration) return false;
  if (q.hasOutcome !== null && run.counts[q.hasOutcome] === 0) return false;
  if (q.createdFrom !== null && run.createdAt < q.createdFrom) return false;
  if (q.createdTo !== null && run.createdAt >= q.createdTo) return false;
  if (q.server !== null || q.tool !== null) {
    // the same call matches both when both are given
    if (!run.calls.some((call) => (q.server === null || call.server === q.server) && (q.tool === null || call.tool === q.tool)))
      return false;
  }
  if (q.titleContains !== null && (run.title === null || !lowerAscii(run.title).includes(lowerAscii(q.titleContains)))) return false;
  return true;
}

/** The letters A to Z in lower case, every other character as it is (as SQL's lower() without ICU). */
export function lowerAscii(text: string): string {
  return text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

/** Newest first: createdAt, then run id, then sequence, all descending. */
export function compareCallsNewestFirst(a: { createdAt: number; runId: string; sequence: number }, b: typeof a): number {
  if (a.createdAt !== b.createdAt) return b.createdAt - a.createdAt;
  if (a.runId !== b.runId) return a.runId < b.runId ? 1 : -1;
  return b.sequence - a.sequence;
}

/** The frozen StoredRun a caller sees of a kept run. */
export function snapshot(run: MutableRun): StoredRun {
  const outcomeCounts: OutcomeCounts = Object.freeze({ ...run.counts });
  return Object.freeze({
    id: run.id,
    status: run.status,
    configuration: run.configuration,
    actor: run.actor,
    title: run.title,
    createdAt: run.createdAt,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    terminationReason: terminationTextOfColumns(run.termination),
    termination: terminationOfColumns(run.termination),
    cancelRequestedAt: run.cancelRequestedAt,
    ...cancelRequestField({
      cancel_requested_at: run.cancelRequestedAt,
      cancel_from: run.cancelRequest?.from,
      cancel_by: run.cancelRequest?.by,
      cancel_reason: run.cancelRequest?.reason,
    }),
    heartbeatAt: run.heartbeatAt,
    stepCount: run.steps.length,
    outcomeCounts,
    tokens: run.tokens,
    unstoredSteps: run.unstoredSteps,
    ...(run.lateFinishStatus === undefined ? {} : { lateFinishStatus: run.lateFinishStatus, lateFinishAt: run.lateFinishAt ?? null }),
  });
}
