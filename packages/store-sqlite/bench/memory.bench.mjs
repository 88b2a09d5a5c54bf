// Reading a 100 000-step run page by page (readSteps with fromSequence/limit, each page turned into
// timeline entries and dropped) stays under 100 MB RSS. The run is written by a child process, so
// the reader's memory holds only what reading costs.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, rssMb, table, verdict } from '../../../bench/lib.mjs';

const STEPS = 100_000;
const PAGE = Number(process.env.BENCH_PAGE ?? 1_000);
const TARGET_MB = 100;
const T0 = Date.UTC(2026, 0, 5, 9);

if (process.argv[2] === '--write') {
  // child: one run of STEPS tool steps with ~1 KB payloads (as at privacy level "full")
  const { SqliteRunStore } = await import('../dist/index.js');
  const [file, id] = process.argv.slice(3);
  const store = await SqliteRunStore.open({ path: file });
  const steps = [];
  for (let i = 0; i < STEPS; i++) {
    const server = `server${i % 20}`;
    const outcome = i % 13 === 0 ? 'failed' : 'ok';
    const payload = {
      kind: 'tool',
      round: Math.floor(i / 4),
      durationMs: 40.5,
      toolName: `mcp_${server}_read`,
      toolServer: server,
      toolArguments: { path: `/docs/${i}.md` },
      toolResult: `line ${i} `.repeat(90).slice(0, 900),
      toolIsError: outcome !== 'ok',
      toolOutcome: outcome,
    };
    steps.push({
      runId: id,
      sequence: i,
      kind: 'tool',
      round: payload.round,
      durationMs: 40.5,
      createdAt: T0 + i * 10,
      payload: JSON.stringify(payload),
      toolServer: server,
      toolOutcome: outcome,
    });
  }
  const run = {
    id,
    status: 'completed',
    configuration: 'bench',
    actor: null,
    createdAt: T0,
    startedAt: T0,
    finishedAt: T0 + STEPS * 10,
    terminationReason: null,
    cancelRequestedAt: null,
    heartbeatAt: null,
    stepCount: STEPS,
    outcomeCounts: { ok: 0, failed: 0, cancelled: 0 },
  };
  await store.importRun(run, steps);
  await store.close();
  process.exit(0);
}

const dir = mkdtempSync(path.join(tmpdir(), 'runledger-bench-memory-'));
try {
  const file = path.join(dir, 'memory.db');
  const id = randomUUID();
  execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--write', file, id], { stdio: 'inherit' });
  const sizeMb = (statSync(file).size + (statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0)) / 1024 / 1024;

  const { SqliteRunStore } = await import('../dist/index.js');
  const { buildRunTimeline } = await import('@runledger/trace');
  const before = rssMb();
  const store = await SqliteRunStore.open({ path: file });
  const run = await store.getRun(id);
  let peak = rssMb();
  let read = 0;
  let entries = 0;
  let failed = 0;
  const start = performance.now();
  for (let from = 0; ; from += PAGE) {
    const page = await store.readSteps(id, { fromSequence: from, limit: PAGE });
    if (page.length === 0) break;
    read += page.length;
    const built = buildRunTimeline(from === 0 ? run : null, page);
    entries += built.length;
    failed += built.filter((e) => e.outcome === 'failed').length;
    peak = Math.max(peak, rssMb());
  }
  const elapsed = performance.now() - start;
  await store.close();
  const complete = read === STEPS && failed === Math.ceil(STEPS / 13);
  console.log(`## store-sqlite: reading a ${STEPS.toLocaleString('en')}-step run page by page

Payloads of about 1 KB each (${fmt(sizeMb, 1)} MB of database), read with \`readSteps({ fromSequence, limit: ${PAGE} })\`; each page is built into timeline entries and then dropped. RSS is the whole reading process (Node, better-sqlite3 and its 4 MiB page cache included). Load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores.

${table(
  ['steps read', 'entries built', 'RSS before open MB', 'peak RSS MB', 'time s'],
  [[String(read), String(entries), fmt(before, 1), fmt(peak, 1), fmt(elapsed / 1000, 2)]],
)}

- ${verdict(peak < TARGET_MB && complete, `peak RSS < ${TARGET_MB} MB while reading every step (peak ${fmt(peak, 1)} MB; all steps read: ${complete ? 'yes' : 'NO'})`)}
`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
