// A `tool` step ending a call, appended to a real store as the recorder writes it: the alert tests' fixture.
import type { RunStore, StoredRun } from '@runledger/trace';

/** Appends a `tool` step ending a call to `server` at `at`, with `extra` payload fields (a cause, `toolWrites`, `toolSends`). */
export function toolCallStep(
  store: RunStore,
  run: StoredRun,
  at: number,
  outcome: 'ok' | 'failed' | 'cancelled',
  extra: Record<string, unknown> = {},
  server = 'flaky',
): Promise<number> {
  return store.appendStep(run.id, {
    kind: 'tool',
    round: 0,
    durationMs: 20,
    createdAt: at,
    payload: {
      kind: 'tool',
      toolName: `mcp_${server}_do`,
      toolServer: server,
      toolIsError: outcome !== 'ok',
      toolOutcome: outcome,
      ...extra,
    },
    toolServer: server,
    toolOutcome: outcome,
  });
}
