import type { ToolOutcome } from '@runledger/core';
import type { RunStore, StoredRun } from '@runledger/trace';

/** One tool call to seed: server, tool, outcome and duration. */
export interface SeedCall {
  readonly server: string;
  readonly tool: string;
  readonly outcome: ToolOutcome;
  readonly durationMs?: number;
  /** Why a failed call failed, as the recorder writes it (`toolFailureCause`). */
  readonly cause?: string;
}

/**
 * Appends tool steps the way the recorder stores them (payload with `toolIsError` derived from
 * the outcome), for tests of the pages that read only the indexed columns and counts.
 */
export async function seedRun(
  store: RunStore,
  options: { configuration: string; createdAt: number; calls: readonly SeedCall[]; finish?: 'completed' | 'failed' | 'cancelled' | null },
): Promise<StoredRun> {
  const run = await store.createRun({ configuration: options.configuration, createdAt: options.createdAt, actor: 'test' });
  let at = options.createdAt;
  for (const call of options.calls) {
    at += 10;
    await store.appendStep(run.id, {
      kind: 'tool',
      round: 1,
      durationMs: call.durationMs ?? 5,
      createdAt: at,
      payload: {
        kind: 'tool',
        toolName: `mcp_${call.server}_${call.tool}`,
        toolServer: call.server,
        toolIsError: call.outcome !== 'ok',
        toolOutcome: call.outcome,
        round: 1,
        durationMs: call.durationMs ?? 5,
        ...(call.cause === undefined ? {} : { toolFailureCause: call.cause }),
      },
      toolServer: call.server,
      toolOutcome: call.outcome,
    });
  }
  if (options.finish === null) return (await store.getRun(run.id))!;
  return store.finishRun(run.id, { status: options.finish ?? 'completed', finishedAt: at + 10 });
}
