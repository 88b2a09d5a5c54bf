// The ledger as an operator meets it: a process that died with steps in its spool, delivered by
// `runledger spool deliver`; a cancel that came after the finish; steps that were not stored —
// in the app, `runs show` and its --json.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SqliteRunStore } from '@runledger/store-sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send, serve } from './httpHelpers.js';
import { cli } from './cliHelpers.js';

const WRITER = fileURLToPath(new URL('./fixtures/spoolingWriter.mjs', import.meta.url));

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'runledger-ui-ledger-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('runledger spool', () => {
  it('delivers the spool of a process that was killed, in order, and removes it', async () => {
    const db = join(dir, 'spool.db');
    const spool = join(dir, 'spool');
    await (await SqliteRunStore.open({ path: db })).close();
    const child = spawn(process.execPath, [WRITER, db, spool], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(out.trim());
      });
      child.on('exit', (code) => reject(new Error(`the writer exited (${code}) before spooling: ${stderr}`)));
    });
    const [, runId, failures] = line.split(' ');
    expect(failures).toBe('0');
    const listed = await cli(['spool', 'list', '--spool-dir', spool, '--json'], dir);
    expect(JSON.parse(listed.stdout).files).toMatchObject([{ pid: child.pid, alive: true, steps: 5, finishes: 0, runs: 1 }]);
    // a live process delivers its own: skipped
    const early = await cli(['spool', 'deliver', '--db', db, '--spool-dir', spool], dir);
    expect(early.code).toBe(0);
    expect(early.stdout).toContain('skipped');
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));

    const store = await SqliteRunStore.open({ path: db });
    try {
      expect((await store.getRun(runId!))?.stepCount).toBe(3);
      const table = await cli(['spool', 'list', '--spool-dir', spool], dir);
      expect(table.stdout).toMatch(/spool-\d+-\d+-[0-9a-f]+\.jsonl\s+\d+\s+5\s+0\s+1/);
      const delivered = await cli(['spool', 'deliver', '--db', db, '--spool-dir', spool], dir);
      expect(delivered).toMatchObject({ code: 0, stderr: '' });
      expect(delivered.stdout).toMatch(/^delivered .*spool-\d+-.*: 5 steps, 0 final statuses; file removed\n$/);
      expect(readdirSync(spool)).toEqual([]);
      const steps = await store.readSteps(runId!);
      expect(steps.map((step) => [step.sequence, JSON.parse(step.payload).kind])).toEqual(
        Array.from({ length: 8 }, (_, i) => [i, 'request']),
      );
      // again: nothing left to do
      expect((await cli(['spool', 'deliver', '--db', db, '--spool-dir', spool], dir)).stdout).toBe(`no spool files in ${spool}\n`);
    } finally {
      await store.close();
    }
  });

  it('exits 1 and keeps the file when the store refuses what waits in it', async () => {
    const db = join(dir, 'other.db');
    const spool = join(dir, 'spool-refused');
    const store = await SqliteRunStore.open({ path: db });
    await store.close();
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(spool);
    const missing = '00000000-0000-4000-8000-000000000001';
    const step = { kind: 'llm', round: 0, durationMs: 1, createdAt: 5, payload: { kind: 'llm' }, toolServer: null, toolOutcome: null };
    writeFileSync(
      join(spool, 'spool-999999997-1-000000aa.jsonl'),
      `${JSON.stringify({ v: 1, type: 'step', runId: missing, sequence: 0, step })}\n`,
    );
    const result = await cli(['spool', 'deliver', '--db', db, '--spool-dir', spool, '--json'], dir);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout).files[0]).toMatchObject({
      state: 'kept',
      steps: 0,
      problem: `step 0 of run ${missing}: run_not_found: run "${missing}" does not exist`,
    });
    expect(readdirSync(spool)).toHaveLength(1);
  });

  it('refuses bad spool arguments with the usage', async () => {
    for (const args of [['spool'], ['spool', 'flush'], ['spool', 'list', 'extra'], ['spool', 'deliver', '--spool-dir', '']]) {
      const result = await cli(args, dir);
      expect(result.code, args.join(' ')).toBe(2);
      // the usage of the spool commands only, not of every command
      expect(result.stderr).toContain('Usage: runledger spool ');
      expect(result.stderr).not.toContain('Usage: runledger serve');
    }
  });
});

describe('late cancels and unstored steps on screen', () => {
  it('shows a final status that arrived after the run had ended in the app, runs show and --json, as a late cancel is', async () => {
    const db = join(dir, 'late-finish.db');
    const store = await SqliteRunStore.open({ path: db });
    const server = await serve(store);
    try {
      const run = await store.createRun({ configuration: 'late-finish' });
      await store.recoverInterrupted(Date.now() + 60_000);
      const late = await store.finishRun(run.id, { status: 'completed', unstoredSteps: 2 });
      expect(late).toMatchObject({ status: 'interrupted', lateFinishStatus: 'completed', unstoredSteps: 2 });

      const page = (await send(server, `/runs/${run.id}`)).body;
      expect(page).toContain('data-note="late-finish"');
      expect(page).toContain('Its process reported this after the run had already ended');
      const de = (await send(server, `/runs/${run.id}?lang=de`)).body;
      expect(de).toContain('Sein Prozess meldete ihn, nachdem der Lauf schon beendet war');
      const show = await cli(['runs', 'show', run.id, '--db', db], dir);
      expect(show.code).toBe(0);
      // the run page's words: its label, the status and its note
      expect(show.stdout).toMatch(/\nLate final status: completed .+ — Its process reported this after the run had already ended/);
      const json = JSON.parse((await cli(['runs', 'show', run.id, '--db', db, '--json'], dir)).stdout);
      expect(json).toMatchObject({ run: { status: 'interrupted', lateFinishStatus: 'completed' } });

      // a run that ended once has no such note
      const plain = await store.createRun({ configuration: 'late-finish' });
      await store.finishRun(plain.id, { status: 'completed' });
      expect((await send(server, `/runs/${plain.id}`)).body).not.toContain('data-note="late-finish"');
      expect((await cli(['runs', 'show', plain.id, '--db', db], dir)).stdout).not.toContain('Late final status');
    } finally {
      await server.close();
      await store.close();
    }
  });

  it('says "cancel requested after the run finished" and "N steps were not stored" in the app, runs show and --json', async () => {
    const db = join(dir, 'notes.db');
    const store = await SqliteRunStore.open({ path: db });
    const server = await serve(store);
    const origin = `http://127.0.0.1:${server.port}`;
    try {
      const run = await store.createRun({ configuration: 'notes' });
      await store.finishRun(run.id, { status: 'completed', unstoredSteps: 3 });
      // a cancel that crossed the finish (the run read running, the request stored after the end)
      await store.requestCancel(run.id);
      const stored = (await store.getRun(run.id))!;
      expect(stored).toMatchObject({ status: 'completed', unstoredSteps: 3 });
      expect(stored.cancelRequestedAt).not.toBeNull();
      // a press on a stale page once the run has ended is refused and changes nothing more
      const post = await send(server, `/runs/${run.id}/cancel`, { method: 'POST', headers: { origin } });
      expect(post.status).toBe(409);
      expect(await store.getRun(run.id)).toEqual(stored);

      const page = (await send(server, `/runs/${run.id}`)).body;
      expect(page).toContain('data-note="late-cancel"');
      expect(page).toContain('Cancel requested after the run finished');
      expect(page).toContain('data-note="unstored"');
      expect(page).toContain('3 steps of this run were not stored');
      const de = (await send(server, `/runs/${run.id}?lang=de`)).body;
      expect(de).toContain('Abbruch angefordert, nachdem der Lauf schon beendet war');

      const show = await cli(['runs', 'show', run.id, '--db', db], dir);
      expect(show.code).toBe(0);
      expect(show.stdout).toMatch(
        /\nCancel requested: .+ — Cancel requested after the run finished: it did not change how the run ended\./,
      );
      expect(show.stdout).toContain('\nSteps not stored: 3\n');
      expect(show.stdout).toContain('⚠ 3 steps of this run were not stored');
      const json = JSON.parse((await cli(['runs', 'show', run.id, '--db', db, '--json'], dir)).stdout);
      expect(json).toMatchObject({ cancelRequestedAfterFinish: true, run: { status: 'completed', unstoredSteps: 3 } });

      // a cancel that landed first: cancelled, no late note
      const other = await store.createRun({ configuration: 'notes' });
      await store.requestCancel(other.id);
      expect((await store.finishRun(other.id, { status: 'completed' })).status).toBe('cancelled');
      const otherJson = JSON.parse((await cli(['runs', 'show', other.id, '--db', db, '--json'], dir)).stdout);
      expect(otherJson).toMatchObject({ cancelRequestedAfterFinish: false, run: { status: 'cancelled', unstoredSteps: 0 } });
      const otherPage = (await send(server, `/runs/${other.id}`)).body;
      expect(otherPage).not.toContain('data-note="late-cancel"');
      expect(otherPage).not.toContain('data-note="unstored"');
    } finally {
      await server.close();
      await store.close();
    }
  });
});

describe('runledger runs recover', () => {
  it('ends the runs without a sign of life for --stale-after, and only those', async () => {
    const db = join(dir, 'recover.db');
    const store = await SqliteRunStore.open({ path: db });
    try {
      const gone = await store.createRun({ configuration: 'gone', createdAt: Date.now() - 3_600_000 });
      const asked = await store.createRun({ configuration: 'asked', createdAt: Date.now() - 3_600_000 });
      await store.requestCancel(asked.id);
      const alive = await store.createRun({ configuration: 'alive', createdAt: Date.now() - 3_600_000 });
      await store.heartbeat(alive.id);
      const result = await cli(['runs', 'recover', '--db', db, '--stale-after', '10m', '--json'], dir);
      expect(result.code).toBe(0);
      expect([...JSON.parse(result.stdout).recovered].sort()).toEqual([gone.id, asked.id].sort());
      expect((await store.getRun(gone.id))?.status).toBe('interrupted');
      expect((await store.getRun(asked.id))?.status).toBe('cancelled');
      expect((await store.getRun(alive.id))?.status).toBe('running');
      expect((await cli(['runs', 'recover', '--db', db], dir)).stdout).toBe('no stale running runs\n');
      const bad = await cli(['runs', 'recover', '--db', db, '--stale-after', '5s'], dir);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('--stale-after must be a duration of at least 1 minute');
    } finally {
      await store.close();
    }
  });
});
