/**
 * What the runs list asks of a store, in one place: reading its filters from a URL (and refusing
 * bad ones by field), the store query they make, and the URL parameters that carry them on.
 */
import { isToolOutcome, type ToolOutcome } from '@runledger/core';
import { isRunStatus, type RunStatus, type RunTotalsQuery } from '@runledger/trace';
import type { MessageKey } from '../i18n/messagesEn.js';
import type { MessageParams } from '../i18n/Translator.js';
import { zonedTimeMs } from './zonedTimeMs.js';

/** A field of the runs list's filter form, named as its URL parameter. @internal */
export type RunsFilterField = 'configuration' | 'server' | 'tool' | 'title' | 'from' | 'to';

/** The filters of the runs list as the URL carries them. @internal */
export interface RunsFilter {
  readonly status: RunStatus | null;
  /** Only runs with at least one tool call of this outcome. */
  readonly has: ToolOutcome | null;
  readonly configuration: string | null;
  readonly server: string | null;
  readonly tool: string | null;
  /** Text the run's title contains (ASCII letters in any case). */
  readonly title: string | null;
  /** The start of the time range as given (`2026-11-30T08:00`, a wall-clock time in the app's time zone), or null. */
  readonly from: string | null;
  /** The end of the time range (exclusive), as given, or null. */
  readonly to: string | null;
  readonly cursor: string | null;
  /** False when the list was asked not to refresh itself (`refresh=off`). */
  readonly refresh: boolean;
}

/** A filter the list refuses: the field and the message saying the rule. @internal */
export interface RunsFilterProblem {
  /** The field, or null for a problem of the whole query (a cursor the store refuses). */
  readonly field: RunsFilterField | null;
  readonly message: MessageKey;
  readonly params?: MessageParams;
}

/** The runs list's query read from a URL. @internal */
export interface RunsQuery {
  readonly filter: RunsFilter;
  /** The store filters (every page of the list; add `cursor` and `limit` to list one). */
  readonly query: RunTotalsQuery;
  /** Empty when the filters can be asked as they are. */
  readonly problems: readonly RunsFilterProblem[];
}

/** The longest text a text filter takes. @internal */
export const RUNS_FILTER_MAX_TEXT = 200;

/**
 * The shortest text the title search takes, in characters: the stores find a title by its
 * trigrams, so a shorter text would make every request read every run's title. @internal
 */
export const RUNS_TITLE_MIN_TEXT = 3;

const CONTROL = /[\u0000-\u001f\u007f]/;
/** A date and time as `<input type="datetime-local">` sends it (seconds and milliseconds optional). */
const LOCAL_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?$/;

/** The text filters the store's search reads; a store without search (see `canSearchRuns`) is not asked them. */
const SEARCH_FIELDS = ['server', 'tool', 'title'] as const;

/**
 * The runs list's filters from a URL's parameters: a status or outcome it does not know reads as
 * "any" (they come from selects); a text too long or with control characters, or a time that is
 * not one, is a problem naming the field. Times are wall-clock times in `timeZone`.
 *
 * @internal
 */
export function readRunsQuery(params: URLSearchParams, options: { readonly timeZone: string; readonly searchable: boolean }): RunsQuery {
  const problems: RunsFilterProblem[] = [];
  const textOf = (field: RunsFilterField): string | null => {
    const value = (params.get(field) ?? '').trim();
    if (value === '') return null;
    if (value.length > RUNS_FILTER_MAX_TEXT)
      problems.push({ field, message: 'runs.filter.error.tooLong', params: { count: RUNS_FILTER_MAX_TEXT } });
    else if (CONTROL.test(value)) problems.push({ field, message: 'runs.filter.error.control' });
    else if (field === 'title' && [...value].length < RUNS_TITLE_MIN_TEXT)
      problems.push({ field, message: 'runs.filter.error.tooShort', params: { count: RUNS_TITLE_MIN_TEXT } });
    return value;
  };
  const status = params.get('status') ?? '';
  const has = params.get('has') ?? '';
  const searched = Object.fromEntries(SEARCH_FIELDS.map((field) => [field, options.searchable ? textOf(field) : null])) as Record<
    (typeof SEARCH_FIELDS)[number],
    string | null
  >;
  const filter: RunsFilter = {
    status: isRunStatus(status) ? status : null,
    has: isToolOutcome(has) ? has : null,
    configuration: textOf('configuration'),
    ...searched,
    from: textOf('from'),
    to: textOf('to'),
    cursor: params.get('cursor') || null,
    refresh: params.get('refresh') !== 'off',
  };
  const createdFrom = timeOf(filter.from, 'from', options.timeZone, problems);
  let createdTo = timeOf(filter.to, 'to', options.timeZone, problems);
  if (createdFrom !== undefined && createdTo !== undefined && createdTo <= createdFrom) {
    problems.push({ field: 'to', message: 'runs.filter.error.range' });
    createdTo = undefined;
  }
  const query: RunTotalsQuery = {
    ...(filter.status === null ? {} : { status: filter.status }),
    ...(filter.has === null ? {} : { hasOutcome: filter.has }),
    ...(filter.configuration === null ? {} : { configuration: filter.configuration }),
    ...(filter.server === null ? {} : { server: filter.server }),
    ...(filter.tool === null ? {} : { tool: filter.tool }),
    ...(filter.title === null ? {} : { titleContains: filter.title }),
    ...(createdFrom === undefined ? {} : { createdFrom }),
    ...(createdTo === undefined ? {} : { createdTo }),
  };
  return { filter, query, problems };
}

/** A time filter in ms since the epoch, undefined when absent or refused (the refusal is added to `problems`). */
function timeOf(value: string | null, field: 'from' | 'to', timeZone: string, problems: RunsFilterProblem[]): number | undefined {
  if (value === null || problems.some((problem) => problem.field === field)) return undefined;
  const match = LOCAL_TIME.exec(value);
  if (match !== null) {
    const [year, month, day, hour, minute, second] = match.slice(1, 7).map((part) => Number(part ?? '0'));
    const ms = Number((match[7] ?? '').padEnd(3, '0'));
    const wall = Date.UTC(year!, month! - 1, day!, hour!, minute!, second!, ms);
    const date = new Date(wall);
    const exists = date.getUTCMonth() === month! - 1 && date.getUTCDate() === day! && hour! < 24 && minute! < 60 && second! < 60;
    if (exists && year! >= 1970) {
      const at = zonedTimeMs(wall, timeZone);
      if (at >= 0) return at;
    }
  }
  problems.push({ field, message: 'runs.filter.error.time', params: { value } });
  return undefined;
}

/**
 * The URL parameters that carry a list's filters on (to the next page, to the same list
 * refreshed); empty ones are left out by the link builder.
 *
 * @internal
 */
export function runsFilterParams(filter: RunsFilter): Record<string, string | null> {
  return {
    status: filter.status,
    has: filter.has,
    configuration: filter.configuration,
    server: filter.server,
    tool: filter.tool,
    title: filter.title,
    from: filter.from,
    to: filter.to,
    refresh: filter.refresh ? null : 'off',
  };
}
