// The ledger against real PostgreSQL faults: backends terminated while runs record, a connection
// cut at commit time, and a 12 s outage behind a TCP proxy the test controls (never the shared
// server itself, which other suites use at the same time). See docs/reliability.md.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ActiveRun, startRun, type AppendStepInput, RunStoreError } from '@runledger/trace';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { PostgresRunStore } from './PostgresRunStore.js';
import { adminQuery, dropSchema, randomSchema, requirePostgres, TEST_PG_URL } from './testing/pgTest.js';
import { TcpProxy } from './testing/TcpProxy.js';

const schemas: string[] = [];
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  for (const schema of schemas) await dropSchema(schema);
});

async function open(
  options: { url?: string; applicationName?: string; poolSize?: number; queryTimeoutMs?: number; groupCommit?: boolean } = {},
): Promise<PostgresRunStore> {
  await requirePostgres();
  const schema = randomSchema('rl_fault');
  schemas.push(schema);
  // migrate through a direct connection first, so that a proxy's faults start on a ready schema
  await (await PostgresRunStore.connect({ connectionString: TEST_PG_URL, schema })).close();
  const store = await PostgresRunStore.connect({
    connectionString: options.url ?? TEST_PG_URL,
    schema,
    poolSize: options.poolSize ?? 4,
    cancelPollMs: 50,
    ...(options.applicationName === undefined ? {} : { applicationName: options.applicationName }),
    ...(options.queryTimeoutMs === undefined ? {} : { queryTimeoutMs: options.queryTimeoutMs }),
    ...(options.groupCommit === undefined ? {} : { groupCommit: options.groupCommit }),
  });
  cleanups.push(() => store.close());
  return store;
}

function spoolDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'runledger-pg-spool-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function proxy(): Promise<TcpProxy> {
  const target = new URL(TEST_PG_URL);
  const started = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
  cleanups.push(() => started.close());
  return started;
}

/** An llm step of `round` at `sequence`, as a retry names it. */
function step(round: number, sequence: number): AppendStepInput {
  return {
    kind: 'llm',
    round,
    durationMs: 1,
    createdAt: 1_767_225_600_000 + round,
    payload: { kind: 'llm', round },
    toolServer: null,
    toolOutcome: null,
    sequence,
  };
}

/** `promise`'s outcome, or 'stuck' when it has none within `ms`. */
function within<T>(promise: Promise<T>, ms: number): Promise<PromiseSettledResult<T> | 'stuck'> {
  return Promise.race([
    Promise.allSettled([promise]).then(([settled]) => settled!),
    new Promise<'stuck'>((resolve) => setTimeout(() => resolve('stuck'), ms).unref()),
  ]);
}

/** How many steps the server holds for a run (read past the store, on a connection of its own). */
async function storedCount(runId: string): Promise<number> {
  const direct = await adminQuery<{ n: string }>(`SELECT count(*) AS n FROM "${schemas.at(-1)}".steps WHERE run_id = $1`, [runId]);
  return Number(direct.rows[0]!.n);
}

/** Every run's steps are exactly 0..n-1 with n the steps recorded, and the run ended as asked. */
async function expectComplete(store: PostgresRunStore, runs: ActiveRun[], recorded: Map<string, number>): Promise<void> {
  for (const run of runs) {
    const stored = await store.getRun(run.id);
    const steps = await store.readSteps(run.id);
    expect(steps.map((step) => step.sequence)).toEqual(Array.from({ length: recorded.get(run.id)! }, (_, i) => i));
    expect(stored).toMatchObject({ status: 'completed', stepCount: recorded.get(run.id), unstoredSteps: 0 });
    expect(run.trace.recordFailures).toBe(0);
  }
}

describe('PostgreSQL faults', () => {
  // The load is what shows the rule, not a fixed count: each run records until 20 backends were
  // killed under it (at least 30 steps, at most 150), so a slow machine does not turn it into a
  // timeout and a fast one still sees its connections die mid-append.
  it('loses no step while the store’s backends are terminated every 50 ms', { timeout: 60_000 }, async () => {
    const applicationName = `rl_kill_${randomBytes(4).toString('hex')}`;
    const store = await open({ applicationName });
    const spool = spoolDir();
    let kills = 0;
    let killing = true;
    // only this test's own connections, picked by application_name
    const killer = (async () => {
      while (killing) {
        const result = await adminQuery<{ ok: boolean }>(
          'SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = $1',
          [applicationName],
        );
        kills += result.rows.filter((row) => row.ok).length;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const recorded = new Map<string, number>();
    const runs = await Promise.all(
      Array.from({ length: 8 }, () =>
        startRun(store, {
          configuration: 'killed-backends',
          heartbeatMs: 0,
          spoolDir: spool,
          retry: { initialDelayMs: 5, maxDelayMs: 200 },
        }),
      ),
    );
    await Promise.all(
      runs.map(async (run) => {
        let i = 0;
        // until the killer has struck 20 times (a fixed count of 150 steps each ended before 10 kills
        // once, on a fast Node 24 pass of CI); 5000 steps a run at most, a few seconds
        while (i < 30 || (kills < 20 && i < 5000)) await run.trace.recordRequest({ content: `request ${i++}` });
        recorded.set(run.id, i);
      }),
    );
    killing = false;
    await killer;
    await Promise.all(runs.map((run) => run.complete()));
    expect(kills).toBeGreaterThan(10);
    await expectComplete(store, runs, recorded);
    expect(readdirSync(spool)).toEqual([]);
    const steps = [...recorded.values()].reduce((sum, n) => sum + n, 0);
    console.log(`killed backends: ${kills}; steps stored: ${steps} of ${steps}`);
  });

  it('stores a step once when the connection dies as the commit is answered, and the append is retried', async () => {
    const tcp = await proxy();
    const store = await open({ url: tcp.urlFor(TEST_PG_URL), poolSize: 1 });
    const run = await store.createRun({ configuration: 'ambiguous-commit' });
    expect(await store.appendStep(run.id, step(0, 0))).toBe(0);
    const cut = tcp.cutNextAnswer('runledger_append_step'); // only the append's own connection
    let error: unknown;
    try {
      await store.appendStep(run.id, step(1, 1));
    } catch (caught) {
      error = caught;
    }
    expect(await cut).toBe(true);
    expect(RunStoreError.is(error) && error.code).toBe('storage_failure');
    // the server committed it although the writer never heard so
    expect(await storedCount(run.id)).toBe(2);
    // the retry finds it stored: same sequence, nothing twice
    expect(await store.appendStep(run.id, step(1, 1))).toBe(1);
    expect((await store.readSteps(run.id)).map((s) => [s.sequence, s.round])).toEqual([
      [0, 0],
      [1, 1],
    ]);
    expect(await store.getRun(run.id)).toMatchObject({ stepCount: 2 });

    // the same through the recorder: the cut is retried away, once stored
    const live = await startRun(store, { configuration: 'ambiguous-commit', heartbeatMs: 0, spoolDir: spoolDir() });
    await live.trace.recordRequest({ content: 'first' });
    const cutAgain = tcp.cutNextAnswer('runledger_append_step');
    await live.trace.recordRequest({ content: 'second' });
    expect(await cutAgain).toBe(true);
    await live.complete();
    await expectComplete(store, [live], new Map([[live.id, 2]]));
  });

  it(
    'keeps every step of 16 concurrent runs through a 12 s outage (longer than a connection attempt may wait): spooled, then delivered in order',
    { timeout: 90_000 },
    async () => {
      const tcp = await proxy();
      const store = await open({ url: tcp.urlFor(TEST_PG_URL) });
      const spool = spoolDir();
      const runs = await Promise.all(
        Array.from({ length: 16 }, () =>
          startRun(store, {
            configuration: 'outage',
            heartbeatMs: 1_000,
            spoolDir: spool,
            retry: { attempts: 4, initialDelayMs: 50, maxDelayMs: 500 },
          }),
        ),
      );
      const recorded = new Map<string, number>();
      const duringOutage = new Map<string, number>();
      let recording = true;
      let outage = false;
      const loops = runs.map(async (run) => {
        let n = 0;
        while (recording) {
          const inOutage = outage;
          await run.trace.recordRequest({ content: `step ${n}` });
          if (inOutage && outage) duringOutage.set(run.id, (duringOutage.get(run.id) ?? 0) + 1);
          n++;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        recorded.set(run.id, n);
      });
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      tcp.refuse(); // the database is unreachable: connections refused and cut
      outage = true;
      // longer than the pool's connectionTimeoutMillis (10 s) and every retry of the runs (attempts 4, ≤ 500 ms)
      await new Promise((resolve) => setTimeout(resolve, 12_000));
      outage = false;
      const spooled = readdirSync(spool);
      expect(spooled).toHaveLength(1);
      tcp.restore();
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      recording = false;
      await Promise.all(loops);
      // the final statuses may have to wait for the delivery of what was spooled: retry until stored
      const finished = await Promise.all(
        runs.map(async (run) => {
          for (let attempt = 0; ; attempt++) {
            try {
              return await run.complete();
            } catch (error) {
              if (attempt > 20) throw error;
              await new Promise((resolve) => setTimeout(resolve, 500));
            }
          }
        }),
      );
      expect(finished.every((run) => run.status === 'completed')).toBe(true);
      await expectComplete(store, runs, recorded);
      const total = [...recorded.values()].reduce((a, b) => a + b, 0);
      // every run went on recording while the database was away: those steps were acknowledged from the spool
      const acknowledgedInOutage = [...duringOutage.values()].reduce((a, b) => a + b, 0);
      expect(runs.every((run) => (duringOutage.get(run.id) ?? 0) > 10)).toBe(true);
      for (let i = 0; i < 100 && readdirSync(spool).length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(readdirSync(spool)).toEqual([]);
      console.log(
        `outage: ${total} steps recorded by 16 runs (${acknowledgedInOutage} of them while the database was unreachable), ${total} stored, 0 missing; connections through the proxy: ${tcp.accepted}`,
      );
    },
  );

  it('drops a connection that went silent: its append fails within queryTimeoutMs, and close() returns', { timeout: 60_000 }, async () => {
    const tcp = await proxy();
    const store = await open({ url: tcp.urlFor(TEST_PG_URL), poolSize: 2, queryTimeoutMs: 1_500, groupCommit: false });
    const run = await store.createRun({ configuration: 'silent-alone' });
    const held = tcp.holdNextAnswer('runledger_append_step');
    const { sequence: _named, ...unnamed } = step(0, 0);
    const started = performance.now();
    const outcome = await within(store.appendStep(run.id, unnamed), 15_000);
    expect(await held).toBe(true);
    expect(outcome, 'the append waited for a silent connection').not.toBe('stuck');
    const waitedMs = performance.now() - started;
    expect(outcome).toMatchObject({ status: 'rejected' });
    const error = (outcome as PromiseRejectedResult).reason as unknown;
    expect(RunStoreError.is(error) && error.code).toBe('storage_failure');
    expect((error as Error).message).toContain('no answer within 1500 ms, PostgresRunStoreOptions.queryTimeoutMs');
    // the server committed it although the store never heard so; a retry that names the sequence finds it
    expect(await storedCount(run.id)).toBe(1);
    expect(await store.appendStep(run.id, step(0, 0))).toBe(0);
    expect(await storedCount(run.id)).toBe(1);
    // the silent connection was dropped, not kept: nothing holds close() (the proxy still keeps its answer back)
    expect(await within(store.close(), 10_000)).toEqual({ status: 'fulfilled', value: undefined });
    console.info(`silent connection: the append failed after ${Math.round(waitedMs)} ms (queryTimeoutMs 1500)`);
  });

  it(
    'fails a read whose connection went silent within queryTimeoutMs — every read the app makes — and close() returns',
    { timeout: 90_000 },
    async () => {
      const tcp = await proxy();
      const store = await open({ url: tcp.urlFor(TEST_PG_URL), poolSize: 4, queryTimeoutMs: 1_500 });
      const run = await store.createRun({ configuration: 'silent-reads' });
      for (let sequence = 0; sequence < 3; sequence++) await store.appendStep(run.id, step(sequence, sequence));
      // each read, and a request only that read sends (the proxy keeps back the answer to it)
      const reads: [string, string, () => Promise<unknown>][] = [
        ['listRuns', 'ORDER BY created_at DESC', () => store.listRuns({ limit: 10 })],
        ['readSteps', 'ORDER BY sequence LIMIT', () => store.readSteps(run.id)],
        ['readOpenCalls', 'open_calls o', () => store.readOpenCalls(run.id)],
        ['serverHealth', 'health_causes', () => store.serverHealth({})],
      ];
      for (const [name, match, read] of reads) {
        const held = tcp.holdNextAnswer(match);
        const started = performance.now();
        const outcome = await within(read(), 15_000);
        expect(await held, `${name}: the proxy held its answer`).toBe(true);
        expect(outcome, `${name} waited for a silent connection`).not.toBe('stuck');
        const waitedMs = performance.now() - started;
        expect(outcome, name).toMatchObject({ status: 'rejected' });
        const error = (outcome as PromiseRejectedResult).reason as unknown;
        expect(RunStoreError.is(error) && error.code, name).toBe('storage_failure');
        expect((error as Error).message, name).toContain(
          `PostgreSQL ${name} failed: no answer within 1500 ms, PostgresRunStoreOptions.queryTimeoutMs`,
        );
        expect(waitedMs, name).toBeGreaterThanOrEqual(1_400);
        // the store reads on, on other connections
        expect(await within(read(), 10_000), `${name} once the connection was dropped`).toMatchObject({ status: 'fulfilled' });
        console.info(`silent connection: ${name} failed after ${Math.round(waitedMs)} ms (queryTimeoutMs 1500)`);
      }
      expect((await store.readSteps(run.id)).map((s) => s.sequence)).toEqual([0, 1, 2]);
      // the silent connections were dropped, not kept: nothing holds close() (the proxy still keeps their answers back)
      expect(await within(store.close(), 10_000)).toEqual({ status: 'fulfilled', value: undefined });
    },
  );

  it('stores a batched append once or fails it, never twice, when the batch’s commit answer is lost', { timeout: 60_000 }, async () => {
    const tcp = await proxy();
    const store = await open({ url: tcp.urlFor(TEST_PG_URL), poolSize: 4 });
    const [a, b] = await Promise.all(['a', 'b'].map((name) => store.createRun({ configuration: `lost-answer-${name}` })));
    const cut = tcp.cutNextAnswer('runledger_append_batch');
    const { sequence: _named, ...unnamed } = step(0, 0);
    // one batch of two appends that name no sequence: the server commits it, the answer is cut
    const outcomes = await Promise.allSettled([a!, b!].map((run) => store.appendStep(run.id, unnamed)));
    expect(await cut).toBe(true);
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected');
      const error = (outcome as PromiseRejectedResult).reason as unknown;
      expect(RunStoreError.is(error) && error.code).toBe('storage_failure');
    }
    // committed once by the batch, not a second time alone
    expect([await storedCount(a!.id), await storedCount(b!.id)]).toEqual([1, 1]);
  });

  it('lets no run wait behind a group-commit batch whose connection went silent', { timeout: 60_000 }, async () => {
    const tcp = await proxy();
    const store = await open({ url: tcp.urlFor(TEST_PG_URL), poolSize: 4, queryTimeoutMs: 4_000 });
    const [a, b, c, d] = await Promise.all(['a', 'b', 'c', 'd'].map((name) => store.createRun({ configuration: `silent-${name}` })));
    const held = tcp.holdNextAnswer('runledger_append_batch');
    // a and b share a batch; the server commits it, but its answer never comes back
    const silent = Promise.all([a!, b!].map((run) => store.appendStep(run.id, step(0, 0))));
    expect(await held).toBe(true);
    const started = performance.now();
    const others = Promise.all([c!, d!].map((run) => store.appendStep(run.id, step(0, 0))));
    const outcome = await Promise.race([others, new Promise((resolve) => setTimeout(() => resolve('stuck'), 20_000))]);
    expect(outcome, 'the appends of other runs waited for the silent batch').toEqual([0, 0]);
    const waitedMs = performance.now() - started;
    // the next appends of those runs do not wait either
    expect(await Promise.all([c!, d!].map((run) => store.appendStep(run.id, step(1, 1))))).toEqual([1, 1]);
    // past queryTimeoutMs the silent connection is dropped: its appends, which named their sequence,
    // run alone and find their steps stored — no one has to release the answer
    expect(await within(silent, 15_000)).toEqual({ status: 'fulfilled', value: [0, 0] });
    tcp.release();
    for (const [run, count] of [
      [a!, 1],
      [b!, 1],
      [c!, 2],
      [d!, 2],
    ] as const) {
      expect((await store.readSteps(run.id)).map((s) => s.sequence)).toEqual(Array.from({ length: count }, (_, i) => i));
    }
    console.info(`silent batch: the other runs' appends went on alone after ${Math.round(waitedMs)} ms`);
  });

  it('ends a run failed with a reason that holds a NUL byte (made storable), never stuck running', async () => {
    const store = await open();
    const run = await startRun(store, { configuration: 'nul', heartbeatMs: 0, spoolDir: false });
    const done = await run.fail(new Error('printed \u0000'));
    expect(done).toMatchObject({ status: 'failed', terminationReason: 'printed \uFFFD' });
    expect(await store.getRun(run.id)).toMatchObject({ status: 'failed', terminationReason: 'printed \uFFFD' });
  });

  it('names the applicationName rule', async () => {
    await expect(PostgresRunStore.connect({ connectionString: TEST_PG_URL, applicationName: 'x\u0007' })).rejects.toThrow(
      'PostgresRunStoreOptions.applicationName must be 1 to 48 printable ASCII characters',
    );
  });

  it('names the queryTimeoutMs rule', async () => {
    for (const queryTimeoutMs of [0, -1, 1.5, Number.NaN, Infinity, 2 ** 31]) {
      await expect(PostgresRunStore.connect({ connectionString: TEST_PG_URL, queryTimeoutMs })).rejects.toThrow(
        'PostgresRunStoreOptions.queryTimeoutMs must be a whole number of ms from 1 to 2147483647',
      );
    }
  });
});
