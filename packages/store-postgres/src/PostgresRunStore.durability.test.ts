import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { adminQuery, connectTestStore, dropSchema, randomSchema, TEST_PG_URL } from './testing/pgTest.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const schema = randomSchema('rl_durable');
afterAll(async () => {
  await dropSchema(schema);
});

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
      for (let waited = 0; ; waited += 20) {
        const left = await adminQuery<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1', [
          `rl-writer-${schema}`,
        ]);
        if (left.rows[0]!.n === 0) break;
        expect(waited, 'the killed writer’s backends are still there').toBeLessThan(20_000);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }

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
