// Issue 38 item 8: a cancel of a run that has already ended is refused, by `runs cancel` and by
// the app's POST /runs/<id>/cancel alike: nothing is written, and the answer says how the run
// ended. Only a cancel that crosses the finish (the run read running, ended before the request)
// is kept as a late cancel. The app's cancel takes a short id as its GET does.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteRunStore } from '@runledger/store-sqlite';
import { isLateCancel, type RunStore } from '@runledger/trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cancelRun } from '../src/app/cancelRun.js';
import type { RunsServer } from '../src/app/startRunsServer.js';
import { runsCancel } from '../src/commands/runsCancel.js';
import { Translator } from '../src/i18n/Translator.js';
import { cli } from './cliHelpers.js';
import { send, serve, textOf } from './httpHelpers.js';

const ENDED = 'deadbeef-0000-4000-8000-000000000001';
const FAILED = 'deadbeef-1111-4000-8000-000000000002';
const RUNNING = 'c0ffee00-0000-4000-8000-000000000003';
const TWIN_A = 'abad1dea-0000-4000-8000-000000000004';
const TWIN_B = 'abad1dea-0000-4000-8000-000000000005';
const ENDED_AT = Date.UTC(2026, 11, 5, 9, 30);
const en = new Translator('en');
/** The app's dates: the test server shows UTC. */
const enUtc = new Translator('en', { timeZone: 'UTC' });

let dir: string;
let db: string;
let store: SqliteRunStore;
let server: RunsServer;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'runledger-cancel-ended-'));
  db = join(dir, 'runs.db');
  store = await SqliteRunStore.open({ path: db });
  for (const id of [ENDED, FAILED, RUNNING, TWIN_A, TWIN_B]) {
    await store.createRun({ id, configuration: 'cancel-test', actor: null, createdAt: ENDED_AT - 60_000 });
  }
  await store.finishRun(ENDED, { status: 'completed', finishedAt: ENDED_AT });
  await store.finishRun(FAILED, { status: 'failed', finishedAt: ENDED_AT, terminationReason: 'the model quota ran out' });
  server = await serve(store);
});
afterAll(async () => {
  await server.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** That the store holds no cancel request for the run: its row, and its timeline. */
async function expectNoCancelRequest(id: string): Promise<void> {
  expect((await store.getRun(id))!.cancelRequestedAt).toBeNull();
  const show = await cli(['runs', 'show', id, '--json', '--db', db], dir);
  // how it ended, as data beside its words
  const { run } = JSON.parse(show.stdout);
  expect(run.termination).toEqual(run.terminationReason === null ? null : { kind: 'other', text: run.terminationReason });
  expect(JSON.parse(show.stdout).timeline.map((entry: { event: string | null }) => entry.event)).not.toContain('cancel_requested');
}

describe('runs cancel on a run that has ended', () => {
  it('refuses (exit 1), writes nothing and says how and when the run ended, with its reason', async () => {
    const result = await cli(['runs', 'cancel', 'deadbeef-1111', '--db', db], dir);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `runledger runs cancel: run ${FAILED} has already ended failed (${en.date(ENDED_AT)}; reason: the model quota ran out); nothing was cancelled\n`,
    );
    await expectNoCancelRequest(FAILED);
  });

  it('--json too: nothing on stdout, the refusal on stderr, exit 1; a run without a reason says none', async () => {
    const result = await cli(['runs', 'cancel', ENDED, '--json', '--db', db], dir);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `runledger runs cancel: run ${ENDED} has already ended completed (${en.date(ENDED_AT)}); nothing was cancelled\n`,
    );
    await expectNoCancelRequest(ENDED);
  });
});

describe('runs cancel on a running run', () => {
  it('requests the cancel: exit 0, --json in its frozen shape', async () => {
    const run = await store.createRun({ configuration: 'json', actor: null });
    const result = await cli(['runs', 'cancel', run.id, '--json', '--db', db], dir);
    expect(result.code).toBe(0);
    const out = runsCancel.jsonOutput.parse(JSON.parse(result.stdout));
    expect(out.cancelRequestedAfterFinish).toBe(false);
    expect(out.run).toMatchObject({ id: run.id, status: 'running' });
    expect(out.run.cancelRequestedAt).not.toBeNull();
  });
});

describe('cancelRun', () => {
  it('a cancel that crosses the finish (read running, ended before the request) is kept as a late cancel', async () => {
    const run = await store.createRun({ configuration: 'race', actor: null });
    // the finish lands between the read and the request
    const racing = new Proxy(store, {
      get(target, key) {
        const value: unknown = Reflect.get(target, key, target);
        if (key === 'requestCancel') {
          return async (id: string) => {
            await target.finishRun(id, { status: 'completed', finishedAt: Date.now() });
            return target.requestCancel(id);
          };
        }
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    }) as RunStore;
    const result = await cancelRun(racing, run.id);
    expect(result.kind).toBe('requested');
    expect(result.kind === 'requested' && isLateCancel(result.run)).toBe(true);
    expect((await store.getRun(run.id))!.cancelRequestedAt).not.toBeNull();
  });
});

describe('the app: POST /runs/<id>/cancel', () => {
  const post = (path: string) => send(server, path, { method: 'POST', headers: { origin: `http://127.0.0.1:${server.port}` } });

  it('refuses a run that has ended (409) with how and when it ended, and writes nothing; in German too', async () => {
    const reply = await post(`/runs/${FAILED}/cancel`);
    expect(reply.status).toBe(409);
    expect(textOf(reply.body)).toContain(
      `Run ${FAILED} had already ended: failed, ${enUtc.date(ENDED_AT)} (the model quota ran out). Nothing was cancelled.`,
    );
    const de = await post(`/runs/${ENDED.slice(0, 13)}/cancel?lang=de`);
    expect(de.status).toBe(409);
    expect(textOf(de.body)).toContain(`Lauf ${ENDED} war schon beendet`);
    await expectNoCancelRequest(FAILED);
    await expectNoCancelRequest(ENDED);
  });

  it('takes a short id as GET /runs/<prefix> does: a unique prefix cancels that run, an ambiguous one lists them (300), none is 404', async () => {
    const ambiguous = await post('/runs/abad1dea/cancel');
    expect(ambiguous.status).toBe(300);
    expect(textOf(ambiguous.body)).toContain('abad1dea is the start of 2 runs:');
    expect((await store.getRun(TWIN_A))!.cancelRequestedAt).toBeNull();
    expect((await store.getRun(TWIN_B))!.cancelRequestedAt).toBeNull();
    expect((await post('/runs/ffffffff/cancel')).status).toBe(404);
    expect((await post('/runs/c0ffee0/cancel')).status).toBe(404);

    const unique = await post('/runs/C0FFEE00/cancel?lang=de');
    expect(unique.status).toBe(303);
    expect(unique.headers['location']).toBe(`/runs/${RUNNING}?lang=de`);
    expect((await store.getRun(RUNNING))!.cancelRequestedAt).not.toBeNull();
  });
});
