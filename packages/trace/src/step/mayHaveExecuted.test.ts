import { TOOL_FAILURE_CAUSES, ToolFailureCause, ToolOutcome, ToolResult, WriteTarget } from '@runledger/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { startRun } from '../recording/startRun.js';
import { InMemoryRunStore } from '../store/InMemoryRunStore.js';
import { buildRunTimeline } from '../timeline/buildRunTimeline.js';
import { mayHaveExecuted } from './mayHaveExecuted.js';
import { RUN_STEP_KINDS } from './RunStepKind.js';

/** The causes of a call refused or given up before it was sent (the not-sent side of the property). */
const NOT_SENT_CAUSES: readonly ToolFailureCause[] = [
  ToolFailureCause.UNKNOWN_TOOL,
  ToolFailureCause.MALFORMED_ARGUMENTS,
  ToolFailureCause.NOT_APPROVED,
  ToolFailureCause.REFUSED_HOST,
  ToolFailureCause.MISSING_CREDENTIAL,
  ToolFailureCause.DEADLINE_EXHAUSTED,
];
/** The causes of a sent call that got no answer saying what became of it. */
const UNANSWERED_CAUSES: readonly ToolFailureCause[] = [
  ToolFailureCause.TIMEOUT,
  ToolFailureCause.TRANSPORT_FAILURE,
  ToolFailureCause.HTTP_STATUS,
  ToolFailureCause.MALFORMED_RESPONSE,
  ToolFailureCause.UNSUPPORTED_CONTENT_TYPE,
];
const SENT_CAUSES = TOOL_FAILURE_CAUSES.filter((cause) => !NOT_SENT_CAUSES.includes(cause));

/** One generated call as a row states it, with the facts the property reads. */
interface GeneratedCall {
  readonly kind: string;
  readonly writes: 'declared' | 'target' | 'no';
  readonly outcome: ToolOutcome;
  /** The failure cause a failed call states, or null when it states none. */
  readonly cause: ToolFailureCause | null;
  readonly sent: boolean;
  /** The `toolSends` the row states, or undefined when it states none (older rows, other tools). */
  readonly sends: number | undefined;
}

const call: fc.Arbitrary<GeneratedCall> = fc
  .record({
    kind: fc.constantFrom(...RUN_STEP_KINDS),
    writes: fc.constantFrom('declared' as const, 'target' as const, 'no' as const),
    outcome: fc.constantFrom(ToolOutcome.OK, ToolOutcome.FAILED, ToolOutcome.CANCELLED),
    sent: fc.boolean(),
    sentCause: fc.option(fc.constantFrom(...SENT_CAUSES)),
    notSentCause: fc.constantFrom(...NOT_SENT_CAUSES),
    statesSends: fc.boolean(),
    sends: fc.integer({ min: 1, max: 3 }),
    cancelledBeforeSending: fc.boolean(),
  })
  // A call that was not sent is refused (it fails with a cause that says so) or cancelled before it
  // left; a row that states its sends says 0 for it.
  .map(({ kind, writes, outcome, sent, sentCause, notSentCause, statesSends, sends, cancelledBeforeSending }) => {
    if (sent) {
      return {
        kind,
        writes,
        outcome,
        sent,
        cause: outcome === ToolOutcome.FAILED ? sentCause : null,
        sends: statesSends ? sends : undefined,
      };
    }
    return cancelledBeforeSending
      ? { kind, writes, outcome: ToolOutcome.CANCELLED, sent, cause: null, sends: 0 }
      : { kind, writes, outcome: ToolOutcome.FAILED, sent, cause: notSentCause, sends: statesSends ? 0 : undefined };
  });

function payloadOf(c: GeneratedCall): Record<string, unknown> {
  return {
    kind: c.kind,
    round: 0,
    durationMs: 1,
    toolName: 'mcp_files_write',
    toolIsError: c.outcome !== ToolOutcome.OK,
    toolOutcome: c.outcome,
    ...(c.cause === null ? {} : { toolFailureCause: c.cause }),
    ...(c.writes === 'no' ? {} : { toolWrites: true }),
    ...(c.writes === 'target' ? { toolWriteTarget: WriteTarget.changed('file', 'a.txt').toJSON() } : {}),
    ...(c.sends === undefined ? {} : { toolSends: c.sends }),
  };
}

/**
 * The property, stated apart from the rule: a sent call to a writing tool that ended with no answer
 * saying what became of it — cancelled, or failed unanswered.
 */
function expected(c: GeneratedCall): boolean {
  const unanswered =
    c.outcome === ToolOutcome.CANCELLED || (c.outcome === ToolOutcome.FAILED && c.cause !== null && UNANSWERED_CAUSES.includes(c.cause));
  return c.kind === 'tool' && c.writes !== 'no' && c.sent && unanswered;
}

describe('mayHaveExecuted', () => {
  it('marks a step iff it is a tool step of a writing tool, sent, and cancelled or failed without an answer (generated)', () => {
    fc.assert(
      fc.property(call, (c) => {
        const payload = payloadOf(c);
        expect(mayHaveExecuted(payload)).toBe(expected(c));
        const [entry] = buildRunTimeline(null, [
          {
            runId: 'r',
            sequence: 0,
            kind: c.kind,
            round: 0,
            durationMs: 1,
            createdAt: 1,
            payload: JSON.stringify(payload),
            toolServer: null,
            toolOutcome: null,
          },
        ]);
        // A tool_start step is never marked as a row (only once its call is interrupted).
        expect(entry!.mayHaveExecuted).toBe(expected(c) && c.kind === 'tool');
      }),
      { numRuns: 500 },
    );
  });

  it('marks neither a row without an outcome nor one whose cause is unknown (written before causes existed)', () => {
    expect(mayHaveExecuted({ kind: 'tool', toolWrites: true })).toBe(false);
    expect(mayHaveExecuted({ kind: 'tool', toolWrites: true, toolIsError: true })).toBe(false);
    expect(mayHaveExecuted({ kind: 'tool', toolWrites: true, toolIsError: true, toolFailureCause: 'no_such_cause' })).toBe(false);
    expect(mayHaveExecuted({ kind: 'tool', toolWrites: false, toolIsError: true, toolOutcome: 'cancelled' })).toBe(false);
  });

  it('is on the timeline of calls recorded through a run: writes that may have run unanswered, not reads, answered or unsent ones', async () => {
    const store = InMemoryRunStore.create();
    const run = await startRun(store, { configuration: 'may-have-executed' });
    const write = { toolName: 'mcp_files_write', toolArguments: {}, writes: true };
    const cases: [ToolResult, boolean, string][] = [
      [ToolResult.cancelled('torn down'), true, 'cancelled, sends unknown'],
      [ToolResult.cancelled('torn down').withSends(1), true, 'cancelled on the wire'],
      [ToolResult.cancelled('cancelled before sending').withSends(0), false, 'cancelled before it left'],
      [ToolResult.failure('no answer in time', ToolFailureCause.TIMEOUT).withSends(1), true, 'timed out'],
      [ToolResult.failure('the connection broke', ToolFailureCause.TRANSPORT_FAILURE).withSends(1), true, 'lost its connection'],
      [ToolResult.failure('no connection', ToolFailureCause.TRANSPORT_FAILURE).withSends(0), false, 'never connected'],
      [ToolResult.failure('answered 502', ToolFailureCause.HTTP_STATUS).withSends(1), true, 'an HTTP error status'],
      [ToolResult.failure('unreadable answer', ToolFailureCause.MALFORMED_RESPONSE).withSends(1), true, 'an unreadable answer'],
      [ToolResult.failure('refused', ToolFailureCause.NOT_APPROVED), false, 'not approved'],
      [ToolResult.failure('the server said no', ToolFailureCause.SERVER_ERROR).withSends(1), false, 'answered isError'],
      [ToolResult.failure('bad arguments', ToolFailureCause.INVALID_ARGUMENTS).withSends(1), false, 'arguments refused'],
      [ToolResult.failure('-32603', ToolFailureCause.JSON_RPC_ERROR).withSends(1), false, 'a JSON-RPC error answer'],
      [ToolResult.text('written').withSends(1), false, 'ok'],
    ];
    for (const [result] of cases) await run.trace.recordToolResult({ ...write, result });
    await run.trace.recordToolResult({
      toolName: 'mcp_files_read',
      toolArguments: {},
      result: ToolResult.cancelled('torn down').withSends(1),
    });
    await run.complete();
    const entries = buildRunTimeline(await store.getRun(run.id), await store.readSteps(run.id)).filter((e) => e.kind === 'tool');
    expect(Object.fromEntries(entries.map((e, i) => [cases[i]?.[2] ?? 'a read, cancelled on the wire', e.mayHaveExecuted]))).toEqual(
      Object.fromEntries([...cases.map(([, marked, name]) => [name, marked]), ['a read, cancelled on the wire', false]]),
    );
    expect(entries.map((e) => e.details['sends'])).toEqual([undefined, 1, 0, 1, 1, 0, 1, 1, undefined, 1, 1, 1, 1, 1]);
  });

  it('marks an interrupted call to a writing tool, never one still on the wire or a read', async () => {
    const store = InMemoryRunStore.create();
    const run = await startRun(store, { configuration: 'interrupted-write' });
    await run.trace.recordToolStart({ toolName: 'mcp_files_write', toolArguments: {}, writes: true });
    await run.trace.recordToolStart({ toolName: 'mcp_files_read', toolArguments: {} });
    const onTheWire = buildRunTimeline(await store.getRun(run.id), await store.readSteps(run.id)).filter((e) => e.kind === 'tool_start');
    expect(onTheWire.map((e) => [e.callState, e.mayHaveExecuted])).toEqual([
      ['on_the_wire', false],
      ['on_the_wire', false],
    ]);
    await run.fail('the agent crashed');
    const ended = buildRunTimeline(await store.getRun(run.id), await store.readSteps(run.id)).filter((e) => e.kind === 'tool_start');
    expect(ended.map((e) => [e.callState, e.mayHaveExecuted])).toEqual([
      ['interrupted', true],
      ['interrupted', false],
    ]);
  });
});
