// Issue 32 items 4 and 6: short ids everywhere the CLI and the app take a run id (`runs cancel`,
// `export otlp --run` and `/runs/<prefix>` beside `runs show`), and `runs cancel`, which does what the
// app's Cancel button does, on a real SQLite file with a run recording in this process.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteRunStore } from '@runledger/store-sqlite';
import { InMemoryRunStore, type RunStore, startRun } from '@runledger/trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveRunId } from '../src/app/resolveRunId.js';
import { cli } from './cliHelpers.js';
import { send, serve, textOf } from './httpHelpers.js';

const FIRST = 'feedc0de-0000-4000-8000-000000000001';
const SECOND = 'feedc0de-0000-4000-8000-000000000002';
const ENDED = 'beadface-0000-4000-8000-000000000003';

let dir: string;
let db: string;
let store: SqliteRunStore;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'runledger-run-id-prefix-'));
  db = join(dir, 'runs.db');
  store = await SqliteRunStore.open({ path: db });
  for (const id of [FIRST, SECOND, ENDED]) await store.createRun({ id, configuration: 'prefix-test', actor: null });
  await store.finishRun(ENDED, { status: 'completed', finishedAt: Date.now() });
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('runs cancel', () => {
  it('cancels a running run by its short id as the Cancel button does: the process running it stops it, the run ends cancelled', async () => {
    const run = await startRun(store, { configuration: 'cancel-me', heartbeatMs: 0, spoolDir: false, cancelPollMs: 20 });
    const stopped = new Promise<void>((resolve) => run.signal.addEventListener('abort', () => resolve(), { once: true }));
    const result = await cli(['runs', 'cancel', run.id.slice(0, 8), '--db', db], dir);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      `cancel requested for run ${run.id}: the process running it stops its calls and ends it cancelled (runledger runs show ${run.id} follows it)\n`,
    );
    await stopped;
    const finished = await run.complete();
    expect(finished.status).toBe('cancelled');
    const show = await cli(['runs', 'show', run.id.slice(0, 8), '--db', db, '--json'], dir);
    expect(JSON.parse(show.stdout).timeline.map((entry: { event: string | null }) => entry.event)).toContain('cancel_requested');
  });

  it('on a run that has ended: refused (exit 1), nothing written (test/cancelEnded.test.ts has the rest)', async () => {
    const result = await cli(['runs', 'cancel', 'BEADFACE', '--db', db, '--json'], dir);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      new RegExp(`^runledger runs cancel: run ${ENDED} has already ended completed \\(.+\\); nothing was cancelled\n$`),
    );
    expect((await store.getRun(ENDED))!.cancelRequestedAt).toBeNull();
  });

  it('an ambiguous prefix lists the runs it starts and cancels nothing (exit 1); no such run exits 1', async () => {
    const result = await cli(['runs', 'cancel', 'feedc0de', '--db', db], dir);
    expect(result.code).toBe(1);
    const lines = result.stderr.split('\n');
    expect(lines[0]).toBe('runledger runs cancel: "feedc0de" is the start of 2 runs; give more of the id:');
    expect(lines.slice(1).sort()).toEqual(['', `  ${FIRST}`, `  ${SECOND}`]);
    expect((await store.getRun(FIRST))!.cancelRequestedAt).toBeNull();
    expect((await store.getRun(SECOND))!.cancelRequestedAt).toBeNull();
    const none = await cli(['runs', 'cancel', 'ffffffff', '--db', db], dir);
    expect(none.code).toBe(1);
    expect(none.stderr).toBe(`runledger runs cancel: there is no run "ffffffff" in SQLite ${db}\n`);
    const missing = await cli(['runs', 'cancel', '--db', db], dir);
    expect(missing.code).toBe(2);
    expect(missing.stderr.split('\n')[0]).toBe('runledger runs cancel: missing run id');
  });
});

describe('the app: /runs/<prefix>', () => {
  it('redirects a unique prefix to the full id (keeping the query), lists the runs of an ambiguous one, 404 for none', async () => {
    const server = await serve(store);
    try {
      const unique = await send(server, `/runs/${ENDED.slice(0, 8)}?lang=de`);
      expect(unique.status).toBe(302);
      expect(unique.headers['location']).toBe(`/runs/${ENDED}?lang=de`);
      expect((await send(server, `/runs/${ENDED}`)).status).toBe(200);
      const ambiguous = await send(server, '/runs/feedc0de');
      expect(ambiguous.status).toBe(300);
      expect(textOf(ambiguous.body)).toContain('feedc0de is the start of 2 runs:');
      expect(textOf(ambiguous.body)).toContain(FIRST);
      expect(textOf(ambiguous.body)).toContain(SECOND);
      expect((await send(server, '/runs/ffffffff')).status).toBe(404);
      expect((await send(server, '/runs/beadfac')).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});

describe('resolveRunId: one range read where the store can search, else a read of every id', () => {
  /** The store, with its listRuns and findRunIdsByPrefix calls counted; without the search methods when `search` is false. */
  function counted(store: InMemoryRunStore, search: boolean): { store: RunStore; calls: { listRuns: number; findRunIdsByPrefix: number } } {
    const calls = { listRuns: 0, findRunIdsByPrefix: 0 };
    const proxy = new Proxy(store, {
      get(target, key, receiver) {
        if (!search && (key === 'runTotals' || key === 'listToolCalls' || key === 'findRunIdsByPrefix')) return undefined;
        const value: unknown = Reflect.get(target, key, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (key === 'listRuns' || key === 'findRunIdsByPrefix') calls[key]++;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    return { store: proxy, calls };
  }

  it.each([
    ['a store that can search', true],
    ['a store without the search methods (the fallback)', false],
  ])('on %s: the full id, a unique prefix in any case, an ambiguous one, none, too short', async (_name, search) => {
    const memory = InMemoryRunStore.create();
    for (const id of [FIRST, SECOND, ENDED]) await memory.createRun({ id, configuration: 'prefix-test', actor: null });
    for (let i = 0; i < 250; i++) await memory.createRun({ configuration: 'filler', actor: null });
    const { store: target, calls } = counted(memory, search);
    expect(await resolveRunId(target, ENDED)).toMatchObject({ kind: 'run', run: { id: ENDED } });
    expect(calls).toEqual({ listRuns: 0, findRunIdsByPrefix: 0 });
    expect(await resolveRunId(target, 'BEADFACE-00')).toMatchObject({ kind: 'run', run: { id: ENDED } });
    const ambiguous = await resolveRunId(target, 'feedc0de');
    expect(ambiguous.kind).toBe('ambiguous');
    expect(ambiguous.kind === 'ambiguous' ? [...ambiguous.ids].sort() : []).toEqual([FIRST, SECOND]);
    expect(await resolveRunId(target, 'ffffffff')).toEqual({ kind: 'none' });
    expect(await resolveRunId(target, 'feedc0d')).toEqual({ kind: 'short' });
    expect(await resolveRunId(target, 'not-hex-at-all')).toEqual({ kind: 'none' });
    if (search) {
      // one range read per prefix, never a page of runs
      expect(calls).toEqual({ listRuns: 0, findRunIdsByPrefix: 4 });
    } else {
      // every run read, page by page (253 runs, 200 a page), for each prefix
      expect(calls).toEqual({ listRuns: 8, findRunIdsByPrefix: 0 });
    }
  });
});
