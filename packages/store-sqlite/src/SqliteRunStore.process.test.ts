import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SqliteRunStore } from './SqliteRunStore.js';
import { setExactHealthMaxCalls } from './SqliteRunStoreInternals.js';
import { tempFolder } from './testing/tempDatabase.js';
import { finished, spawnNode } from './testing/spawnNode.js';

// The children run the BUILT store (dist/), as another program would.
beforeAll(() => {
  if (!existsSync(fileURLToPath(new URL('../dist/index.js', import.meta.url)))) {
    throw new Error('build @runledger/store-sqlite first: these tests run child processes against dist/');
  }
});

let folder: ReturnType<typeof tempFolder>;
beforeEach(() => {
  folder = tempFolder();
});
afterEach(() => folder.remove());

describe('durability', () => {
  it('keeps every acknowledged step when the writer is killed with SIGKILL mid-run', async () => {
    const path = folder.file();
    const runId = randomUUID();
    const child = spawnNode('durabilityWriter.mjs', [path, runId, '10000']);
    const done = finished(child);
    let acknowledged = 0;
    await new Promise<void>((resolve, reject) => {
      let buffer = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        buffer += chunk.toString('utf8');
        let newline: number;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          const match = /^ack (\d+)$/.exec(line);
          if (match) acknowledged = Number(match[1]);
          if (acknowledged >= 600 && !child.killed) {
            child.kill('SIGKILL');
            resolve();
          }
        }
      });
      child.on('close', () => reject(new Error(`the writer ended before it was killed (acknowledged ${acknowledged})`)));
    });
    const result = await done;
    expect(result.signal).toBe('SIGKILL');
    expect(acknowledged).toBeGreaterThanOrEqual(600);

    const check = new Database(path);
    expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
    check.close();
    const store = await SqliteRunStore.open({ path });
    const steps = await store.readSteps(runId);
    // every acknowledged step is there; the writer was still going, so none of the 10 000 ended it
    expect(steps.length).toBeGreaterThanOrEqual(acknowledged);
    expect(steps.length).toBeLessThan(10_000);
    expect(steps.map((s) => s.sequence)).toEqual(Array.from({ length: steps.length }, (_, i) => i));
    steps.forEach((step, i) => expect(JSON.parse(step.payload).index).toBe(i));
    const run = (await store.getRun(runId))!;
    expect(run.status).toBe('running');
    expect(run.stepCount).toBe(steps.length);
    expect(run.outcomeCounts.failed + run.outcomeCounts.ok).toBe(steps.length);
    expect(run.heartbeatAt).not.toBeNull();
    const health = await store.serverHealth();
    expect(health).toEqual([expect.objectContaining({ server: 'disk', calls: steps.length, failed: run.outcomeCounts.failed })]);
    // the heartbeat is stale from now on: recovery finds the run and marks it interrupted
    expect(await store.recoverInterrupted(Date.now() + 1)).toEqual([runId]);
    expect((await store.getRun(runId))!.status).toBe('interrupted');
    await store.close();
  }, 60_000);
});

describe('durability with group commit', () => {
  it('keeps every acknowledged step of 16 concurrent runs when their writer is killed with SIGKILL mid-stream', async () => {
    const path = folder.file();
    const store = await SqliteRunStore.open({ path });
    const runs = await Promise.all(Array.from({ length: 16 }, (_, i) => store.createRun({ configuration: `group-${i}` })));
    await store.close();
    const perRun = 5_000;
    // pending calls moved into the rollup every 300: the kill finds some moved, some pending
    const child = spawnNode('groupDurabilityWriter.mjs', [path, runs.map((run) => run.id).join(','), String(perRun), '0', '300'], {
      sources: true,
    });
    const done = finished(child);
    // the highest sequence acknowledged per run (acknowledgements of one run come in order)
    const acknowledged = runs.map(() => -1);
    let total = 0;
    await new Promise<void>((resolve, reject) => {
      let buffer = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        buffer += chunk.toString('utf8');
        let newline: number;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          const match = /^ack (\d+) (\d+)$/.exec(line);
          if (match === null) continue;
          const [r, sequence] = [Number(match[1]), Number(match[2])];
          if (sequence !== acknowledged[r]! + 1) reject(new Error(`run ${r}: acknowledged ${sequence} after ${acknowledged[r]}`));
          acknowledged[r] = sequence;
          total++;
          if (total >= 1_600 && !child.killed) {
            child.kill('SIGKILL');
            resolve();
          }
        }
      });
      child.on('close', () => reject(new Error(`the writer ended before it was killed (acknowledged ${total})`)));
    });
    const result = await done;
    expect(result.signal).toBe('SIGKILL');

    const check = new Database(path);
    expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
    check.close();
    const file = new Database(path, { readonly: true });
    const pending = file.prepare('SELECT count(*) FROM health_pending').pluck().get() as number;
    const rolled = file
      .prepare('SELECT coalesce(sum(ok + failed + cancelled), 0) FROM health_rollup WHERE level = 0')
      .pluck()
      .get() as number;
    file.close();
    expect(rolled).toBeGreaterThan(0);
    // health from the rollup and the pending calls, never from the steps: each stored call counts once
    const reopened = await SqliteRunStore.open({ path });
    setExactHealthMaxCalls(reopened, 0);
    let stored = 0;
    for (const [r, run] of runs.entries()) {
      const steps = await reopened.readSteps(run.id);
      // every acknowledged step is there, gap-free, each the step its run wrote at that sequence
      expect(steps.length).toBeGreaterThanOrEqual(acknowledged[r]! + 1);
      expect(steps.length).toBeLessThan(perRun);
      expect(steps.map((step) => step.sequence)).toEqual(Array.from({ length: steps.length }, (_, i) => i));
      steps.forEach((step, i) => expect(JSON.parse(step.payload)).toMatchObject({ run: r, index: i }));
      expect((await reopened.getRun(run.id))!.stepCount).toBe(steps.length);
      stored += steps.length;
    }
    expect(stored).toBeGreaterThanOrEqual(total);
    expect(rolled + pending).toBe(stored);
    const health = await reopened.serverHealth();
    expect(health).toEqual([expect.objectContaining({ server: 'disk', calls: stored })]);
    await reopened.close();
  }, 60_000);
});

describe('several processes on one file', () => {
  it('keeps sequences gap-free and unique with 4 processes appending to one run and to their own', async () => {
    const path = folder.file();
    const store = await SqliteRunStore.open({ path });
    const shared = await store.createRun({ configuration: 'shared' });
    const own = await Promise.all([0, 1, 2, 3].map((i) => store.createRun({ configuration: `own-${i}` })));
    const count = 60;
    const results = await Promise.all(
      own.map((run, writer) => finished(spawnNode('concurrentWriter.mjs', [path, String(writer), shared.id, run.id, String(count)]))),
    );
    for (const result of results) {
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
    }
    const reports = results.map((r) => JSON.parse(r.stdout) as { writer: string; shared: number[]; own: number[] });
    const all = reports.flatMap((r) => r.shared).sort((a, b) => a - b);
    expect(all).toEqual(Array.from({ length: 4 * count }, (_, i) => i));
    const steps = await store.readSteps(shared.id);
    expect(steps.map((s) => s.sequence)).toEqual(all);
    for (const report of reports) {
      expect(report.own).toEqual(Array.from({ length: count }, (_, i) => i));
      // each sequence a process was told about holds the step it wrote
      report.shared.forEach((sequence, i) => expect(JSON.parse(steps[sequence]!.payload)).toMatchObject({ writer: report.writer, i }));
    }
    expect((await store.getRun(shared.id))!.stepCount).toBe(4 * count);
    const health = await store.serverHealth();
    expect(health.map((h) => [h.server, h.calls])).toEqual([0, 1, 2, 3].map((w) => [`w${w}`, 2 * count]));
    await store.close();
    const check = new Database(path);
    expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
    check.close();
  }, 60_000);

  it('lets 4 processes open (and migrate) a new file at the same moment', async () => {
    const path = folder.file();
    const startAt = String(Date.now() + 400);
    const results = await Promise.all([0, 1, 2, 3].map(() => finished(spawnNode('openAndCreate.mjs', [path, startAt]))));
    for (const result of results) {
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
    }
    const db = new Database(path, { readonly: true });
    expect(db.prepare('SELECT version FROM schema_version ORDER BY version').pluck().all()).toEqual(
      Array.from({ length: SqliteRunStore.SCHEMA_VERSION }, (_, i) => i + 1),
    );
    expect(db.prepare('SELECT count(*) FROM runs').pluck().get()).toBe(4);
    db.close();
  }, 30_000);
});
