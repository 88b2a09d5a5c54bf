// The pure alert evaluator: (rules, store readings, previous states) → the alerts active now and
// the transitions (firing, resolved) since the previous states. No I/O, no clock: readings carry
// the time they were read at.
import type { ServerHealth } from '@runledger/trace';
import { alertSummaryText } from '../i18n/alertSummaryText.js';
import { Translator } from '../i18n/Translator.js';
import type { AlertRule, AlertRules } from './alertRules.js';

/** The language of an alert's `summary`: webhooks and the terminal read it; the page says it in its own. */
const ENGLISH = new Translator('en', { timeZone: 'UTC' });

/** A running run and its last sign of life (heartbeat, else start). @internal */
export interface RunningRunReading {
  readonly runId: string;
  readonly configuration: string;
  readonly lastSignAt: number;
}

/** A call to a writing tool that failed unanswered (it may have executed on the server). @internal */
export interface UnsureWriteReading {
  readonly runId: string;
  readonly sequence: number;
  readonly server: string;
  readonly tool: string | null;
  readonly createdAt: number;
}

/** What the evaluator reads from the store, at one time. @internal */
export interface AlertReadings {
  /** When the readings were taken (ms since the epoch). */
  readonly now: number;
  /** Per server-health rule (flaky, failure-rate, p95), by rule id: the health over its window. */
  readonly health: Readonly<Record<string, readonly ServerHealth[]>>;
  /** Every running run. */
  readonly runningRuns: readonly RunningRunReading[];
  /** Per may-have-executed rule, by rule id: the unsure writes in its window. */
  readonly unsureWrites: Readonly<Record<string, readonly UnsureWriteReading[]>>;
}

/**
 * The figures an alert's sentence is made of, so that the servers page can say it in its own
 * language (the `summary` is the English one, for webhooks and the terminal). @internal
 */
export type AlertFacts =
  | {
      readonly kind: 'flaky';
      readonly server: string;
      readonly failureRate: number;
      readonly answered: number;
      readonly windowMs: number;
    }
  | {
      readonly kind: 'failure-rate';
      readonly server: string;
      readonly failureRate: number;
      readonly answered: number;
      readonly windowMs: number;
      readonly aboveRate: number;
    }
  | {
      readonly kind: 'p95';
      readonly server: string;
      readonly p95Ms: number;
      readonly answered: number;
      readonly windowMs: number;
      readonly aboveMs: number;
    }
  | {
      readonly kind: 'stalled-run';
      readonly runId: string;
      readonly configuration: string;
      readonly silentMs: number;
      readonly afterMs: number;
    }
  | {
      readonly kind: 'may-have-executed';
      readonly server: string;
      readonly tool: string | null;
      readonly runId: string;
      readonly sequence: number;
    };

/** One alert that fires: a rule and what it fires about. @internal */
export interface ActiveAlert {
  /** `<rule id>|<subject>`: the identity of the alert across evaluations. */
  readonly key: string;
  readonly ruleId: string;
  readonly kind: AlertRule['kind'];
  /** What it is about: a server id, a run id, or `<run id>#<sequence>`. */
  readonly subject: string;
  /** When it started to fire (ms). */
  readonly since: number;
  /** The figure that made it fire (a failure rate, a p95 in ms, ms without a sign of life), or null. */
  readonly value: number | null;
  /** One sentence for people, in English. */
  readonly summary: string;
  /** What the sentence says, for other languages; absent from alerts saved before it was kept. */
  readonly facts?: AlertFacts;
}

/** The active alerts by key. @internal */
export type AlertStates = Readonly<Record<string, ActiveAlert>>;

/** A change of one alert: it started to fire, or it resolved. @internal */
export interface AlertTransition {
  readonly type: 'firing' | 'resolved';
  readonly alert: ActiveAlert;
  /** When the change was seen (ms). */
  readonly at: number;
}

/** An evaluation's result. @internal */
export interface AlertEvaluation {
  readonly states: AlertStates;
  readonly transitions: readonly AlertTransition[];
}

type Hit = Omit<ActiveAlert, 'key' | 'ruleId' | 'kind' | 'since' | 'summary'> & { readonly facts: AlertFacts };

function healthHits(rule: HealthRule, rows: readonly ServerHealth[]): Hit[] {
  const hits: Hit[] = [];
  for (const row of rows) {
    if (rule.server !== undefined && row.server !== rule.server) continue;
    const counted = row.ok + row.failed - row.notCharged;
    if (rule.kind === 'flaky') {
      if (row.flaky && row.failureRate !== null)
        hits.push({
          subject: row.server,
          value: row.failureRate,
          facts: { kind: 'flaky', server: row.server, failureRate: row.failureRate, answered: counted, windowMs: rule.window },
        });
    } else if (rule.kind === 'failure-rate') {
      if (row.failureRate !== null && counted >= rule.minCalls && row.failureRate > rule.above)
        hits.push({
          subject: row.server,
          value: row.failureRate,
          facts: {
            kind: 'failure-rate',
            server: row.server,
            failureRate: row.failureRate,
            answered: counted,
            windowMs: rule.window,
            aboveRate: rule.above,
          },
        });
    } else if (row.p95DurationMs !== null && row.answered >= (rule.minCalls ?? 1) && row.p95DurationMs > rule.aboveMs) {
      hits.push({
        subject: row.server,
        value: row.p95DurationMs,
        facts: {
          kind: 'p95',
          server: row.server,
          p95Ms: row.p95DurationMs,
          answered: row.answered,
          windowMs: rule.window,
          aboveMs: rule.aboveMs,
        },
      });
    }
  }
  return hits;
}

function ruleHits(rule: AlertRule, readings: AlertReadings): Hit[] {
  switch (rule.kind) {
    case 'flaky':
    case 'failure-rate':
    case 'p95':
      return healthHits(rule, readings.health[rule.id] ?? []);
    case 'stalled-run':
      return readings.runningRuns
        .filter((run) => readings.now - run.lastSignAt >= rule.after)
        .map((run) => ({
          subject: run.runId,
          value: readings.now - run.lastSignAt,
          facts: {
            kind: 'stalled-run',
            runId: run.runId,
            configuration: run.configuration,
            silentMs: readings.now - run.lastSignAt,
            afterMs: rule.after,
          },
        }));
    case 'may-have-executed':
      return (readings.unsureWrites[rule.id] ?? [])
        .filter((w) => rule.server === undefined || w.server === rule.server)
        .map((w) => ({
          subject: `${w.runId}#${w.sequence}`,
          value: null,
          facts: { kind: 'may-have-executed', server: w.server, tool: w.tool, runId: w.runId, sequence: w.sequence },
        }));
  }
}

/**
 * Evaluates every rule against the readings: the alerts active now (an alert keeps the `since` of
 * its first firing) and the transitions from `previous` — `firing` for an alert not active before,
 * `resolved` for one active before and not now (its rule removed included).
 *
 * @internal
 */
export function evaluateAlerts(rules: AlertRules, readings: AlertReadings, previous: AlertStates): AlertEvaluation {
  const states: Record<string, ActiveAlert> = {};
  const transitions: AlertTransition[] = [];
  for (const rule of rules.rules) {
    for (const hit of ruleHits(rule, readings)) {
      const key = `${rule.id}|${hit.subject}`;
      const before = previous[key];
      const alert: ActiveAlert = {
        ...hit,
        key,
        ruleId: rule.id,
        kind: rule.kind,
        since: before?.since ?? readings.now,
        summary: alertSummaryText(ENGLISH, hit.facts),
      };
      states[key] = alert;
      if (before === undefined) transitions.push({ type: 'firing', alert, at: readings.now });
    }
  }
  for (const [key, alert] of Object.entries(previous)) {
    if (!Object.hasOwn(states, key)) transitions.push({ type: 'resolved', alert, at: readings.now });
  }
  return { states, transitions };
}

/** A rule whose readings are server health. @internal */
export type HealthRule = Extract<AlertRule, { kind: 'flaky' | 'failure-rate' | 'p95' }>;

/** The rules of a file whose readings are server health. @internal */
export function healthRules(rules: AlertRules): HealthRule[] {
  return rules.rules.filter((r): r is HealthRule => r.kind === 'flaky' || r.kind === 'failure-rate' || r.kind === 'p95');
}
