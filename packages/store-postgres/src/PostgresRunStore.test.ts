import type { ToolOutcome } from '@runledger/core';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  DURATION_HISTOGRAM_MAX_RELATIVE_ERROR,
  durationSlot,
  durationSlotValue,
  ROLLUP_LEVEL_SIZES,
  serverHealth,
} from '@runledger/trace/store';
import { OpenCallSet, type AppendStepInput, type StoredStep } from '@runledger/trace';
import { PostgresRunStore } from './PostgresRunStore.js';
import { cancelWatchOf, movesSettled, poolOf, setRollPendingAt } from './PostgresRunStoreInternals.js';
import { rollPendingStatement } from './health/PostgresHealthWriter.js';
import { adminQuery, connectTestStore, dropSchema, randomSchema, requirePostgres, TEST_PG_URL } from './testing/pgTest.js';

const schemas: string[] = [];
const open: PostgresRunStore[] = [];
async function freshStore(cancelPollMs = 20): Promise<{ store: PostgresRunStore; schema: string }> {
  const schema = randomSchema('rl_store');
  schemas.push(schema);
  const store = await connectTestStore(schema, cancelPollMs);
  open.push(store);
  return { store, schema };
}
async function peer(schema: string, cancelPollMs = 20): Promise<PostgresRunStore> {
  const store = await connectTestStore(schema, cancelPollMs);
  open.push(store);
  return store;
}
afterEach(async () => {
  for (const store of open.splice(0)) await store.close();
});
afterAll(async () => {
  for (const schema of schemas) await dropSchema(schema);
});

const DAY = 86_400_000;
const BASE = Date.UTC(2026, 0, 5, 13, 17, 23, 456);

function tool(server: string, outcome: ToolOutcome, createdAt: number, durationMs: number): AppendStepInput {
  return {
    kind: 'tool',
    round: 0,
    durationMs,
    createdAt,
    payload: {
      kind: 'tool',
      round: 0,
      durationMs,
      toolName: `mcp_${server}_call`,
      toolServer: server,
      toolIsError: outcome !== 'ok',
      toolOutcome: outcome,
    },
    toolServer: server,
    toolOutcome: outcome,
  };
}

function lcg(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

async function rollupOf(schema: string): Promise<unknown[]> {
  const result = await adminQuery(
    `SELECT level, bucket_start, server, shard, ok, failed, cancelled, not_counted, answered, last_failure_at, duration_min, duration_max, histogram
     FROM "${schema}".health_rollup ORDER BY level, bucket_start, server, shard`,
  );
  const causes = await adminQuery(`SELECT * FROM "${schema}".health_causes ORDER BY level, bucket_start, server, shard, cause`);
  return [...result.rows, ...causes.rows];
}

describe('server health from the rollup', () => {
  it('matches the pure definition over many windows: counts and last failure exactly, percentiles within the documented precision', async () => {
    const { store, schema } = await freshStore();
    // moved into the rollup every 97 calls: the reads below meet calls moved and calls pending
    setRollPendingAt(store, 97);
    const random = lcg(7);
    const servers = ['big', 'mid', 'tiny'];
    const runs = await Promise.all(Array.from({ length: 16 }, (_, i) => store.createRun({ configuration: `c${i}`, createdAt: BASE })));
    const planned: { runIndex: number; step: AppendStepInput }[] = [];
    for (let i = 0; i < 1_500; i++) {
      const r = random();
      const server = r < 0.75 ? 'big' : r < 0.93 ? 'mid' : 'tiny';
      const outcome: ToolOutcome = random() < 0.7 ? 'ok' : random() < 0.6 ? 'failed' : 'cancelled';
      const createdAt = BASE + Math.floor(random() * 3 * DAY);
      const durationMs = Math.round(Math.exp(random() * 9) * 100) / 100;
      const base = tool(server, outcome, createdAt, durationMs);
      // failed calls of every kind: answered (server error, invalid arguments), unanswered, unknown
      const cause = outcome === 'failed' ? [undefined, 'server_error', 'invalid_arguments', 'mcp_timeout'][i % 4] : undefined;
      const step =
        cause === undefined ? base : { ...base, payload: { ...(base.payload as Record<string, unknown>), toolFailureCause: cause } };
      planned.push({ runIndex: i % 16, step });
    }
    // 16 writers at once, one per run; then, once the moves are done, a few more calls that no
    // move takes, so they stay pending whenever the last move ran (it may have taken every call)
    const tail = planned.splice(-5);
    await Promise.all(
      runs.map(async (run, index) => {
        for (const p of planned) if (p.runIndex === index) await store.appendStep(run.id, p.step);
      }),
    );
    await movesSettled(store);
    // the tail stays pending: up to 96 calls noted since the last move plus these 5 would otherwise
    // make another move due, and it could take every call
    setRollPendingAt(store, Number.POSITIVE_INFINITY);
    for (const p of tail) await store.appendStep(runs[p.runIndex]!.id, p.step);
    const steps: StoredStep[] = [];
    for (const run of runs) steps.push(...(await store.readSteps(run.id)));
    expect(steps).toHaveLength(1_500);
    await movesSettled(store);
    const pendingLeft = Number((await adminQuery<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".health_pending`)).rows[0]!.n);
    expect(pendingLeft).toBeGreaterThan(0);
    expect(pendingLeft).toBeLessThan(1_500);

    const windows: { since?: number; until?: number }[] = [
      {},
      { since: BASE + 12_345 },
      { until: BASE + 2 * DAY + 7_654_321 },
      { since: BASE + 5 * 3_600_000 + 59_999, until: BASE + 2 * DAY + 3 * 60_000 + 1 },
      { since: BASE + DAY, until: BASE + DAY + 61_000 },
      { since: BASE + 100, until: BASE + 40_000 },
    ];
    for (const window of windows) {
      const expected = serverHealth(steps, window);
      const actual = await store.serverHealth(window);
      expect(actual.map((h) => h.server)).toEqual(expected.map((h) => h.server));
      for (const [i, e] of expected.entries()) {
        const a = actual[i]!;
        expect({ ...a, p50DurationMs: 0, p95DurationMs: 0 }).toEqual({ ...e, p50DurationMs: 0, p95DurationMs: 0 });
        for (const key of ['p50DurationMs', 'p95DurationMs'] as const) {
          if (e.calls <= 1_000) expect(a[key], `${e.server} ${key} exact`).toBe(e[key]);
          else expect(Math.abs(a[key]! - e[key]!) / e[key]!).toBeLessThanOrEqual(DURATION_HISTOGRAM_MAX_RELATIVE_ERROR + 0.001);
        }
      }
      expect(servers).toEqual(expect.arrayContaining(actual.map((h) => h.server)));
    }
    // the big server has more than 1000 calls overall: its percentiles came from the histogram
    expect((await store.serverHealth()).find((h) => h.server === 'big')!.calls).toBeGreaterThan(1_000);

    // the bulk path (importRun) builds exactly the rollup the per-step path built
    const { store: copy, schema: copySchema } = await freshStore();
    for (const run of runs) expect(await copy.importRun((await store.getRun(run.id))!, await store.readSteps(run.id))).toBe(true);
    await movesSettled(store);
    await adminQuery(rollPendingStatement(`"${schema}"`));
    expect(await rollupOf(copySchema)).toEqual(await rollupOf(schema));
    expect(await copy.serverHealth({ since: BASE + 77 })).toEqual(await store.serverHealth({ since: BASE + 77 }));
    // 1 500 appends, six windows and an import: tens of seconds on a busy machine, not a time under test.
  }, 90_000);

  it('puts each duration in a histogram slot whose representative is within the documented error', async () => {
    const { schema } = await freshStore();
    const durations = [0.0625, 0.1, 0.99, 1, 1.5, 2, 3, 10, 30, 99.99, 100, 1_000, 12_345.67, 3_600_000, 16_777_215];
    const result = await adminQuery<{ d: number; slot: number }>(
      `SELECT d, "${schema}".duration_bucket(d) AS slot FROM unnest($1::float8[]) AS d`,
      [durations],
    );
    for (const row of result.rows) {
      expect(durationSlot(row.d), `trace's slot of d=${row.d}`).toBe(row.slot - 1);
      const rep = durationSlotValue(row.slot - 1);
      expect(Math.abs(rep - row.d) / row.d, `d=${row.d} slot=${row.slot}`).toBeLessThanOrEqual(
        DURATION_HISTOGRAM_MAX_RELATIVE_ERROR + 1e-9,
      );
    }
  });
});

describe('bad data', () => {
  it('a payload that is not JSON, or not an object, never takes down a listing, a timeline read or health', async () => {
    const { store, schema } = await freshStore();
    const run = await store.createRun({ configuration: 'damaged', createdAt: BASE });
    for (let i = 0; i < 6; i++) await store.appendStep(run.id, tool('svc', i % 2 === 0 ? 'ok' : 'failed', BASE + i, 5));
    const damaged = ['not json at all', '42', '[1,2,3]', 'null', '"a string"', '{"kind":"tool",'];
    for (const [sequence, payload] of damaged.entries()) {
      await adminQuery(`UPDATE "${schema}".steps SET payload = $1 WHERE run_id = $2 AND sequence = $3`, [payload, run.id, sequence]);
    }
    // a step inserted behind the store's back, with an unknown kind
    await adminQuery(
      `INSERT INTO "${schema}".steps (run_id, sequence, kind, round, duration_ms, created_at, payload)
       VALUES ($1, 6, 'mystery', 0, 0, $2, '\\x00 binary-ish')`,
      [run.id, BASE + 6],
    );
    const page = await store.listRuns();
    expect(page.runs.map((r) => r.id)).toEqual([run.id]);
    const steps = await store.readSteps(run.id);
    expect(steps.map((s) => [s.sequence, s.payload])).toEqual([...damaged.map((p, i) => [i, p]), [6, '\\x00 binary-ish']]);
    expect(steps[6]!.kind).toBe('mystery');
    expect((await store.readSteps(run.id, { fromSequence: 5, limit: 1 }))[0]!.payload).toBe('{"kind":"tool",');
    expect(await store.serverHealth()).toHaveLength(1);
  });

  it('reads a run whose stored status no runledger writes as interrupted, as every store does, never as that string', async () => {
    const { store, schema } = await freshStore();
    const run = await store.createRun({ configuration: 'damaged status', createdAt: BASE });
    // a row changed behind the store's back (the schema's CHECK dropped first)
    await adminQuery(`ALTER TABLE "${schema}".runs DROP CONSTRAINT IF EXISTS runs_status_check`);
    await adminQuery(`UPDATE "${schema}".runs SET status = 'exploded' WHERE id = $1`, [run.id]);
    expect((await store.getRun(run.id))!.status).toBe('interrupted');
    expect((await store.listRuns()).runs.map((r) => r.status)).toEqual(['interrupted']);
  });
});

describe('cross-process cancel', () => {
  it('is pushed with LISTEN/NOTIFY: no polling happens while the listener is up', async () => {
    const { store, schema } = await freshStore(60_000);
    const other = await peer(schema, 60_000);
    const run = await store.createRun({ configuration: 'c' });
    const fired: number[] = [];
    const start = Date.now();
    const cancelled = new Promise<void>((resolve) => {
      store.watchCancel(run.id, () => {
        fired.push(Date.now() - start);
        resolve();
      });
    });
    await waitFor(() => cancelWatchOf(store).mode === 'push');
    await other.requestCancel(run.id);
    await cancelled;
    expect(fired).toHaveLength(1);
    expect(fired[0]!).toBeLessThan(5_000);
    expect(cancelWatchOf(store).mode).toBe('push');
  });

  it('falls back to polling when the listener connection drops, then listens again', async () => {
    const { store, schema } = await freshStore(50);
    const other = await peer(schema);
    const run = await store.createRun({ configuration: 'c' });
    let modeWhenFired: string | null = null;
    const cancelled = new Promise<void>((resolve) => {
      store.watchCancel(run.id, () => {
        modeWhenFired = cancelWatchOf(store).mode;
        resolve();
      });
    });
    await waitFor(() => cancelWatchOf(store).mode === 'push');
    const pid = cancelWatchOf(store).listenerPid;
    expect(pid).not.toBeNull();
    await adminQuery('SELECT pg_terminate_backend($1)', [pid]);
    await waitFor(() => cancelWatchOf(store).mode === 'poll');
    await other.requestCancel(run.id);
    await cancelled;
    expect(modeWhenFired).toBe('poll');
    // the listener comes back and pushes again
    await waitFor(() => cancelWatchOf(store).mode === 'push', 5_000);
    const second = await store.createRun({ configuration: 'c' });
    const again = new Promise<void>((resolve) => store.watchCancel(second.id, resolve));
    await other.requestCancel(second.id);
    await again;
  });
});

describe('group commit', () => {
  it('sends concurrent appends of different runs as one batch; what a batch cannot store gets what one append alone gets', async () => {
    const { store } = await freshStore();
    const pool = poolOf(store);
    const batches: number[] = [];
    const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
    (pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const config = args[0] as { name?: string; values?: unknown[][] };
      if (config?.name === 'runledger_append_batch') batches.push(config.values![0]!.length);
      return query(...args);
    };
    const runs = await Promise.all(Array.from({ length: 6 }, (_, i) => store.createRun({ configuration: `g${i}`, createdAt: BASE })));
    const [a, b, c, d, e, f] = runs.map((run) => run.id) as [string, string, string, string, string, string];
    const first = tool('s', 'ok', BASE + 1, 5);
    expect(await store.appendStep(a, first)).toBe(0); // alone: no batch
    expect(batches).toEqual([]);
    await store.finishRun(f, { status: 'completed', finishedAt: BASE + 2 });
    const results = await Promise.allSettled([
      store.appendStep(a, { ...first, sequence: 0 }), // a repeat of the stored step: idempotent
      store.appendStep(b, tool('s', 'failed', BASE + 3, 7)),
      store.appendStep(c, tool('s', 'ok', BASE + 4, 9)),
      store.appendStep(d, { ...tool('s', 'cancelled', BASE + 5, 11), sequence: 0 }),
      store.appendStep(e, { ...tool('s', 'ok', BASE + 6, 13), sequence: 5 }), // past the end
      store.appendStep('00000000-0000-4000-8000-00000000abcd', tool('s', 'ok', BASE + 7, 1)), // no such run
      store.appendStep(f, tool('s', 'ok', BASE + 8, 2)), // a finished run takes late steps as before
    ]);
    expect(batches).toEqual([7]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as { code: string }).code))).toEqual([
      0,
      0,
      0,
      0,
      'invalid_input',
      'run_not_found',
      0,
    ]);
    for (const [id, count] of [
      [a, 1],
      [b, 1],
      [c, 1],
      [d, 1],
      [e, 0],
      [f, 1],
    ] as const) {
      expect((await store.readSteps(id)).map((step) => step.sequence)).toEqual(Array.from({ length: count }, (_, i) => i));
    }
    expect((await store.getRun(b))!.outcomeCounts).toEqual({ ok: 0, failed: 1, cancelled: 0 });
    expect((await store.getRun(d))!.outcomeCounts).toEqual({ ok: 0, failed: 0, cancelled: 1 });
    expect((await store.serverHealth()).map((h) => [h.server, h.ok, h.failed, h.cancelled])).toEqual([['s', 3, 1, 1]]);
  });

  it('keeps the table of pending calls small: each move vacuums it, whether autovacuum runs or not', async () => {
    const { store, schema } = await freshStore();
    setRollPendingAt(store, 100);
    const runs = await Promise.all(Array.from({ length: 8 }, () => store.createRun({ configuration: 'v' })));
    await Promise.all(
      runs.map(async (run) => {
        for (let i = 0; i < 800; i++) await store.appendStep(run.id, tool('s', 'ok', BASE + i, 1));
      }),
    );
    await movesSettled(store);
    const sizeOf = async (): Promise<{ pages: number; live: number }> =>
      (
        await adminQuery<{ pages: number; live: number }>(
          `SELECT (pg_relation_size('"${schema}".health_pending') / current_setting('block_size')::int)::int AS pages,
                  (SELECT count(*)::int FROM "${schema}".health_pending) AS live`,
        )
      ).rows[0]!;
    const during = await sizeOf();
    expect((await store.serverHealth()).map((h) => h.calls)).toEqual([6_400]);
    await store.close(); // moves the rest, and vacuums
    const after = await sizeOf();
    expect(after.live).toBe(0);
    // 6 400 calls came through (about 70 pages of them); the heap holds about what was pending at once
    expect(after.pages).toBeLessThan(34);
    expect(during.pages).toBeLessThan(34);
  });

  it('keeps each run’s open calls through batches as one append alone keeps them, and the table small', async () => {
    const { store, schema } = await freshStore();
    setRollPendingAt(store, 200);
    const pool = poolOf(store);
    let batched = 0;
    const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
    (pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      if ((args[0] as { name?: string })?.name === 'runledger_append_batch') batched++;
      return query(...args);
    };
    const call = (kind: 'tool_start' | 'tool', id: string, at: number): AppendStepInput => ({
      kind,
      round: 0,
      durationMs: 1,
      createdAt: BASE + at,
      payload: { kind, toolName: 'mcp_s_call', toolServer: 's', toolCallId: id, ...(kind === 'tool' ? { toolOutcome: 'ok' } : {}) },
      toolServer: kind === 'tool' ? 's' : null,
      toolOutcome: kind === 'tool' ? 'ok' : null,
    });
    const runs = await Promise.all(Array.from({ length: 12 }, (_, r) => store.createRun({ configuration: `oc${r}`, createdAt: BASE })));
    await Promise.all(
      runs.map(async (run, r) => {
        const random = lcg(r + 1);
        for (let i = 0; i < 150; i++) {
          // ids reused within a run, ends before starts, other steps between
          const id = `c${Math.floor(random() * 20)}`;
          const pick = random();
          await store.appendStep(run.id, pick < 0.1 ? tool('s', 'ok', BASE + i, 1) : call(pick < 0.6 ? 'tool_start' : 'tool', id, i));
        }
      }),
    );
    expect(batched, 'the appends went through batches').toBeGreaterThan(0);
    for (const run of runs) {
      const steps = await store.readSteps(run.id);
      const fold = new OpenCallSet<StoredStep>();
      for (const step of steps) fold.add(step, step);
      const read = await store.readOpenCalls(run.id);
      expect({ ...read, endedFirst: [...read!.endedFirst].sort() }).toEqual({
        starts: fold.values(),
        readTo: 150,
        endedFirst: fold.endedFirst().sort(),
      });
    }
    await store.close(); // the last move vacuums
    const size = await adminQuery<{ pages: number }>(
      `SELECT (pg_relation_size('"${schema}".open_calls') / current_setting('block_size')::int)::int AS pages`,
    );
    expect(size.rows[0]!.pages).toBeLessThan(8);
  });

  it('keeps a call’s state right when its end is appended while its start is still on its way', async () => {
    const { schema } = await freshStore();
    const perStep = await PostgresRunStore.connect({ connectionString: TEST_PG_URL, schema, groupCommit: false, poolSize: 4 });
    open.push(perStep);
    const call = (kind: 'tool_start' | 'tool', id: string): AppendStepInput => ({
      kind,
      round: 0,
      durationMs: 1,
      createdAt: BASE,
      payload: { kind, toolName: 'mcp_s_call', toolCallId: id },
      toolServer: null,
      toolOutcome: null,
    });
    const run = await perStep.createRun({ configuration: 'race', createdAt: BASE });
    // the end's statement starts before the start's commits and waits for the run row: its snapshot predates the start
    for (let i = 0; i < 40; i++)
      await Promise.all([perStep.appendStep(run.id, call('tool_start', `c${i}`)), perStep.appendStep(run.id, call('tool', `c${i}`))]);
    const fold = new OpenCallSet<StoredStep>();
    for (const step of await perStep.readSteps(run.id)) fold.add(step, step);
    const read = await perStep.readOpenCalls(run.id);
    expect({ ...read, endedFirst: [...read!.endedFirst].sort() }).toEqual({
      starts: fold.values(),
      readTo: 80,
      endedFirst: fold.endedFirst().sort(),
    });
  });

  it('stores every step once, gap-free, with groupCommit off as with it on', async () => {
    const { schema } = await freshStore();
    const perStep = await PostgresRunStore.connect({ connectionString: TEST_PG_URL, schema, groupCommit: false });
    open.push(perStep);
    const runs = await Promise.all(Array.from({ length: 8 }, () => perStep.createRun({ configuration: 'p' })));
    await Promise.all(
      runs.map(async (run) => {
        for (let i = 0; i < 20; i++) expect(await perStep.appendStep(run.id, tool('s', 'ok', BASE + i, 1))).toBe(i);
      }),
    );
    for (const run of runs) expect((await perStep.getRun(run.id))!.stepCount).toBe(20);
    await expect(
      PostgresRunStore.connect({ connectionString: TEST_PG_URL, schema, groupCommit: 'yes' as unknown as boolean }),
    ).rejects.toThrow('PostgresRunStoreOptions.groupCommit must be true or false, got yes');
  });
});

describe('concurrency', () => {
  it('16 writers on 16 runs and 4 writers on one run, from two store instances: gap-free sequences and consistent counters', async () => {
    const { store, schema } = await freshStore();
    const other = await peer(schema);
    const runs = await Promise.all(Array.from({ length: 16 }, () => store.createRun({ configuration: 'many' })));
    const shared = await store.createRun({ configuration: 'shared' });
    const PER_WRITER = 60;
    const writers = [
      ...runs.map((run, i) => ({ run: run.id, via: i % 2 === 0 ? store : other })),
      ...Array.from({ length: 4 }, (_, i) => ({ run: shared.id, via: i % 2 === 0 ? store : other })),
    ];
    const acknowledged = new Map<string, number[]>();
    await Promise.all(
      writers.map(async ({ run, via }, w) => {
        for (let i = 0; i < PER_WRITER; i++) {
          const sequence = await via.appendStep(run, tool(`s${w % 3}`, i % 5 === 0 ? 'failed' : 'ok', BASE + i, 3));
          const list = acknowledged.get(run) ?? [];
          list.push(sequence);
          acknowledged.set(run, list);
        }
      }),
    );
    for (const run of [...runs, shared]) {
      const stored = await store.readSteps(run.id);
      const expected = run.id === shared.id ? 4 * PER_WRITER : PER_WRITER;
      expect(stored.map((s) => s.sequence)).toEqual(Array.from({ length: expected }, (_, i) => i));
      expect([...acknowledged.get(run.id)!].sort((a, b) => a - b)).toEqual(Array.from({ length: expected }, (_, i) => i));
      expect((await store.getRun(run.id))!.stepCount).toBe(expected);
    }
    const health = await store.serverHealth();
    expect(health.reduce((sum, h) => sum + h.calls, 0)).toBe(20 * PER_WRITER);
    await adminQuery(rollPendingStatement(`"${schema}"`));
    const rollupTotals = await adminQuery<{ level: number; n: string }>(
      `SELECT level, sum(ok + failed + cancelled) AS n FROM "${schema}".health_rollup GROUP BY level ORDER BY level`,
    );
    expect(rollupTotals.rows.map((r) => Number(r.n))).toEqual(ROLLUP_LEVEL_SIZES.map(() => 20 * PER_WRITER));
  });
});

async function waitFor(check: () => boolean, timeoutMs = 3_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('session settings', () => {
  /** The settings of one pooled connection of the store: every connection gets the same. */
  async function settingsOf(store: PostgresRunStore): Promise<Record<string, string>> {
    const client = await poolOf(store).connect();
    try {
      const rows = await client.query<{ name: string; setting: string }>(
        `SELECT name, setting FROM pg_settings WHERE name IN ('max_parallel_workers_per_gather', 'statement_timeout')`,
      );
      return Object.fromEntries(rows.rows.map((row) => [row.name, row.setting]));
    } finally {
      client.release();
    }
  }
  async function storeWithOptions(options: string | undefined): Promise<PostgresRunStore> {
    await requirePostgres();
    const url = new URL(TEST_PG_URL);
    if (options !== undefined) url.searchParams.set('options', options);
    const schema = randomSchema('rl_settings');
    schemas.push(schema);
    const store = await PostgresRunStore.connect({ connectionString: url.toString(), schema, poolSize: 2 });
    open.push(store);
    return store;
  }

  it('runs without parallel workers per gather', async () => {
    expect((await settingsOf(await storeWithOptions(undefined))).max_parallel_workers_per_gather).toBe('0');
  });

  it('keeps the session options of the connection string, and adds its own', async () => {
    const settings = await settingsOf(await storeWithOptions('-c statement_timeout=4321'));
    expect(settings).toEqual({ statement_timeout: '4321', max_parallel_workers_per_gather: '0' });
  });

  it('lets the connection string set max_parallel_workers_per_gather itself', async () => {
    expect((await settingsOf(await storeWithOptions('-c max_parallel_workers_per_gather=1'))).max_parallel_workers_per_gather).toBe('1');
  });
});
