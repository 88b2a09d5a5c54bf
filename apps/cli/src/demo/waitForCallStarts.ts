import type { ActiveRun } from '@runledger/trace';

/**
 * Waits until the run has recorded `count` tool call starts (those calls are on the wire), or
 * until `ended` settles first (the agent loop is over). Resolves true for the former.
 *
 * @internal
 */
export async function waitForCallStarts(run: ActiveRun, count: number, ended: Promise<unknown>): Promise<boolean> {
  const settled = ended.then(
    () => true,
    () => true,
  );
  while (run.trace.steps.filter((step) => step.kind === 'tool_start').length < count) {
    if (await Promise.race([settled, new Promise<false>((resolve) => setTimeout(resolve, 10, false))])) return false;
  }
  return true;
}
