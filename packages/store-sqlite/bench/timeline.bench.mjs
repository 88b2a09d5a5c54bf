// The timeline of a 10 000-step run: getRun + readSteps + buildRunTimeline, ≤ 50 ms.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { buildRunTimeline } from '@runledger/trace';
import { fmt, median, percentile, sample, table, verdict } from '../../../bench/lib.mjs';
import { SqliteRunStore } from '../dist/index.js';

const STEPS = 10_000;
const TARGET_MS = 50;
const T0 = Date.UTC(2026, 0, 5, 9);

/** A realistic mix: per round a request-less llm call and a few tool calls (metadata privacy payloads). */
export function makeSteps(runId, count, t0) {
  const steps = [];
  for (let i = 0; i < count; i++) {
    const round = Math.floor(i / 4);
    const createdAt = t0 + i * 25;
    if (i % 4 === 0) {
      const payload = {
        kind: 'llm',
        round,
        durationMs: 812.25,
        model: 'gpt-x',
        finishReason: 'tool_calls',
        promptTokens: 1200 + i,
        completionTokens: 80,
        costUsd: 0.0021,
        contentLength: 312,
        requestedToolCallCount: 3,
      };
      steps.push({
        runId,
        sequence: i,
        kind: 'llm',
        round,
        durationMs: 812.25,
        createdAt,
        payload: JSON.stringify(payload),
        toolServer: null,
        toolOutcome: null,
      });
    } else {
      const server = `server${i % 20}`;
      const outcome = i % 13 === 0 ? 'failed' : i % 97 === 0 ? 'cancelled' : 'ok';
      const payload = {
        kind: 'tool',
        round,
        durationMs: 40.5,
        toolName: `mcp_${server}_search_issues`,
        toolServer: server,
        toolArgumentsLength: 48,
        toolResultLength: 2048,
        toolIsError: outcome !== 'ok',
        toolOutcome: outcome,
        toolArtifactCount: 1,
      };
      steps.push({
        runId,
        sequence: i,
        kind: 'tool',
        round,
        durationMs: 40.5,
        createdAt,
        payload: JSON.stringify(payload),
        toolServer: server,
        toolOutcome: outcome,
      });
    }
  }
  return steps;
}

const dir = mkdtempSync(path.join(tmpdir(), 'runledger-bench-timeline-'));
try {
  const store = await SqliteRunStore.open({ path: path.join(dir, 'timeline.db') });
  const id = randomUUID();
  const run = {
    id,
    status: 'completed',
    configuration: 'bench',
    actor: null,
    createdAt: T0,
    startedAt: T0,
    finishedAt: T0 + STEPS * 25,
    terminationReason: null,
    cancelRequestedAt: null,
    heartbeatAt: null,
    stepCount: STEPS,
    outcomeCounts: { ok: 0, failed: 0, cancelled: 0 },
  };
  await store.importRun(run, makeSteps(id, STEPS, T0));
  // other runs around it, so the run is not alone in the file
  for (let r = 0; r < 5; r++) {
    const other = randomUUID();
    await store.importRun({ ...run, id: other, createdAt: T0 + r }, makeSteps(other, STEPS, T0 + r));
  }

  let entries = 0;
  let readOnly = [];
  const cpuStart = process.cpuUsage();
  const times = await sample(
    async () => {
      const stored = await store.getRun(id);
      const steps = await store.readSteps(id);
      entries = buildRunTimeline(stored, steps).length;
    },
    { iterations: 30, warmup: 3 },
  );
  const cpu = process.cpuUsage(cpuStart);
  const cpuMs = (cpu.user + cpu.system) / 1000 / 33;
  readOnly = await sample(() => store.readSteps(id), { iterations: 30, warmup: 3 });
  await store.close();
  const p50 = median(times);
  console.log(`## store-sqlite: timeline of a ${STEPS.toLocaleString('en')}-step run

\`getRun\` + \`readSteps\` (all ${STEPS.toLocaleString('en')} steps, one rowid range: a step's rowid is (run number << 32) + sequence) + \`buildRunTimeline\`, in a file holding six such runs. Load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores.

${table(
  ['measure', 'median ms', 'p95 ms'],
  [
    [`read + build (${entries} entries)`, fmt(p50), fmt(percentile(times, 95))],
    ['read only', fmt(median(readOnly)), fmt(percentile(readOnly, 95))],
  ],
)}

Process CPU time per read + build: ${fmt(cpuMs)} ms (all threads, the garbage collector's helpers included, so it can exceed the wall time; it does not grow with other load on the machine as wall time does).

- ${verdict(p50 <= TARGET_MS && entries >= STEPS, `read + build ≤ ${TARGET_MS} ms (median ${fmt(p50)} ms)`)}
`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
