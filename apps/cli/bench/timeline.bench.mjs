// Server time of one timeline page of a 10 000-step run (200 rows a page, with its waterfall), of
// the last page of a running run of as many steps with calls on the wire, and of the runs list and
// the servers page, from a SQLite store: the request handler is called directly, so the numbers
// are the app's own time (store reads + rendering), without the network.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { SqliteRunStore } from '@runledger/store-sqlite';
import { fmt, median, percentile, sample, table, verdict } from '../../../bench/lib.mjs';
import { createRunsApp, TIMELINE_PAGE_SIZE } from '../dist/index.js';

const STEPS = Number(process.env.BENCH_STEPS ?? 10_000);
const TARGET_MS = 300;
const T0 = Date.UTC(2026, 0, 5, 3, 17, 41, 123);

/** Calls the handler like node:http would and resolves with the status and body length. */
function get(handler, url, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = { url, method: 'GET', headers: { host: '127.0.0.1:4310', ...headers } };
    let status = 0;
    const res = {
      headersSent: false,
      writeHead(code) {
        status = code;
        this.headersSent = true;
        return this;
      },
      end(body) {
        resolve({ status, bytes: body === undefined ? 0 : Buffer.byteLength(body) });
      },
      destroy() {
        reject(new Error('destroyed'));
      },
    };
    handler(req, res).catch(reject);
  });
}

const dir = mkdtempSync(path.join(tmpdir(), 'runledger-bench-ui-'));
try {
  const store = await SqliteRunStore.open({ path: path.join(dir, 'ui.db') });
  const id = randomUUID();
  const servers = ['docs', 'flaky', 'slow', 'github', 'jira'];
  const steps = [];
  const counts = { ok: 0, failed: 0, cancelled: 0 };
  for (let i = 0; i < STEPS; i++) {
    const createdAt = T0 + i * 37;
    if (i % 5 === 0) {
      steps.push({
        runId: id,
        sequence: i,
        kind: 'llm',
        round: Math.floor(i / 5),
        durationMs: 812,
        createdAt,
        toolServer: null,
        toolOutcome: null,
        payload: JSON.stringify({
          kind: 'llm',
          round: Math.floor(i / 5),
          durationMs: 812,
          model: 'demo-model-1',
          promptTokens: 1200 + i,
          completionTokens: 88,
          finishReason: 'tool_calls',
        }),
      });
      continue;
    }
    const server = servers[i % servers.length];
    const outcome = i % 17 === 0 ? 'cancelled' : i % 7 === 0 ? 'failed' : 'ok';
    counts[outcome]++;
    steps.push({
      runId: id,
      sequence: i,
      kind: 'tool',
      round: Math.floor(i / 5),
      durationMs: 40 + (i % 300),
      createdAt,
      toolServer: server,
      toolOutcome: outcome,
      payload: JSON.stringify({
        kind: 'tool',
        round: Math.floor(i / 5),
        durationMs: 40 + (i % 300),
        toolName: `mcp_${server}_call_${i % 11}`,
        toolServer: server,
        toolIsError: outcome !== 'ok',
        toolOutcome: outcome,
      }),
    });
  }
  const run = {
    id,
    status: 'completed',
    configuration: 'bench-agent',
    actor: 'bench',
    createdAt: T0,
    startedAt: T0,
    finishedAt: T0 + STEPS * 37,
    terminationReason: null,
    cancelRequestedAt: null,
    heartbeatAt: null,
    stepCount: STEPS,
    outcomeCounts: counts,
  };
  await store.importRun(run, steps);
  // the same steps in a run still running, its last three calls sent and not answered: on the wire
  const runningId = randomUUID();
  const WIRE = 3;
  const runningSteps = steps.map((step, i) => {
    if (i < STEPS - WIRE) return { ...step, runId: runningId };
    const server = servers[i % servers.length];
    const payload = {
      kind: 'tool_start',
      round: step.round,
      durationMs: 0,
      toolName: `mcp_${server}_call_${i % 11}`,
      toolServer: server,
      toolCallId: `wire-${i}`,
    };
    return {
      ...step,
      runId: runningId,
      kind: 'tool_start',
      durationMs: 0,
      toolServer: server,
      toolOutcome: null,
      payload: JSON.stringify(payload),
    };
  });
  const runningCounts = { ok: 0, failed: 0, cancelled: 0 };
  for (const step of runningSteps) if (step.toolOutcome !== null) runningCounts[step.toolOutcome]++;
  await store.importRun(
    { ...run, id: runningId, status: 'running', finishedAt: null, heartbeatAt: T0 + STEPS * 37, outcomeCounts: runningCounts },
    runningSteps,
  );
  for (let r = 0; r < 500; r++) {
    const at = T0 - (r + 1) * 60_000;
    await store.importRun(
      {
        ...run,
        id: randomUUID(),
        createdAt: at,
        startedAt: at,
        finishedAt: at + 1000,
        stepCount: 0,
        outcomeCounts: { ok: 0, failed: 0, cancelled: 0 },
      },
      [],
    );
  }

  const handler = createRunsApp({ store, timeZone: 'UTC' });
  const cases = [
    ['timeline, first page', `/runs/${id}`],
    ['timeline, middle page', `/runs/${id}?from=${Math.floor(STEPS / 2)}`],
    ['timeline, last page', `/runs/${id}?from=${STEPS - (STEPS % TIMELINE_PAGE_SIZE || TIMELINE_PAGE_SIZE)}`],
    ['timeline, middle page, German', `/runs/${id}?from=4000&lang=de`],
    [
      `timeline, last page of a running run (${WIRE} calls on the wire)`,
      `/runs/${runningId}?from=${STEPS - (STEPS % TIMELINE_PAGE_SIZE || TIMELINE_PAGE_SIZE)}`,
    ],
    ['runs list, first page (50 of 502)', '/'],
    ['MCP servers page', '/servers'],
  ];
  const rows = [];
  let worstTimeline = 0;
  for (const [label, url] of cases) {
    const first = await get(handler, url);
    if (first.status !== 200) throw new Error(`${url} answered ${first.status}`);
    const cpuBefore = process.cpuUsage();
    const times = await sample(() => get(handler, url), { iterations: 40, warmup: 5 });
    const cpu = process.cpuUsage(cpuBefore);
    const cpuMs = (cpu.user + cpu.system) / 1000 / 45;
    const p95 = percentile(times, 95);
    if (label.startsWith('timeline')) worstTimeline = Math.max(worstTimeline, p95);
    rows.push([
      label,
      fmt(median(times), 2),
      fmt(p95, 2),
      fmt(Math.max(...times), 2),
      fmt(cpuMs, 2),
      String(Math.round(first.bytes / 1024)),
    ]);
  }
  await store.close();

  process.stdout.write(
    [
      `## apps/cli: page render time (${STEPS.toLocaleString('en')}-step run, SQLite)`,
      '',
      `Server time of the request handler (store read + HTML rendering), ${TIMELINE_PAGE_SIZE} steps a timeline page with its waterfall (an SVG bar per step), 40 samples after 5 warm-ups; CPU is the process's user + system time over all 45 requests of a page, divided by 45 (garbage collector threads included). The running run has the same steps, its last ${WIRE} calls on the wire. Load average at the end: ${os
        .loadavg()
        .map((value) => value.toFixed(1))
        .join(' / ')} on ${os.cpus().length} cores.`,
      '',
      table(['page', 'median ms', 'p95 ms', 'max ms', 'CPU ms / request', 'KiB'], rows),
      '',
      `- Timeline page p95 (worst page, waterfall included): ${fmt(worstTimeline, 2)} ms, ${fmt(worstTimeline / TARGET_MS, 2)} of the target — ${verdict(worstTimeline <= TARGET_MS, `≤ ${TARGET_MS} ms per page of a 10 000-step run`)}`,
      '',
    ].join('\n'),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
