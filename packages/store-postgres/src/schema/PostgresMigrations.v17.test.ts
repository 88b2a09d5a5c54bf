// Migration 17: the per-tool rollup. A schema of version 16 has none and no tool on its pending
// calls: after the migration every stored call counts once (the rolled-up ones from the backfill,
// the pending ones when moved), as the reference store counts them, before and after the move.
import { InMemoryRunStore, type RunStore, type ToolCallTotals } from '@runledger/trace';
import { afterAll, describe, expect, it } from 'vitest';
import { POSTGRES_SCHEMA_VERSION } from './PostgresMigrations.js';
import { movesSettled, poolOf, setRollPendingAt } from '../PostgresRunStoreInternals.js';
import { adminQuery, connectTestStore, dropSchema, randomSchema } from '../testing/pgTest.js';

const T = Date.UTC(2026, 0, 1);
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const schemas: string[] = [];
afterAll(async () => {
  for (const schema of schemas) await dropSchema(schema);
});

const withoutMs = (totals: readonly ToolCallTotals[]) => totals.map((t) => ({ ...t, answeredMs: 0 }));

/** Appends calls `from` to `to` of a fixed pattern (over 40 days, every outcome, some causes, four tools of three servers) to both stores. */
async function appendCalls(store: RunStore, reference: RunStore, runId: string, from: number, to: number): Promise<void> {
  const outcomes = ['ok', 'ok', 'failed', 'cancelled'] as const;
  const causes = [undefined, 'server_error', 'mcp_timeout', 'invalid_arguments'];
  for (let i = from; i < to; i++) {
    const outcome = outcomes[i % 4]!;
    const cause = outcome === 'failed' ? causes[(i >> 2) % 4] : undefined;
    const server = `s${i % 3}`;
    const durationMs = (i * 977) % 320_000;
    const payload: Record<string, unknown> = {
      kind: 'tool',
      round: 0,
      durationMs,
      toolServer: server,
      toolIsError: outcome !== 'ok',
      toolOutcome: outcome,
      ...(i % 50 === 0 ? {} : { toolName: `t${i % 4}` }),
      ...(cause === undefined ? {} : { toolFailureCause: cause }),
    };
    const step = {
      kind: 'tool',
      round: 0,
      durationMs,
      createdAt: T + ((i * 7_919_311) % (40 * DAY)),
      payload,
      toolServer: server,
      toolOutcome: outcome,
    };
    await store.appendStep(runId, step);
    await reference.appendStep(runId, step);
  }
}

describe('migration 17', () => {
  it('fills the tool rollup of a version-16 schema from its steps, the pending calls counted once, before and after they move', async () => {
    expect(POSTGRES_SCHEMA_VERSION).toBeGreaterThanOrEqual(17);
    const schema = randomSchema('rl_tools');
    schemas.push(schema);
    const reference = InMemoryRunStore.create();
    const store = await connectTestStore(schema);
    const run = await store.createRun({ configuration: 'c', createdAt: T });
    await reference.createRun({ id: run.id, configuration: 'c', createdAt: T });
    await appendCalls(store, reference, run.id, 0, 400);
    await store.close();
    // a writer that stops before it moves its calls: they stay pending
    const writer = await connectTestStore(schema);
    setRollPendingAt(writer, 1e9);
    await appendCalls(writer, reference, run.id, 400, 600);
    await poolOf(writer).end();
    await writer.close().catch(() => undefined);
    expect((await adminQuery<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".health_pending`)).rows[0]!.n).toBe(200);
    // laid out as version 16 wrote it: no tool rollup, no tool on pending calls
    await adminQuery(
      `DROP TABLE "${schema}".tool_rollup, "${schema}".tool_causes; ALTER TABLE "${schema}".health_pending DROP COLUMN tool; DELETE FROM "${schema}".schema_version WHERE version >= 17`,
    );

    const queries = [{}, { since: T + 3 * DAY + 17 }, { since: T + MINUTE - 1, until: T + 33 * DAY + 5 }];
    const expectSame = async (migrated: RunStore & { toolCallTotals(q: object): Promise<readonly ToolCallTotals[]> }) => {
      for (const query of queries) {
        const got = await migrated.toolCallTotals(query);
        const want = await reference.toolCallTotals(query);
        expect(withoutMs(got)).toEqual(withoutMs(want));
        for (const [i, t] of got.entries()) expect(t.answeredMs).toBeCloseTo(want[i]!.answeredMs, 6);
      }
    };
    const migrated = await connectTestStore(schema);
    await expectSame(migrated);
    // the pending calls moved (a health read that finds them makes the move due): from the rollup now, still once
    setRollPendingAt(migrated, 1);
    await migrated.serverHealth();
    await movesSettled(migrated);
    expect((await adminQuery<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".health_pending`)).rows[0]!.n).toBe(0);
    await expectSame(migrated);
    await migrated.close();
  });
});
