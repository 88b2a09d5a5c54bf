// Imports the demo's week of history (demoHistoryPlan.ts) into a store: each run is recorded as the
// recorder records a live one (startRun, RunTrace, the demo's privacy level), into a store in
// memory on a clock of its own, then copied with the target's importRun (copyRuns) — no SQL here.
import { ToolResult } from '@runledger/core';
import { type ActiveRun, copyRuns, InMemoryRunStore, type RunStore, startRun } from '@runledger/trace';
import { DEMO_MODEL_ID } from './demoModel.js';
import { DEMO_PRIVACY } from './LiveDemoRun.js';
import { HISTORY_ACTOR, type HistoryCall, type HistoryRun, planDemoHistory } from './demoHistoryPlan.js';

/** What importing the history did. @internal */
export interface DemoHistoryResult {
  /** How many runs the history has. */
  readonly runs: number;
  /** How many of them this import wrote (0 when an earlier demo imported them already). */
  readonly imported: number;
}

function resultOf(call: HistoryCall): ToolResult {
  if (call.outcome === 'ok') return ToolResult.text(call.text);
  if (call.outcome === 'cancelled') return ToolResult.cancelled(call.text);
  return ToolResult.failure(call.text, call.cause!, call.facts);
}

/** Records one planned run into `store`, its times from `startsAt` on (the clock moves as the run does). */
async function record(store: RunStore, plan: HistoryRun, startsAt: number): Promise<void> {
  let at = startsAt;
  const run: ActiveRun = await startRun(store, {
    id: plan.id,
    configuration: plan.configuration,
    title: plan.title,
    actor: HISTORY_ACTOR,
    privacy: DEMO_PRIVACY,
    clock: () => at,
    heartbeatMs: 0,
    spoolDir: false,
  });
  const { trace } = run;
  await trace.recordRequest({ content: plan.question });
  for (const [index, round] of plan.rounds.entries()) {
    at += round.thinkMs;
    await trace.recordLlmCall({
      round: index,
      durationMs: round.thinkMs,
      model: DEMO_MODEL_ID,
      provider: 'runledger-demo',
      content: round.answer,
      promptTokens: round.promptTokens,
      completionTokens: round.completionTokens,
    });
    for (const call of round.calls) {
      const toolName = `mcp_${call.server}_${call.tool}`;
      const options = { round: index, toolName, toolServer: call.server, toolArguments: call.args, writes: call.writes === true };
      const start = await trace.recordToolStart(options);
      at += call.durationMs;
      // the operator's cancel reaches the run while the call is on the wire; the call then ends cancelled
      if (call.outcome === 'cancelled' && plan.ending.kind === 'cancelled') await run.cancel(plan.ending.reason);
      await trace.recordToolResult({ ...options, durationMs: call.durationMs, toolCallId: start.toolCallId!, result: resultOf(call) });
    }
  }
  at += 50;
  // after the cancel, complete() ends the run cancelled
  if (plan.ending.kind === 'failed') await run.fail(new Error(plan.ending.message));
  else await run.complete();
}

/**
 * Imports the demo's week of history into `target`, placed before `now`, unless an earlier demo
 * did: the runs have fixed ids, the oldest is imported last (copyRuns goes newest first), so when it
 * is there they all are; a run already there is skipped either way (importRun).
 *
 * @internal
 */
export async function importDemoHistory(target: RunStore, now: number): Promise<DemoHistoryResult> {
  const plan = planDemoHistory();
  const oldest = plan[0];
  if (oldest === undefined || (await target.getRun(oldest.id)) !== null) return { runs: plan.length, imported: 0 };
  const memory = InMemoryRunStore.create();
  try {
    for (const run of plan) await record(memory, run, now - run.startsBefore);
    const copied = await copyRuns(memory, target);
    return { runs: plan.length, imported: copied.runsCopied };
  } finally {
    await memory.close();
  }
}
