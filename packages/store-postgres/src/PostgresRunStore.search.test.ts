// What only PostgreSQL's way of searching runs can get wrong (the shared contract pins the rest):
// tokens and tool names kept alike by one append and by a batch, a run's tokens at the bigint's end,
// runs a prune hid, and titles beyond ASCII.
import type { AppendStepInput, StoredStep } from '@runledger/trace';
import { stepTokens } from '@runledger/trace/store';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { PostgresRunStore } from './PostgresRunStore.js';
import { poolOf } from './PostgresRunStoreInternals.js';
import { adminQuery, dropSchema, randomSchema, requirePostgres, TEST_PG_URL } from './testing/pgTest.js';

const schemas: string[] = [];
const open: PostgresRunStore[] = [];
async function freshStore(groupCommit = true): Promise<{ store: PostgresRunStore; schema: string }> {
  const schema = randomSchema('rl_search');
  schemas.push(schema);
  await requirePostgres();
  const store = await PostgresRunStore.connect({ connectionString: TEST_PG_URL, schema, poolSize: 4, cancelPollMs: 20, groupCommit });
  open.push(store);
  return { store, schema };
}
afterEach(async () => {
  for (const store of open.splice(0)) await store.close();
});
afterAll(async () => {
  for (const schema of schemas) await dropSchema(schema);
});

const BASE = Date.UTC(2026, 0, 5, 13, 17, 23, 456);
/** The largest bigint, as a number: where a run's tokens stop. */
const MAX_TOKENS = Number(2n ** 63n - 1n);

function llm(createdAt: number, promptTokens: unknown, completionTokens: unknown): AppendStepInput {
  return {
    kind: 'llm',
    round: 0,
    durationMs: 3,
    createdAt,
    payload: { kind: 'llm', promptTokens, completionTokens },
    toolServer: null,
    toolOutcome: null,
  };
}

function call(server: string, toolName: unknown, createdAt: number): AppendStepInput {
  return {
    kind: 'tool',
    round: 0,
    durationMs: 4,
    createdAt,
    payload: { kind: 'tool', toolName, toolServer: server, toolOutcome: 'ok', toolIsError: false },
    toolServer: server,
    toolOutcome: 'ok',
  };
}

/** Appends each run's steps in order, the runs at once (so that appends of different runs share batches). */
async function appendAll(store: PostgresRunStore, steps: ReadonlyMap<string, readonly AppendStepInput[]>): Promise<void> {
  await Promise.all(
    [...steps].map(async ([id, list]) => {
      for (const step of list) await store.appendStep(id, step);
    }),
  );
}

describe('PostgresRunStore search', () => {
  it('keeps tokens and tool names alike whether an append runs alone or in a batch', async () => {
    const ids = Array.from({ length: 8 }, (_, r) => `${r}${r}${r}${r}${r}${r}${r}${r}-0000-4000-8000-000000000000`);
    const steps = new Map(
      ids.map((id, r) => [
        id,
        Array.from({ length: 12 }, (_, i) => {
          const at = BASE + i * 10 + r;
          if (i % 3 === 0) return call('srv', i % 4 === 0 ? `tool_${(i + r) % 3}` : 42, at);
          return llm(at, (i * 37 + r) % 500, i % 4 === 1 ? -5 : i % 4 === 2 ? '7' : 11);
        }),
      ]),
    );
    const read = async (store: PostgresRunStore) => ({
      runs: await Promise.all(ids.map(async (id) => (await store.getRun(id))!.tokens)),
      calls: await store.listToolCalls({ server: 'srv', limit: 200 }),
      totals: await store.runTotals(),
      tool: (await store.listRuns({ server: 'srv', tool: 'tool_1' })).runs.map((run) => run.id),
    });
    const seen: unknown[] = [];
    for (const groupCommit of [true, false]) {
      const { store } = await freshStore(groupCommit);
      let batches = 0;
      const pool = poolOf(store);
      const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
      (pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        if ((args[0] as { name?: string } | undefined)?.name === 'runledger_append_batch') batches += 1;
        return query(...args);
      };
      for (const id of ids) await store.createRun({ id, configuration: 'c', createdAt: BASE });
      await appendAll(store, steps);
      expect(batches > 0, 'batches were sent').toBe(groupCommit);
      const got = await read(store);
      // the one rule, over what each run stored
      const expected = await Promise.all(ids.map(async (id) => tokensOf(await store.readSteps(id))));
      expect(got.runs).toEqual(expected);
      expect(got.totals).toEqual({ runs: ids.length, tokens: expected.reduce((a, b) => a + b, 0), complete: true });
      expect(new Set(got.calls.calls.map((c) => c.tool))).toEqual(new Set(['tool_0', 'tool_1', 'tool_2', null]));
      seen.push(got);
    }
    expect(seen[1]).toEqual(seen[0]);
  });

  it('stops a run’s tokens at the largest bigint rather than fail its appends or its import', async () => {
    const { store, schema } = await freshStore();
    const runs = await Promise.all([0, 1, 2].map((i) => store.createRun({ configuration: 'c', createdAt: BASE + i })));
    await adminQuery(`UPDATE "${schema}".runs SET tokens = ${2n ** 63n - 1000n}`);
    const huge = Number.MAX_SAFE_INTEGER;
    // one alone, then two in one batch
    await store.appendStep(runs[0]!.id, llm(BASE + 10, huge, huge));
    await Promise.all([store.appendStep(runs[1]!.id, llm(BASE + 11, 600, 600)), store.appendStep(runs[2]!.id, llm(BASE + 11, 400, 500))]);
    expect(await Promise.all(runs.map(async (run) => (await store.getRun(run.id))!.tokens))).toEqual([
      MAX_TOKENS,
      MAX_TOKENS,
      Number(2n ** 63n - 1000n + 900n),
    ]);
    // the totals over them are the nearest number to the exact sum, never an overflow
    expect((await store.runTotals()).tokens).toBe(Number(3n * 2n ** 63n - 102n));
    const importedId = 'abcdef01-0000-4000-8000-000000000000';
    const imported: StoredStep[] = Array.from({ length: 520 }, (_, sequence) => ({
      runId: importedId,
      sequence,
      kind: 'llm',
      round: 0,
      durationMs: 1,
      createdAt: BASE + sequence,
      payload: JSON.stringify({ kind: 'llm', promptTokens: huge, completionTokens: huge }),
      toolServer: null,
      toolOutcome: null,
    }));
    const run = { ...runs[0]!, id: importedId, status: 'completed' as const, finishedAt: BASE + 600, stepCount: 520 };
    expect(await store.importRun(run, imported)).toBe(true);
    expect((await store.getRun(importedId))!.tokens).toBe(MAX_TOKENS);
  });

  it('finds nothing of a run a prune hid (while its steps are deleted in chunks)', async () => {
    const { store, schema } = await freshStore();
    const hidden = await store.createRun({
      id: 'aaaaaaaa-0000-4000-8000-000000000000',
      configuration: 'c',
      title: 'Hidden',
      createdAt: BASE,
    });
    const kept = await store.createRun({
      id: 'aaaaaaaa-1111-4000-8000-000000000000',
      configuration: 'c',
      title: 'Hidden too',
      createdAt: BASE,
    });
    for (const run of [hidden, kept]) {
      await store.appendStep(run.id, llm(BASE + 1, 10, 5));
      await store.appendStep(run.id, call('srv', 'find', BASE + 2));
    }
    await adminQuery(`UPDATE "${schema}".runs SET pruned_at = 1 WHERE id = $1`, [hidden.id]);
    expect((await store.listToolCalls({ server: 'srv' })).calls.map((c) => c.runId)).toEqual([kept.id]);
    expect(await store.findRunIdsByPrefix('AAAAAAAA')).toEqual([kept.id]);
    expect(await store.runTotals({ server: 'srv', tool: 'find', titleContains: 'hidden' })).toEqual({
      runs: 1,
      tokens: 15,
      complete: true,
    });
    expect((await store.listRuns({ tool: 'find' })).runs.map((run) => run.id)).toEqual([kept.id]);
  });

  it('matches a title ignoring the case of A to Z only (as SQLite’s lower()), with % and _ as themselves', async () => {
    const { store } = await freshStore();
    const titles = ['ÄRGER mit Jira', 'ärger mit jira', 'Straße', 'STRASSE', '100% done_now', '100 percent done'];
    for (const [i, title] of titles.entries()) await store.createRun({ configuration: 'c', title, createdAt: BASE + i });
    const found = async (text: string) => (await store.listRuns({ titleContains: text })).runs.map((run) => run.title).sort();
    expect(await found('ärger MIT')).toEqual(['ärger mit jira']);
    expect(await found('ÄRGER')).toEqual(['ÄRGER mit Jira']);
    expect(await found('jira')).toEqual(['ärger mit jira', 'ÄRGER mit Jira'].sort());
    expect(await found('straße')).toEqual(['Straße']);
    expect(await found('%')).toEqual(['100% done_now']);
    expect(await found('e_n')).toEqual(['100% done_now']);
    expect(await store.runTotals({ titleContains: 'DONE' })).toEqual({ runs: 2, tokens: 0, complete: true });
  });
});

/** A run's tokens by trace's rule, from its stored steps. */
function tokensOf(steps: readonly StoredStep[]): number {
  return steps.reduce((sum, step) => {
    const payload = JSON.parse(step.payload) as Record<string, unknown>;
    return sum + stepTokens(step.kind, payload);
  }, 0);
}
