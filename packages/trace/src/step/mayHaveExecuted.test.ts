import { TOOL_FAILURE_CAUSES, ToolFailureCause, ToolOutcome, ToolResult, WriteTarget } from '@runledger/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { startRun } from '../recording/startRun.js';
import { InMemoryRunStore } from '../store/InMemoryRunStore.js';
import { buildRunTimeline } from '../timeline/buildRunTimeline.js';
import { mayHaveExecuted } from './mayHaveExecuted.js';
import { RUN_STEP_KINDS } from './RunStepKind.js';

/** The causes of a call refused before it was sent (the not-sent side of the property). */
const NOT_SENT_CAUSES: readonly ToolFailureCause[] = [
  ToolFailureCause.UNKNOWN_TOOL,
  ToolFailureCause.MALFORMED_ARGUMENTS,
  ToolFailureCause.NOT_APPROVED,
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
}

const call: fc.Arbitrary<GeneratedCall> = fc
  .record({
    kind: fc.constantFrom(...RUN_STEP_KINDS),
    writes: fc.constantFrom('declared' as const, 'target' as const, 'no' as const),
    outcome: fc.constantFrom(ToolOutcome.OK, ToolOutcome.FAILED, ToolOutcome.CANCELLED),
    sent: fc.boolean(),
    sentCause: fc.option(fc.constantFrom(...SENT_CAUSES)),
    notSentCause: fc.constantFrom(...NOT_SENT_CAUSES),
  })
  // a call that was not sent is refused: it fails with a cause that says so
  .map(({ kind, writes, outcome, sent, sentCause, notSentCause }) =>
    sent
      ? { kind, writes, outcome, sent, cause: outcome === ToolOutcome.FAILED ? sentCause : null }
      : { kind, writes, outcome: ToolOutcome.FAILED, sent, cause: notSentCause },
  );

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
  };
}

/** The property, stated apart from the rule: a sent call to a writing tool, cancelled or timed out. */
function expected(c: GeneratedCall): boolean {
  const endedUnseen = c.outcome === ToolOutcome.CANCELLED || (c.outcome === ToolOutcome.FAILED && c.cause === ToolFailureCause.TIMEOUT);
  return c.kind === 'tool' && c.writes !== 'no' && c.sent && endedUnseen;
}

describe('mayHaveExecuted', () => {
  it('marks a step iff it is a tool step of a writing tool, sent, and cancelled or failed by timeout (generated)', () => {
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

  it('is on the timeline of calls recorded through a run: cancelled and timed-out writes, not reads or refused ones', async () => {
    const store = InMemoryRunStore.create();
    const run = await startRun(store, { configuration: 'may-have-executed' });
    const write = { toolName: 'mcp_files_write', toolArguments: {}, writes: true };
    await run.trace.recordToolResult({ ...write, result: ToolResult.cancelled('torn down') });
    await run.trace.recordToolResult({ ...write, result: ToolResult.failure('no answer in time', ToolFailureCause.TIMEOUT) });
    await run.trace.recordToolResult({ ...write, result: ToolResult.failure('refused', ToolFailureCause.NOT_APPROVED) });
    await run.trace.recordToolResult({ ...write, result: ToolResult.failure('no connection', ToolFailureCause.TRANSPORT_FAILURE) });
    await run.trace.recordToolResult({ toolName: 'mcp_files_read', toolArguments: {}, result: ToolResult.cancelled('torn down') });
    await run.trace.recordToolResult({ ...write, result: ToolResult.text('written') });
    await run.complete();
    const entries = buildRunTimeline(await store.getRun(run.id), await store.readSteps(run.id)).filter((e) => e.kind === 'tool');
    expect(entries.map((e) => e.mayHaveExecuted)).toEqual([true, true, false, false, false, false]);
  });
});
