import type {
  PruningRunStore,
  RunStore,
  SearchingRunStore,
  PruneRunsQuery,
  PruneRunsResult,
  ToolCallPage,
  ToolCallQuery,
} from '@runledger/trace';
import { describe, expectTypeOf, it } from 'vitest';
import type { PostgresRunStoreOptions } from './PostgresRunStoreOptions.js';
import { PostgresRunStore } from './PostgresRunStore.js';

describe('PostgresRunStore types', () => {
  it('is a RunStore made by an async factory with an options object', () => {
    expectTypeOf<PostgresRunStore>().toMatchTypeOf<RunStore>();
    expectTypeOf(PostgresRunStore.connect).parameter(0).toEqualTypeOf<PostgresRunStoreOptions | undefined>();
    expectTypeOf(PostgresRunStore.connect).returns.resolves.toEqualTypeOf<PostgresRunStore>();
  });

  it('is a PruningRunStore: pruneRuns takes the shared query and resolves to the shared result', () => {
    expectTypeOf<PostgresRunStore>().toMatchTypeOf<PruningRunStore>();
    expectTypeOf<PostgresRunStore['pruneRuns']>().parameter(0).toEqualTypeOf<PruneRunsQuery>();
    expectTypeOf<PostgresRunStore['pruneRuns']>().returns.resolves.toEqualTypeOf<PruneRunsResult>();
  });

  it('is a SearchingRunStore: the search methods take and give the shared shapes', () => {
    expectTypeOf<PostgresRunStore>().toMatchTypeOf<SearchingRunStore>();
    expectTypeOf<PostgresRunStore['listToolCalls']>().parameter(0).toEqualTypeOf<ToolCallQuery>();
    expectTypeOf<PostgresRunStore['listToolCalls']>().returns.resolves.toEqualTypeOf<ToolCallPage>();
    expectTypeOf<PostgresRunStore['findRunIdsByPrefix']>().returns.resolves.toEqualTypeOf<readonly string[]>();
  });

  it('takes every option as optional and read-only', () => {
    expectTypeOf<PostgresRunStoreOptions>().toEqualTypeOf<{
      readonly connectionString?: string;
      readonly schema?: string;
      readonly poolSize?: number;
      readonly cancelPollMs?: number;
      readonly applicationName?: string;
      readonly groupCommit?: boolean;
      readonly queryTimeoutMs?: number;
    }>();
  });
});
