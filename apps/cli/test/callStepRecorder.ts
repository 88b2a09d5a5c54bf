// Test helper of the timeline tests (src/app/*.test.ts): appends the steps of tool calls.
import type { RunStore, StoredRun } from '@runledger/trace';

/** Appends a call's `tool_start` or its ending `tool` step (outcome ok) to a run, 10 ms after the previous one from `start`. */
export function callStepRecorder(
  store: RunStore,
  run: StoredRun,
  start: number,
): (kind: 'tool_start' | 'tool', call: number) => Promise<number> {
  let at = start;
  return (kind, call) =>
    store.appendStep(run.id, {
      kind,
      round: call,
      durationMs: kind === 'tool' ? 5 : 0,
      createdAt: (at += 10),
      payload:
        kind === 'tool'
          ? { kind, toolName: 'mcp_docs_search', toolServer: 'docs', toolIsError: false, toolOutcome: 'ok', toolCallId: `call-${call}` }
          : { kind, toolName: 'mcp_docs_search', toolServer: 'docs', toolArguments: {}, toolCallId: `call-${call}` },
      toolServer: 'docs',
      toolOutcome: kind === 'tool' ? 'ok' : null,
    });
}
