// What the alert evaluator reads from a store: per rule, the server health over its window (the
// store's own query, cancels left out), the running runs, and the writes that may have executed.
import { buildRunTimeline, canSearchRuns, type RunStore, type ServerHealthQuery } from '@runledger/trace';
import type { AlertRules } from './alertRules.js';
import {
  evaluateAlerts,
  healthRules,
  type ActiveAlert,
  type AlertReadings,
  type HealthRule,
  type RunningRunReading,
  type UnsureWriteReading,
} from './evaluateAlerts.js';

/** The most pages (of 200) one reading walks, so that one pass stays bounded on a huge store. */
const MAX_PAGES = 50;

async function runningRuns(store: RunStore): Promise<RunningRunReading[]> {
  const runs: RunningRunReading[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const listed = await store.listRuns({ status: 'running', limit: 200, cursor });
    for (const run of listed.runs)
      runs.push({ runId: run.id, configuration: run.configuration, lastSignAt: run.heartbeatAt ?? run.startedAt ?? run.createdAt });
    cursor = listed.nextCursor;
    if (cursor === null) break;
  }
  return runs;
}

/** The failed calls to writing tools since a time that may have executed (never a cancelled one: that was the operator). */
async function unsureWrites(store: RunStore, since: number): Promise<UnsureWriteReading[]> {
  if (!canSearchRuns(store)) return [];
  const writes: UnsureWriteReading[] = [];
  for (const { server } of await store.serverHealth({ since })) {
    let cursor: string | null = null;
    for (let page = 0; page < MAX_PAGES; page++) {
      const listed = await store.listToolCalls({ server, outcome: 'failed', since, limit: 200, cursor });
      for (const call of listed.calls) {
        const steps = await store.readSteps(call.runId, { fromSequence: call.sequence, limit: 1 });
        const entry = buildRunTimeline(null, steps).find((e) => e.sequence === call.sequence);
        if (entry?.mayHaveExecuted === true)
          writes.push({ runId: call.runId, sequence: call.sequence, server, tool: call.tool, createdAt: call.createdAt });
      }
      cursor = listed.nextCursor;
      if (cursor === null) break;
    }
  }
  return writes;
}

/** The server health query a rule reads at `now`: its window, and a flaky rule's own threshold. @internal */
export function healthQueryOf(rule: HealthRule, now: number): ServerHealthQuery {
  if (rule.kind !== 'flaky' || (rule.failureRate === undefined && rule.minCalls === undefined)) return { since: now - rule.window };
  return {
    since: now - rule.window,
    flaky: {
      ...(rule.failureRate === undefined ? {} : { failureRate: rule.failureRate }),
      ...(rule.minCalls === undefined ? {} : { minAnsweredCalls: rule.minCalls }),
    },
  };
}

/**
 * Reads what the rules need from the store at `now`.
 *
 * @internal
 */
export async function readAlertReadings(store: RunStore, rules: AlertRules, now: number): Promise<AlertReadings> {
  const health: Record<string, Awaited<ReturnType<RunStore['serverHealth']>>> = {};
  for (const rule of healthRules(rules)) health[rule.id] = await store.serverHealth(healthQueryOf(rule, now));
  const unsure: Record<string, UnsureWriteReading[]> = {};
  for (const rule of rules.rules) if (rule.kind === 'may-have-executed') unsure[rule.id] = await unsureWrites(store, now - rule.window);
  const stalled = rules.rules.some((r) => r.kind === 'stalled-run');
  return { now, health, runningRuns: stalled ? await runningRuns(store) : [], unsureWrites: unsure };
}

/**
 * The alerts of the rules that fire on the store now, without a state (what `servers --check` reports).
 *
 * @internal
 */
export async function firingAlerts(store: RunStore, rules: AlertRules, now: number): Promise<ActiveAlert[]> {
  return Object.values(evaluateAlerts(rules, await readAlertReadings(store, rules, now), {}).states);
}
