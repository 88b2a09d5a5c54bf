import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { adminQuery, connectTestStore, dropSchema, randomSchema, TEST_PG_URL } from './testing/pgTest.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const schema = randomSchema('rl_durable');
afterAll(async () => {
  await dropSchema(schema);
});

/** Waits until the server has no backend of that application name left (it may still commit what a killed writer sent). */
async function backendsGone(applicationName: string): Promise<void> {
  for (let waited = 0; ; waited += 20) {
    const left = await adminQuery<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1', [
      applicationName,
    ]);
    if (left.rows[0]!.n === 0) return;
    expect(waited, 'the killed writer’s backends are still there').toBeLessThan(20_000);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The child writer: plain JavaScript against the built package. */
const writer = fileURLToPath(new URL('./testing/durabilityWriter.mjs', import.meta.url));

describe('durability', () => {
  it('a writer SIGKILLed in the middle of a 10 000-step run loses no acknowledged step', async () => {
    const store = await connectTestStore(schema);
    try {
      const run = await store.createRun({ configuration: 'crash-test' });
      const acknowledged: number[] = [];
      const child: ChildProcess = spawn(process.execPath, [writer, TEST_PG_URL, schema, run.id], {
        cwd: packageDir,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const killAt = 300 + Math.floor(Math.random() * 300);
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
      let buffer = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        let newline: number;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          if (line === 'ready') continue;
          acknowledged.push(Number(line));
          if (acknowledged.length === killAt) child.kill('SIGKILL');
        }
      });
      const signal = await exited;
      expect(signal, `writer failed before the kill: ${stderr}`).toBe('SIGKILL');
      expect(acknowledged.length).toBeGreaterThanOrEqual(killAt);
      expect(acknowledged.length).toBeLessThan(10_000);
      // the server may still commit an append the writer sent before it died: read once its backends are gone
      await backendsGone(`rl-writer-${schema}`);

      const steps = await store.readSteps(run.id);
      const sequences = steps.map((s) => s.sequence);
      // gap-free from 0, and every acknowledged step is there
      expect(sequences).toEqual(Array.from({ length: steps.length }, (_, i) => i));
      expect(steps.length).toBeGreaterThanOrEqual(acknowledged.length);
      expect(acknowledged).toEqual(Array.from({ length: acknowledged.length }, (_, i) => i));
      for (const step of steps) expect(JSON.parse(step.payload).i).toBe(step.sequence);

      const after = (await store.getRun(run.id))!;
      expect(after.status).toBe('running');
      expect(after.stepCount).toBe(steps.length);
      expect(after.heartbeatAt).not.toBeNull();
      // not stale yet for a window that ends before its last heartbeat …
      expect(await store.recoverInterrupted(after.heartbeatAt!)).toEqual([]);
      // … and marked interrupted once its heartbeat counts as stale
      expect(await store.recoverInterrupted(Date.now() + 1)).toEqual([run.id]);
      const recovered = (await store.getRun(run.id))!;
      expect(recovered.status).toBe('interrupted');
      expect(recovered.terminationReason).toMatch(/^no sign of life since \d{4}-\d\d-\d\dT/);
      expect((await store.serverHealth()).find((h) => h.server === 'disk')!.calls).toBe(steps.length);
    } finally {
      await store.close();
    }
  }, 60_000);
});

const groupWriter = fileURLToPath(new URL('./testing/groupDurabilityWriter.mjs', import.meta.url));

describe('durability with group commit', () => {
  it('a writer of 16 concurrent runs SIGKILLed mid-stream loses no acknowledged step', async () => {
    const store = await connectTestStore(schema);
    try {
      const runs = await Promise.all(Array.from({ length: 16 }, (_, i) => store.createRun({ configuration: `group-${i}` })));
      const perRun = 2_000;
      const child: ChildProcess = spawn(
        process.execPath,
        [groupWriter, TEST_PG_URL, schema, runs.map((run) => run.id).join(','), String(perRun)],
        {
          cwd: packageDir,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
      // the highest sequence acknowledged per run (acknowledgements of one run come in order)
      const acknowledged = runs.map(() => -1);
      let total = 0;
      let buffer = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        let newline: number;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          const match = /^ack (\d+) (\d+)$/.exec(line);
          if (match === null) continue;
          const [r, sequence] = [Number(match[1]), Number(match[2])];
          expect(sequence).toBe(acknowledged[r]! + 1);
          acknowledged[r] = sequence;
          if (++total === 1_600) child.kill('SIGKILL');
        }
      });
      const signal = await exited;
      expect(signal, `writer failed before the kill: ${stderr}`).toBe('SIGKILL');
      // the server may still commit a batch the writer sent before it died: read once its backends are gone
      await backendsGone(`rl-gwriter-${schema}`);
      let stored = 0;
      for (const [r, run] of runs.entries()) {
        const steps = await store.readSteps(run.id);
        // every acknowledged step is there, gap-free, each the step its run wrote at that sequence
        expect(steps.length).toBeGreaterThanOrEqual(acknowledged[r]! + 1);
        expect(steps.length).toBeLessThan(perRun);
        expect(steps.map((step) => step.sequence)).toEqual(Array.from({ length: steps.length }, (_, i) => i));
        steps.forEach((step, i) => expect(JSON.parse(step.payload)).toMatchObject({ run: r, i }));
        expect((await store.getRun(run.id))!.stepCount).toBe(steps.length);
        stored += steps.length;
      }
      expect(stored).toBeGreaterThanOrEqual(total);
      // every stored call counts once in health (moved or pending); the schema holds the first test's run too
      const calls = await adminQuery<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".steps WHERE call_server = 'disk'`);
      expect(calls.rows[0]!.n).toBeGreaterThanOrEqual(stored);
      expect((await store.serverHealth()).find((h) => h.server === 'disk')!.calls).toBe(calls.rows[0]!.n);
    } finally {
      await store.close();
    }
  }, 60_000);
});
