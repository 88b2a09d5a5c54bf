// An alert's sentence in each language the app speaks, from the facts the evaluator saves: the
// servers page says it in its own language (issue 41), webhooks and the terminal carry the English one.
import { describe, expect, it } from 'vitest';
import type { AlertFacts } from '../alerts/evaluateAlerts.js';
import { alertSummaryText } from './alertSummaryText.js';
import { Translator } from './Translator.js';

const NBSP = '\u00a0';
const CASES: readonly (readonly [AlertFacts, string, string])[] = [
  [
    { kind: 'flaky', server: 'search', failureRate: 0.4, answered: 25, windowMs: 3_600_000 },
    'server search is flaky: 40.0% of 25 answered calls failed in the last 1 hr',
    `Server search ist unzuverlässig: 40,0${NBSP}% von 25 beantworteten Aufrufen in den letzten 1 Std. fehlgeschlagen`,
  ],
  [
    { kind: 'failure-rate', server: 'db', failureRate: 1, answered: 1, windowMs: 900_000, aboveRate: 0.25 },
    'server db: 100.0% of 1 answered call failed in the last 15 min (above 25.0%)',
    `Server db: 100,0${NBSP}% von 1 beantworteten Aufruf in den letzten 15 Min. fehlgeschlagen (über 25,0${NBSP}%)`,
  ],
  [
    { kind: 'p95', server: 'docs', p95Ms: 2500, answered: 1200, windowMs: 86_400_000, aboveMs: 2000 },
    'server docs: p95 2.5 sec over 1,200 answered calls in the last 24 hr (above 2 sec)',
    'Server docs: p95 2,5 Sek. über 1.200 beantwortete Aufrufe in den letzten 24 Std. (über 2 Sek.)',
  ],
  [
    { kind: 'stalled-run', runId: 'r-1', configuration: 'nightly', silentMs: 1_250_000, afterMs: 600_000 },
    'run r-1 (nightly) is running with no sign of life for 20 min 50 sec (rule: 10 min)',
    'Lauf r-1 (nightly) läuft seit 20 Min. 50 Sek. ohne Lebenszeichen (Regel: 10 Min.)',
  ],
  [
    { kind: 'may-have-executed', server: 'db', tool: 'mcp_db_write', runId: 'r-2', sequence: 1234 },
    'a write may have executed: mcp_db_write on server db (run r-2, step 1234) failed without an answer',
    'Ein Schreibaufruf wurde möglicherweise ausgeführt: mcp_db_write auf Server db (Lauf r-2, Schritt 1234) ist ohne Antwort fehlgeschlagen',
  ],
  [
    { kind: 'may-have-executed', server: 'db', tool: null, runId: 'r-2', sequence: 0 },
    'a write may have executed: a tool on server db (run r-2, step 0) failed without an answer',
    'Ein Schreibaufruf wurde möglicherweise ausgeführt: ein Tool auf Server db (Lauf r-2, Schritt 0) ist ohne Antwort fehlgeschlagen',
  ],
];

describe('alertSummaryText', () => {
  it.each(CASES)('says %j in English and German', (facts, english, german) => {
    expect(alertSummaryText(new Translator('en', { timeZone: 'UTC' }), facts)).toBe(english);
    expect(alertSummaryText(new Translator('de', { timeZone: 'UTC' }), facts)).toBe(german);
  });
});
