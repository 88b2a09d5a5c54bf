/**
 * What the runs list's filter boxes suggest (issue 40 item 7): the configurations, servers and
 * tools the store holds, each list bounded, offered through an HTML `<datalist>` (no script needed).
 */

/** The most names each filter box suggests. @internal */
export const MAX_SUGGESTIONS = 200;

/** The names each filter box suggests, newest (or busiest) first. @internal */
export interface FilterSuggestions {
  readonly configuration: readonly string[];
  readonly server: readonly string[];
  readonly tool: readonly string[];
}

/** No suggestions. @internal */
export const NO_SUGGESTIONS: FilterSuggestions = Object.freeze({ configuration: [], server: [], tool: [] });

/**
 * The distinct names of `values` in their first order, empty strings and nulls left out, at most
 * {@link MAX_SUGGESTIONS}.
 *
 * @internal
 */
export function distinctNames(values: Iterable<string | null | undefined>): string[] {
  const seen = new Set<string>();
  for (const value of values) {
    if (seen.size >= MAX_SUGGESTIONS) break;
    if (typeof value === 'string' && value !== '') seen.add(value);
  }
  return [...seen];
}
