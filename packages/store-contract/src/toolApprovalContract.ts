import { RunStep } from '@runledger/trace';
import { describe, expect, it } from 'vitest';
import { BASE, contractStores, toolStep } from './contractSteps.js';
import type { RunStoreContractHarness } from './RunStoreContractHarness.js';

/**
 * Who decided a tool call that needed approval (`toolApproval`, a step payload field): kept in the
 * payload as written and read back into the same step, with no schema change. Called by
 * {@link runRunStoreContract}.
 */
export function runToolApprovalContract(name: string, harness: RunStoreContractHarness): void {
  describe(`RunStore contract: ${name}`, () => {
    const { open } = contractStores(harness);

    it('keeps a tool step’s toolApproval (approved and refused, with and without who and why) and reads it back into the step', async () => {
      const store = await open();
      const run = await store.createRun({ configuration: 'c', createdAt: BASE });
      const steps = [
        RunStep.of({
          kind: 'tool',
          round: 0,
          durationMs: 1,
          toolName: 'mcp_gh_merge',
          toolServer: 'gh',
          toolOutcome: 'ok',
          toolApproval: { approved: true, by: 'alice — ä 😀', reason: 'release day' },
        }),
        RunStep.of({
          kind: 'tool',
          round: 0,
          durationMs: 0,
          toolName: 'mcp_gh_merge',
          toolServer: 'gh',
          toolOutcome: 'failed',
          toolFailureCause: 'not_approved',
          toolApproval: { approved: false, by: null, reason: null },
        }),
      ];
      for (const [index, step] of steps.entries()) {
        const outcome = step.toolOutcome!;
        await store.appendStep(run.id, {
          ...toolStep({ server: 'gh', outcome, createdAt: BASE + index }),
          payload: step.toPayload() as unknown as Record<string, unknown>,
        });
      }
      const stored = await store.readSteps(run.id);
      expect(stored.map((row) => RunStep.fromPayload(JSON.parse(row.payload)).toolApproval)).toEqual(
        steps.map((step) => step.toolApproval),
      );
      expect(stored[0]!.payload).toBe(JSON.stringify(steps[0]!.toPayload()));
    });
  });
}
