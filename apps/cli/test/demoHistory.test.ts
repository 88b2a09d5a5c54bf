// The demo's week of history (issue 40 item 5): imported into a real SQLite file through the store's
// importRun, marked as imported demo history, the same on every demo, never imported twice, and
// shaped like a real week (a steady server, a flaky one getting worse then recovering, a slow one
// whose operator cancels never count against it, failures with causes).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteRunStore } from '@runledger/store-sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_RUN_COUNT } from '../src/demo/runDemo.js';
import { cli } from './cliHelpers.js';
import { HISTORY_MARK, HISTORY_SPAN_MS, planDemoHistory } from '../src/demo/demoHistoryPlan.js';
import { importDemoHistory } from '../src/demo/importDemoHistory.js';
import { readServerTrends } from '../src/viewModels/serverTrends.js';
import { fittingWindow } from '../src/viewModels/serversQuery.js';

const DAY = 24 * 3_600_000;
const dir = mkdtempSync(join(tmpdir(), 'runledger-demo-history-'));
// Yesterday noon (UTC), not the clock: the history's last run starts 20 minutes or more before its
// now, so a now in the first minutes of a UTC day has no history call in today's bucket (the demo's
// live runs fill that one), and the week-chart test below failed when run just after midnight.
const now = Math.floor(Date.now() / DAY) * DAY - DAY / 2;
let store: SqliteRunStore;

beforeAll(async () => {
  store = await SqliteRunStore.open({ path: join(dir, 'runledger.db') });
});
afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function allRuns() {
  const runs = [];
  let cursor: string | null = null;
  do {
    const page = await store.listRuns({ limit: 200, cursor });
    runs.push(...page.runs);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return runs;
}

describe('the demo history', () => {
  it('is planned the same on every call (seeded): same ids, same calls', () => {
    expect(planDemoHistory()).toEqual(planDemoHistory());
    const ids = planDemoHistory().map((run) => run.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('imports a week of runs marked as imported demo history, and never twice', async () => {
    const first = await importDemoHistory(store, now);
    expect(first.imported).toBe(first.runs);
    expect(first.runs).toBeGreaterThan(100);
    const again = await importDemoHistory(store, now + 60_000);
    expect(again).toEqual({ runs: first.runs, imported: 0 });
    const runs = await allRuns();
    expect(runs).toHaveLength(first.runs);
    for (const run of runs) {
      expect(run.configuration).toContain(HISTORY_MARK);
      expect(run.title).toContain(HISTORY_MARK);
      expect(run.createdAt).toBeLessThan(now);
      expect(run.createdAt).toBeGreaterThanOrEqual(now - HISTORY_SPAN_MS);
      const steps = await store.readSteps(run.id);
      expect(steps.map((step) => step.sequence)).toEqual(steps.map((_, i) => i));
    }
    const statuses = new Set(runs.map((run) => run.status));
    expect([...statuses].sort()).toEqual(['cancelled', 'completed', 'failed']);
  });

  it('gives every demo server calls on each of the 7 days of the week window, so its charts have a line, not a dot', async () => {
    const trends = await readServerTrends(store, '7d', now);
    expect([...trends.byServer.keys()].sort()).toEqual(['docs', 'flaky', 'slow']);
    for (const [server, points] of trends.byServer) {
      expect(points, server).toHaveLength(7);
      for (const point of points) expect(point.calls, `${server} on ${new Date(point.bucketStart).toISOString()}`).toBeGreaterThan(0);
    }
    // and the week is the window that holds it all
    const counts = await Promise.all(
      [now - DAY, now - 7 * DAY, undefined].map((since) => store.serverHealth(since === undefined ? {} : { since })),
    );
    const calls = counts.map((rows) => rows.reduce((sum, row) => sum + row.calls, 0));
    expect(fittingWindow({ '24h': calls[0]!, '7d': calls[1]!, all: calls[2]! })).toBe('7d');
  });

  it('has a steady server, a flaky one that got worse and recovered, and operator cancels that do not count against the slow one', async () => {
    const health = await store.serverHealth();
    const docs = health.find((row) => row.server === 'docs')!;
    const flaky = health.find((row) => row.server === 'flaky')!;
    const slow = health.find((row) => row.server === 'slow')!;
    expect(docs.flaky).toBe(false);
    expect(docs.failureRate!).toBeLessThan(0.03);
    expect(flaky.flaky).toBe(true);
    expect(flaky.failureCauses.map((c) => c.cause).sort()).toEqual(['mcp_http_status', 'mcp_timeout', 'server_error']);
    expect(slow.cancelled).toBeGreaterThan(3);
    // a cancel is never a failure: the slow server's rate counts its failed calls alone
    expect(slow.failureRate).toBeCloseTo(slow.failed / (slow.ok + slow.failed), 10);
    const trend = (await readServerTrends(store, '7d', now)).byServer.get('flaky')!;
    const rates = trend.map((point) => point.failureRate!);
    const worst = Math.max(...rates);
    expect(worst).toBeGreaterThan(rates[0]! + 0.15);
    expect(worst).toBeGreaterThan(rates[6]! + 0.15);
    // failed calls carry their cause and what the transport knew
    const failing = await store.listToolCalls({ server: 'flaky', outcome: 'failed', limit: 200 });
    expect(failing.calls.some((call) => call.failureFacts?.httpStatus === 503)).toBe(true);
    const cancelled = (await allRuns()).filter((run) => run.status === 'cancelled');
    expect(cancelled.length).toBeGreaterThan(3);
    for (const run of cancelled) expect(run.terminationReason).toMatch(/operator cancelled/);
  });
});

describe('runledger demo on a fresh file', () => {
  it('imports the week of history once, then records its runs; a second demo finds the history there', { timeout: 120_000 }, async () => {
    const file = join(dir, 'fresh.db');
    const runs = planDemoHistory().length;
    const first = await cli(['demo', '--no-serve', '--db', file], dir);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`importing a week of demo history (its configurations and titles say "${HISTORY_MARK}")`);
    expect(first.stdout).toContain(`imported ${runs} runs of the last 7 days`);
    expect(first.stdout).toContain(`(${runs + DEMO_RUN_COUNT} runs in the file now)`);
    const second = await cli(['demo', '--no-serve', '--db', file], dir);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(`the demo history is in the file already (${runs} runs): nothing imported`);
    expect(second.stdout).toContain(`(${runs + 2 * DEMO_RUN_COUNT} runs in the file now)`);
  });
});
