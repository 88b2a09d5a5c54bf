import {
  canSearchRuns,
  InMemoryRunStore,
  type RunStore,
  type SearchingRunStore,
  type StoredRun,
  type StoredToolCall,
  type ToolCallQuery,
} from '@runledger/trace';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BASE, contractStores, expectStoreError, listAll, llmStep, toolStep } from './contractSteps.js';
import type { RunStoreContractHarness } from './RunStoreContractHarness.js';
import {
  appendInput,
  callFilterSets,
  checkBase,
  filterSets,
  type ModelRun,
  modelCalls,
  modelListing,
  modelRun,
  runQueryOf,
  runSpecs,
  SINGLE_FILTERS,
} from './searchModel.js';

/** The store as one that searches; a store without the search methods skips these tests (they are optional on RunStore). */
function searching(store: RunStore, skip: (note: string) => void): SearchingRunStore {
  if (!canSearchRuns(store)) skip('this store cannot search runs');
  return store as SearchingRunStore;
}

/** Every call of a tool call listing, page by page. */
async function allCalls(store: SearchingRunStore, query: ToolCallQuery): Promise<StoredToolCall[]> {
  const calls: StoredToolCall[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 1000; page++) {
    const result = await store.listToolCalls({ ...query, cursor });
    expect(result.calls.length).toBeLessThanOrEqual(query.limit ?? 50);
    calls.push(...result.calls);
    cursor = result.nextCursor;
    if (cursor === null) return calls;
  }
  throw new Error('listToolCalls never returned a last page');
}

const ids = (runs: readonly { id: string }[]): string[] => runs.map((run) => run.id);

/**
 * The search part of the contract: a run's tokens, listRuns' `server`, `tool` and
 * `titleContains` filters, runTotals, listToolCalls and findRunIdsByPrefix, for stores that can
 * search (see `canSearchRuns`). Called by {@link runRunStoreContract}.
 */
export function runSearchContract(name: string, harness: RunStoreContractHarness): void {
  describe(`RunStore contract: ${name}`, () => {
    const { open } = contractStores(harness);

    describe('search', () => {
      it('counts the tokens of llm steps as they are appended and keeps them through importRun', async ({ skip }) => {
        const store = searching(await open(), skip);
        const run = await store.createRun({ configuration: 'tokens', createdAt: BASE });
        expect(run.tokens ?? 0).toBe(0);
        await store.appendStep(run.id, llmStep(BASE + 1, { promptTokens: 120, completionTokens: 30 }));
        await store.appendStep(run.id, llmStep(BASE + 2, { promptTokens: 5 }));
        // values that are not a non-negative safe integer count 0; the other of the two still counts
        await store.appendStep(run.id, llmStep(BASE + 3, { promptTokens: -5, completionTokens: 2 }));
        await store.appendStep(run.id, llmStep(BASE + 4, { promptTokens: 1.5, completionTokens: '12' }));
        await store.appendStep(run.id, llmStep(BASE + 5, { promptTokens: null, completionTokens: 2 ** 53 }));
        // only llm steps count
        const tool = toolStep({ server: 'gh', outcome: 'ok', createdAt: BASE + 6 });
        await store.appendStep(run.id, { ...tool, payload: { ...tool.payload, promptTokens: 1000 } });
        await store.appendStep(run.id, { ...llmStep(BASE + 7), kind: 'note' });
        // the same append again (a retry) counts once
        await store.appendStep(run.id, { ...llmStep(BASE + 8, { completionTokens: 1 }), sequence: 7 });
        await store.appendStep(run.id, { ...llmStep(BASE + 8, { completionTokens: 1 }), sequence: 7 });
        const expected = 150 + 5 + 2 + 0 + 0 + 11;
        expect((await store.getRun(run.id))?.tokens).toBe(expected);
        expect((await store.listRuns({ configuration: 'tokens' })).runs[0]?.tokens).toBe(expected);
        expect((await store.finishRun(run.id, { status: 'completed', finishedAt: BASE + 9 })).tokens).toBe(expected);
        expect(await store.runTotals({ configuration: 'tokens' })).toEqual({ runs: 1, tokens: expected, complete: true });

        // imported: the sum over the imported steps, as the source store counted them
        const source = InMemoryRunStore.create();
        const copied = await source.createRun({ configuration: 'tokens-copy', createdAt: BASE + 10 });
        await source.appendStep(copied.id, llmStep(BASE + 11, { promptTokens: 40, completionTokens: 2 }));
        await source.appendStep(copied.id, toolStep({ server: 'gh', outcome: 'failed', createdAt: BASE + 12 }));
        await source.appendStep(copied.id, llmStep(BASE + 13, { promptTokens: 8 }));
        const stored = (await source.getRun(copied.id))!;
        expect(stored.tokens).toBe(50);
        expect(await store.importRun(stored, await source.readSteps(copied.id))).toBe(true);
        expect(await store.getRun(copied.id)).toEqual(stored);
        // a run's tokens come from its steps, whatever the run given to importRun says
        const empty = await source.createRun({ configuration: 'tokens-copy', createdAt: BASE + 14 });
        await source.appendStep(empty.id, llmStep(BASE + 15, { promptTokens: 3 }));
        const lying: StoredRun = { ...(await source.getRun(empty.id))!, tokens: 999 };
        expect(await store.importRun(lying, await source.readSteps(empty.id))).toBe(true);
        expect((await store.getRun(empty.id))?.tokens).toBe(3);
        expect(await store.runTotals({ configuration: 'tokens-copy' })).toEqual({ runs: 2, tokens: 53, complete: true });
        expect(await store.runTotals()).toEqual({ runs: 3, tokens: expected + 53, complete: true });
        // counted up to a number of runs: one of the two (50 or 3 tokens), marked incomplete; then both
        const one = await store.runTotals({ configuration: 'tokens-copy', upTo: 1 });
        expect(one).toMatchObject({ runs: 1, complete: false });
        expect([50, 3]).toContain(one.tokens);
        expect(await store.runTotals({ configuration: 'tokens-copy', upTo: 2 })).toEqual({ runs: 2, tokens: 53, complete: true });
      });

      it('filters runs by server and tool of one ended call, and by title ignoring the case of A-Z only', async ({ skip }) => {
        const store = searching(await open(), skip);
        const make = async (title: string | null, at: number): Promise<string> =>
          (await store.createRun({ configuration: 'filters', title, createdAt: BASE + at })).id;
        const a = await make('Deploy ALPHA', 1);
        const b = await make('deploy alpha_2', 2);
        const c = await make('100% Ünïcode', 3);
        const d = await make(null, 4);
        const e = await make('ünïcode a b', 5);
        await store.appendStep(a, toolStep({ server: 'gh', outcome: 'ok', toolName: 'search', createdAt: BASE + 10 }));
        // server and tool on two different calls: never both on the same step
        await store.appendStep(b, toolStep({ server: 'gh', outcome: 'failed', toolName: 'lookup', createdAt: BASE + 11 }));
        await store.appendStep(b, toolStep({ server: 'jira', outcome: 'ok', toolName: 'search', createdAt: BASE + 12 }));
        // a call not ended and a start: no call of theirs counts
        await store.appendStep(c, toolStep({ server: 'gh', outcome: null, toolName: 'search', createdAt: BASE + 13 }));
        await store.appendStep(c, {
          kind: 'tool_start',
          round: 0,
          durationMs: 0,
          createdAt: BASE + 14,
          payload: { kind: 'tool_start', round: 0, toolName: 'search', toolServer: 'gh' },
          toolServer: 'gh',
          toolOutcome: null,
        });
        // a legacy row: server and tool read from the payload's tool name
        await store.appendStep(d, toolStep({ server: 'jira', outcome: 'failed', createdAt: BASE + 15, legacy: true }));
        const list = async (query: Parameters<RunStore['listRuns']>[0]): Promise<string[]> =>
          ids((await store.listRuns({ configuration: 'filters', ...query })).runs);
        expect(await list({ server: 'gh' })).toEqual([b, a]);
        expect(await list({ server: 'jira' })).toEqual([d, b]);
        expect(await list({ server: 'nope' })).toEqual([]);
        expect(await list({ tool: 'search' })).toEqual([b, a]);
        expect(await list({ tool: 'mcp_jira_lookup' })).toEqual([d]);
        expect(await list({ tool: 'Search' })).toEqual([]);
        expect(await list({ server: 'gh', tool: 'search' })).toEqual([a]);
        expect(await list({ server: 'gh', tool: 'lookup' })).toEqual([b]);
        expect(await list({ server: 'jira', tool: 'lookup' })).toEqual([]);
        expect(await list({ server: 'gh', hasOutcome: 'failed' })).toEqual([b]);
        expect(await list({ server: 'jira', hasOutcome: 'failed' })).toEqual([d, b]);
        expect(await list({ server: 'jira', hasOutcome: 'cancelled' })).toEqual([]);
        expect(await list({ titleContains: 'alpha' })).toEqual([b, a]);
        expect(await list({ titleContains: 'DEPLOY Alpha' })).toEqual([b, a]);
        // % and _ are the characters themselves, never patterns
        expect(await list({ titleContains: '%' })).toEqual([c]);
        expect(await list({ titleContains: 'a_2' })).toEqual([b]);
        expect(await list({ titleContains: 'a_b' })).toEqual([]);
        expect(await list({ titleContains: '_' })).toEqual([b]);
        // letters beyond A-Z keep their case
        expect(await list({ titleContains: 'Ünï' })).toEqual([c]);
        expect(await list({ titleContains: 'ünï' })).toEqual([e]);
        expect(await list({ titleContains: 'ÜNÏ' })).toEqual([]);
        expect(await list({ titleContains: 'ÜnÏ' })).toEqual([]);
        expect(await list({ titleContains: 'null' })).toEqual([]);
        expect(await list({ titleContains: 'a', server: 'gh', limit: 1 })).toEqual([b]);
        expect(await store.runTotals({ configuration: 'filters', titleContains: 'a' })).toEqual({ runs: 3, tokens: 0, complete: true });
        expect(await store.runTotals({ configuration: 'filters', server: 'gh' })).toEqual({ runs: 2, tokens: 0, complete: true });
        await expectStoreError(store.listRuns({ server: '' }), 'invalid_input', /RunQuery\.server/);
        await expectStoreError(store.listRuns({ tool: 7 as unknown as string }), 'invalid_input', /RunQuery\.tool/);
        await expectStoreError(store.listRuns({ titleContains: '' }), 'invalid_input', /RunQuery\.titleContains/);
        await expectStoreError(store.runTotals({ titleContains: 'a\0' }), 'invalid_input', /RunQuery\.titleContains/);
        await expectStoreError(store.runTotals({ hasOutcome: 'timeout' as 'ok' }), 'invalid_input', /RunQuery\.hasOutcome/);
        for (const upTo of [0, -1, 1.5, Number.NaN, 2 ** 53, '10' as unknown as number]) {
          await expectStoreError(store.runTotals({ upTo }), 'invalid_input', /RunTotalsQuery\.upTo must be a positive integer/);
        }
      });

      it(
        'answers listRuns, runTotals and listToolCalls as a plain model of generated runs does, page by page',
        { timeout: 60_000 },
        async ({ skip }) => {
          const store = searching(await open(), skip);
          let check = 0;
          await fc.assert(
            fc.asyncProperty(
              runSpecs,
              fc.array(filterSets, { minLength: 3, maxLength: 3 }),
              fc.array(callFilterSets, { minLength: 2, maxLength: 2 }),
              fc.integer({ min: 1, max: 3 }),
              async (specs, filters, callFilters, limit) => {
                check += 1;
                const configuration = `search-${check}`;
                const servers = [`s${check}-a`, `s${check}-b`, `s${check}-none`];
                const base = checkBase(check);
                const runs: ModelRun[] = [];
                for (const spec of specs) {
                  const run = await store.createRun({ configuration, title: spec.title, createdAt: base + spec.at });
                  for (const step of spec.steps) await store.appendStep(run.id, appendInput(step, servers, base));
                  if (spec.status !== 'running') await store.finishRun(run.id, { status: spec.status, finishedAt: base + 10 });
                  runs.push(modelRun(spec, run.id, servers, base));
                }
                // generated filters together, paged; then every title text and every server and tool pair alone, in one page
                for (const [i, filter] of [{}, ...filters, ...SINGLE_FILTERS].entries()) {
                  const query = runQueryOf(filter, configuration, servers);
                  const expected = modelListing(runs, query);
                  const listed =
                    i <= filters.length ? await listAll(store, { ...query, limit }) : (await store.listRuns({ ...query, limit: 200 })).runs;
                  expect(listed.map((run) => [run.id, run.tokens])).toEqual(expected.map((run) => [run.id, run.tokens]));
                  const tokensOf = (some: readonly ModelRun[]): number => some.reduce((sum, run) => sum + run.tokens, 0);
                  expect(await store.runTotals(query)).toEqual({ runs: expected.length, tokens: tokensOf(expected), complete: true });
                  // counted up to `limit` runs: all of them when no more match; else `limit` of them
                  // (any), their tokens between those of the `limit` runs with the fewest and the most
                  const upTo = await store.runTotals({ ...query, upTo: limit });
                  if (expected.length <= limit) {
                    expect(upTo).toEqual({ runs: expected.length, tokens: tokensOf(expected), complete: true });
                  } else {
                    const byTokens = expected.map((run) => run.tokens).sort((x, y) => x - y);
                    expect(upTo).toMatchObject({ runs: limit, complete: false });
                    expect(upTo.tokens).toBeGreaterThanOrEqual(byTokens.slice(0, limit).reduce((x, y) => x + y, 0));
                    expect(upTo.tokens).toBeLessThanOrEqual(byTokens.slice(-limit).reduce((x, y) => x + y, 0));
                  }
                }
                for (const [i, filter] of callFilters.entries()) {
                  const query: ToolCallQuery = {
                    server: servers[i]!,
                    limit,
                    ...(filter.outcome === undefined ? {} : { outcome: filter.outcome }),
                    ...(filter.since === undefined ? {} : { since: base + filter.since }),
                    ...(filter.until === undefined ? {} : { until: base + filter.until }),
                  };
                  expect(await allCalls(store, query)).toEqual(modelCalls(runs, query));
                }
                expect(await allCalls(store, { server: servers[2]! })).toEqual([]);
              },
            ),
            { numRuns: 12 },
          );
        },
      );

      it('lists one server’s ended calls newest first, with their tool, outcome, cause and duration as recorded', async ({ skip }) => {
        const store = searching(await open(), skip);
        // two runs whose ids decide the order of calls at the same time
        const low = (await store.createRun({ id: '10000000-0000-4000-8000-000000000001', configuration: 'calls', createdAt: BASE })).id;
        const high = (await store.createRun({ id: 'F0000000-0000-4000-8000-000000000002', configuration: 'calls', createdAt: BASE })).id;
        expect(high).toBe('f0000000-0000-4000-8000-000000000002');
        await store.appendStep(low, toolStep({ server: 'gh', outcome: 'ok', toolName: 'search', durationMs: 12.5, createdAt: BASE + 5 }));
        await store.appendStep(
          low,
          toolStep({
            server: 'gh',
            outcome: 'failed',
            cause: 'server_error',
            durationMs: 40,
            createdAt: BASE + 5,
            facts: { serverIsError: true },
          }),
        );
        await store.appendStep(low, toolStep({ server: 'jira', outcome: 'ok', createdAt: BASE + 6 }));
        await store.appendStep(
          high,
          toolStep({ server: 'gh', outcome: 'cancelled', toolName: 'lookup', durationMs: 7, createdAt: BASE + 5 }),
        );
        await store.appendStep(high, toolStep({ server: 'gh', outcome: null, createdAt: BASE + 8 }));
        await store.appendStep(high, llmStep(BASE + 9));
        await store.appendStep(
          high,
          toolStep({ server: 'gh', outcome: 'failed', createdAt: BASE + 3, legacy: true, toolName: 'mcp_gh_x' }),
        );
        const call = (runId: string, sequence: number, rest: Partial<StoredToolCall>): StoredToolCall => ({
          runId,
          sequence,
          server: 'gh',
          tool: 'mcp_gh_lookup',
          outcome: 'ok',
          cause: null,
          failureFacts: null,
          durationMs: 1,
          createdAt: BASE + 5,
          ...rest,
        });
        const all = [
          call(high, 0, { tool: 'lookup', outcome: 'cancelled', durationMs: 7 }),
          call(low, 1, { outcome: 'failed', cause: 'server_error', failureFacts: { serverIsError: true }, durationMs: 40 }),
          call(low, 0, { tool: 'search', durationMs: 12.5 }),
          call(high, 3, { tool: 'mcp_gh_x', outcome: 'failed', createdAt: BASE + 3 }),
        ];
        const first = await store.listToolCalls({ server: 'gh' });
        expect(first).toEqual({ calls: all, nextCursor: null });
        for (const limit of [1, 2, 3, 4]) expect(await allCalls(store, { server: 'gh', limit })).toEqual(all);
        expect((await store.listToolCalls({ server: 'gh', limit: 4 })).nextCursor).toBeNull();
        expect(await allCalls(store, { server: 'gh', outcome: 'failed', limit: 1 })).toEqual([all[1], all[3]]);
        expect(await allCalls(store, { server: 'gh', since: BASE + 5 })).toEqual(all.slice(0, 3));
        expect(await allCalls(store, { server: 'gh', until: BASE + 5 })).toEqual([all[3]]);
        expect(await allCalls(store, { server: 'gh', since: BASE + 3, until: BASE + 4 })).toEqual([all[3]]);
        expect(await allCalls(store, { server: 'gh', since: BASE + 6, until: BASE + 5 })).toEqual([]);
        expect(await allCalls(store, { server: 'jira' })).toEqual([
          call(low, 2, { server: 'jira', tool: 'mcp_jira_lookup', createdAt: BASE + 6 }),
        ]);
        expect(await allCalls(store, { server: 'GH' })).toEqual([]);
        // an imported run's calls are listed like appended ones
        const source = InMemoryRunStore.create();
        const copied = await source.createRun({ configuration: 'calls', createdAt: BASE });
        await source.appendStep(copied.id, toolStep({ server: 'gh', outcome: 'ok', toolName: 'copied', createdAt: BASE + 20 }));
        await store.importRun((await source.getRun(copied.id))!, await source.readSteps(copied.id));
        expect((await store.listToolCalls({ server: 'gh', limit: 1 })).calls).toEqual([
          call(copied.id, 0, { tool: 'copied', createdAt: BASE + 20 }),
        ]);
        await expectStoreError(store.listToolCalls({ server: '' }), 'invalid_input', /ToolCallQuery\.server/);
        await expectStoreError(store.listToolCalls({ server: 'gh', outcome: 'x' as 'ok' }), 'invalid_input', /ToolCallQuery\.outcome/);
        await expectStoreError(store.listToolCalls({ server: 'gh', since: -1 }), 'invalid_input', /ToolCallQuery\.since/);
        await expectStoreError(store.listToolCalls({ server: 'gh', until: 1.5 }), 'invalid_input', /ToolCallQuery\.until/);
        await expectStoreError(store.listToolCalls({ server: 'gh', limit: 0 }), 'invalid_input', /ToolCallQuery\.limit/);
        const runCursor = (await store.listRuns({ limit: 1 })).nextCursor!;
        await expectStoreError(store.listToolCalls({ server: 'gh', cursor: runCursor }), 'invalid_input', /ToolCallQuery\.cursor/);
        await expectStoreError(store.listToolCalls({ server: 'gh', cursor: 'junk' }), 'invalid_input', /ToolCallQuery\.cursor/);
      });

      it('finds run ids by a prefix in any case, ascending, at most limit', async ({ skip }) => {
        const store = searching(await open(), skip);
        const made = [
          'abc00000-0000-4000-8000-000000000002',
          'ABC00000-0000-4000-8000-000000000001',
          'abcd0000-0000-4000-8000-000000000000',
          'abd00000-0000-4000-8000-000000000000',
          '0bc00000-0000-4000-8000-000000000000',
        ];
        for (const id of made) await store.createRun({ id, configuration: 'prefix', createdAt: BASE });
        const [abc2, abc1, abcd, abd] = made.map((id) => id.toLowerCase());
        expect(await store.findRunIdsByPrefix('abc')).toEqual([abc1, abc2, abcd]);
        expect(await store.findRunIdsByPrefix('ABC')).toEqual([abc1, abc2, abcd]);
        expect(await store.findRunIdsByPrefix('ab', 2)).toEqual([abc1, abc2]);
        expect(await store.findRunIdsByPrefix('a')).toEqual([abc1, abc2, abcd, abd]);
        expect(await store.findRunIdsByPrefix('abc00000-')).toEqual([abc1, abc2]);
        expect(await store.findRunIdsByPrefix(made[1]!)).toEqual([abc1]);
        expect(await store.findRunIdsByPrefix('abcd0000-0000-4000-8000-0000000000001')).toEqual([]);
        for (const prefix of ['x', 'run', '%', '_', 'a%', 'ab_', 'abc0000_', '-', ' abc', 'abc00000_']) {
          expect(await store.findRunIdsByPrefix(prefix)).toEqual([]);
        }
        await expectStoreError(store.findRunIdsByPrefix(''), 'invalid_input', /prefix/);
        await expectStoreError(store.findRunIdsByPrefix('a', 0), 'invalid_input', /limit/);
        await expectStoreError(store.findRunIdsByPrefix('a', 1.5), 'invalid_input', /limit/);
      });
    });
  });
}
