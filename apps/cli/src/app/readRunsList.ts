import { canSearchRuns, RunStoreError, type RunStore } from '@runledger/trace';
import type { RunsListView } from '../views/runsView.js';
import { readRunsQuery } from '../viewModels/runsQuery.js';

/**
 * The most runs the list's totals count: past it the line says "10,000+ runs · 91,802,114+ tokens"
 * (the tokens of the 10,000 counted), so a page costs the same in a store of any size. @internal
 */
export const RUNS_TOTALS_UP_TO = 10_000;

/**
 * One page of the runs list for a URL's parameters: the filters read, the page and (from a store
 * that can search) the totals of every page (of the newest {@link RUNS_TOTALS_UP_TO} at most). Filters the list refuses, and a query the store
 * refuses as invalid input (a cursor that is not one), come back as `problems` with no page.
 *
 * @internal
 */
export async function readRunsList(
  store: RunStore,
  params: URLSearchParams,
  options: { readonly timeZone: string; readonly pageSize: number },
): Promise<RunsListView> {
  const searchable = canSearchRuns(store);
  const { filter, query, problems } = readRunsQuery(params, { timeZone: options.timeZone, searchable });
  const view = { filter, searchable, timeZone: options.timeZone };
  if (problems.length > 0) return { ...view, problems, page: null, totals: null };
  try {
    const [page, totals] = await Promise.all([
      store.listRuns({ ...query, cursor: filter.cursor, limit: options.pageSize }),
      searchable ? store.runTotals({ ...query, upTo: RUNS_TOTALS_UP_TO }) : null,
    ]);
    return { ...view, problems: [], page, totals };
  } catch (error) {
    if (!RunStoreError.is(error) || error.code !== 'invalid_input') throw error;
    return {
      ...view,
      problems: [{ field: null, message: 'runs.filter.error.query', params: { message: error.message } }],
      page: null,
      totals: null,
    };
  }
}
