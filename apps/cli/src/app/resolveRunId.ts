import { canSearchRuns, type RunPage, type RunStore, type StoredRun } from '@runledger/trace';

/** The shortest id prefix that names a run: the short id the app shows. @internal */
export const RUN_ID_PREFIX_MIN_LENGTH = 8;

/** The longest prefix looked up: one character short of a UUID (a full id of no run is not scanned for). */
const RUN_ID_PREFIX_MAX_LENGTH = 35;

/** The most ids one prefix look-up reads (the stores' own limit): an ambiguous prefix names them all. */
const PREFIX_MATCHES_READ = 200;

/** What a run id or id prefix names. @internal */
export type RunIdResolution =
  | { readonly kind: 'run'; readonly run: StoredRun }
  | { readonly kind: 'none' }
  /** No run has that id, and it is too short to be looked up as a prefix. */
  | { readonly kind: 'short' }
  /** The prefix starts more than one run: their ids (ascending from a store that can search, at most 200 then; else newest first). */
  | { readonly kind: 'ambiguous'; readonly ids: readonly string[] };

/**
 * The run with this id, else the one run whose id starts with it (case-insensitive, at least
 * {@link RUN_ID_PREFIX_MIN_LENGTH} characters): what `runs show`, `runs cancel`,
 * `export otlp --run` and the app's `/runs/<id>` take.
 *
 * @remarks The full id is one `getRun`. A prefix is one range read of the store's ids where it can
 * search (`findRunIdsByPrefix`, see `canSearchRuns`), else a read of every run's id, page by page.
 * @internal
 */
export async function resolveRunId(store: RunStore, idOrPrefix: string): Promise<RunIdResolution> {
  const prefix = idOrPrefix.toLowerCase();
  const run = (await store.getRun(idOrPrefix)) ?? (prefix === idOrPrefix ? null : await store.getRun(prefix));
  if (run !== null) return { kind: 'run', run };
  if (idOrPrefix.length < RUN_ID_PREFIX_MIN_LENGTH) return { kind: 'short' };
  if (idOrPrefix.length > RUN_ID_PREFIX_MAX_LENGTH) return { kind: 'none' };
  if (canSearchRuns(store)) {
    const ids = await store.findRunIdsByPrefix(prefix, PREFIX_MATCHES_READ);
    if (ids.length > 1) return { kind: 'ambiguous', ids };
    const found = ids.length === 1 ? await store.getRun(ids[0]!) : null;
    return found === null ? { kind: 'none' } : { kind: 'run', run: found };
  }
  const matches: StoredRun[] = [];
  let cursor: string | null = null;
  do {
    const page: RunPage = await store.listRuns({ limit: 200, cursor });
    for (const candidate of page.runs) if (candidate.id.toLowerCase().startsWith(prefix)) matches.push(candidate);
    cursor = page.nextCursor;
  } while (cursor !== null);
  if (matches.length === 0) return { kind: 'none' };
  if (matches.length > 1) return { kind: 'ambiguous', ids: matches.map((match) => match.id) };
  return { kind: 'run', run: matches[0]! };
}
