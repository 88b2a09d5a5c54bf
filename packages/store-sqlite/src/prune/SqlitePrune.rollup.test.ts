// SqliteRunStore.pruneRuns and the rollups, for generated runs, cutoffs and batch sizes: after a
// prune the rollup tables hold exactly the rows a store that was only ever given the remaining runs
// holds (counts, histogram slots, min/max latency, last failure, causes; per tool: counts, Prometheus
// buckets, causes, and the summed durations within rounding), at every level.
import { randomUUID } from 'node:crypto';
import type { StoredRun, StoredStep } from '@runledger/trace';
import { isPrunableRun } from '@runledger/trace/store';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteRunStore } from '../SqliteRunStore.js';
import { setRollPendingAt } from '../SqliteRunStoreInternals.js';
import { tempFolder, toolStep } from '../testing/tempDatabase.js';

let folder: ReturnType<typeof tempFolder>;
beforeEach(() => {
  folder = tempFolder();
});
afterEach(() => folder.remove());

/** 2026-01-01T00:00Z: a bucket of every level starts here. */
const BASE = Date.UTC(2026, 0, 1);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const SERVERS = ['alpha', 'beta', 'gamma'] as const;

/** Mostly a few minutes around a day boundary (many calls share a minute), else the hours around it. */
const timeArb = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: BASE - 3 * MINUTE, max: BASE + 3 * MINUTE }) },
  { weight: 1, arbitrary: fc.integer({ min: BASE - 7 * HOUR, max: BASE + 7 * HOUR }) },
);
const stepArb = fc.record({
  createdAt: timeArb,
  server: fc.constantFrom(...SERVERS, null),
  outcome: fc.constantFrom('ok' as const, 'ok' as const, 'failed' as const, 'cancelled' as const),
  cause: fc.constantFrom(undefined, 'server_error', 'mcp_timeout', 'invalid_arguments', 'transport_failure'),
  // few distinct values: deleted calls often hold a bucket's min or max with others equal to it
  durationMs: fc.oneof(fc.constantFrom(1, 5, 250, 4000), fc.double({ min: 0, max: 5000, noNaN: true })),
});
const runArb = fc.record({
  steps: fc.array(stepArb, { maxLength: 30 }),
  finishedAt: fc.option(fc.integer({ min: BASE - 7 * HOUR, max: BASE + 8 * HOUR }), { nil: null }),
  via: fc.constantFrom('import' as const, 'append' as const),
});

type Step = ReturnType<typeof toolStep> | ReturnType<typeof modelStep>;

function modelStep(createdAt: number, durationMs: number) {
  return { kind: 'llm', round: 0, durationMs, createdAt, payload: { kind: 'llm' }, toolServer: null, toolOutcome: null };
}

async function seed(store: SqliteRunStore, steps: readonly Step[], finishedAt: number | null, via: 'import' | 'append'): Promise<void> {
  const createdAt = BASE - 8 * HOUR;
  if (via === 'append') {
    const run = await store.createRun({ configuration: 'c', createdAt });
    for (const step of steps) await store.appendStep(run.id, step);
    if (finishedAt !== null) await store.finishRun(run.id, { status: 'completed', finishedAt });
    return;
  }
  const id = randomUUID();
  const run: StoredRun = {
    id,
    status: finishedAt === null ? 'running' : 'completed',
    configuration: 'c',
    actor: null,
    createdAt,
    startedAt: createdAt,
    finishedAt,
    terminationReason: null,
    cancelRequestedAt: null,
    heartbeatAt: null,
    stepCount: steps.length,
    outcomeCounts: { ok: 0, failed: 0, cancelled: 0 },
    unstoredSteps: 0,
  };
  const stored = steps.map((step, sequence): StoredStep => ({ ...step, runId: id, sequence, payload: JSON.stringify(step.payload) }));
  expect(await store.importRun(run, stored)).toBe(true);
}

/** Every row of the file's rollup tables (health, tools), in key order; the tool rows' summed durations apart (they are sums of doubles). */
function rollupRows(path: string): { rows: unknown[][]; answeredMs: number[] } {
  const db = new Database(path, { readonly: true });
  try {
    const tools = db.prepare('SELECT * FROM tool_rollup ORDER BY server, tool, level, bucket_start').all() as Record<string, unknown>[];
    return {
      rows: [
        db.prepare('SELECT * FROM health_rollup ORDER BY server, level, bucket_start').all(),
        db.prepare('SELECT * FROM health_causes ORDER BY server, level, bucket_start, cause').all(),
        tools.map(({ answered_ms: _, ...row }) => row),
        db.prepare('SELECT * FROM tool_causes ORDER BY server, tool, level, bucket_start, cause').all(),
      ],
      answeredMs: tools.map((row) => row['answered_ms'] as number),
    };
  } finally {
    db.close();
  }
}

describe('SqliteRunStore.pruneRuns and the health rollup', () => {
  it('leaves the rollup tables exactly as a store given only the remaining runs has them (generated)', { timeout: 120_000 }, async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(runArb, { minLength: 1, maxLength: 6 }),
        timeArb,
        fc.integer({ min: 1, max: 25 }),
        // how often the pruned store moves pending calls into the rollup: a prune meets some of each
        fc.integer({ min: 1, max: 40 }),
        async (runs, cutoff, batchSize, rollPendingAt) => {
          round++;
          const store = await SqliteRunStore.open({ path: folder.file(`pruned-${round}.db`) });
          setRollPendingAt(store, rollPendingAt);
          const reference = await SqliteRunStore.open({ path: folder.file(`reference-${round}.db`) });
          try {
            for (const run of runs) {
              const steps = run.steps.map((s) =>
                s.server === null
                  ? modelStep(s.createdAt, s.durationMs)
                  : toolStep(s.server, s.outcome, s.durationMs, s.createdAt, 0, s.outcome === 'failed' ? s.cause : undefined),
              );
              await seed(store, steps, run.finishedAt, run.via);
              const old = isPrunableRun({ status: run.finishedAt === null ? 'running' : 'completed', finishedAt: run.finishedAt }, cutoff);
              if (!old) await seed(reference, steps, run.finishedAt, 'import');
            }
            await store.pruneRuns({ olderThan: cutoff, batchSize });
          } finally {
            await store.close();
            await reference.close();
          }
          const pruned = rollupRows(folder.file(`pruned-${round}.db`));
          const expected = rollupRows(folder.file(`reference-${round}.db`));
          expect(pruned.rows).toEqual(expected.rows);
          for (const [i, ms] of pruned.answeredMs.entries()) expect(ms).toBeCloseTo(expected.answeredMs[i]!, 6);
        },
      ),
      { numRuns: 40 },
    );
  });
});
