// What the alert evaluator reads from a store: per rule, the server health over its window (the
// store's own query, cancels left out), the running runs, and the writes that may have executed.
import type { RunStore, ServerHealthQuery } from '@runledger/trace';
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
import { unsureWrites } from './unsureWrites.js';

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
