import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readRunsQuery, RUNS_FILTER_MAX_TEXT, RUNS_TITLE_MIN_TEXT, runsFilterParams } from './runsQuery.js';

/** URL parameters of the values that are not null. */
const paramsOf = (values: Readonly<Record<string, string | null>>): URLSearchParams =>
  new URLSearchParams(Object.entries(values).flatMap(([name, value]): [string, string][] => (value === null ? [] : [[name, value]])));

const read = (query: string | URLSearchParams, timeZone = 'UTC', searchable = true) =>
  readRunsQuery(new URLSearchParams(query), { timeZone, searchable });

/** A text filter the list takes: trimmed, without control characters, at most 200 characters. */
const goodText = fc
  .string({ minLength: 1, maxLength: RUNS_FILTER_MAX_TEXT })
  .map((text) => text.replace(/[\u0000-\u001f\u007f]/g, 'x').trim())
  .filter((text) => text !== '');
/** A title search long enough for the stores' trigram index. */
const goodTitle = goodText.filter((text) => [...text].length >= RUNS_TITLE_MIN_TEXT);

describe('readRunsQuery: the runs list’s filters from its URL', () => {
  it('reads a wall-clock time in the zone, to the millisecond; empty fields are absent', () => {
    expect(read('from=2026-07-01T08:00&to=2026-07-01T09:00', 'America/New_York').query).toEqual({
      createdFrom: Date.parse('2026-07-01T12:00:00Z'),
      createdTo: Date.parse('2026-07-01T13:00:00Z'),
    });
    expect(read('from=2026-07-01T08:00:05.5').query).toEqual({ createdFrom: Date.parse('2026-07-01T08:00:05.500Z') });
    expect(read('from=2026-07-01 08:00').query).toEqual({ createdFrom: Date.parse('2026-07-01T08:00:00Z') });
    expect(read('title=Inbox&server=&tool=+&configuration=&from=').query).toEqual({ titleContains: 'Inbox' });
    expect(read('status=failed&has=ok').query).toEqual({ status: 'failed', hasOutcome: 'ok' });
  });

  it('refuses a time that is not one, before 1970, or a range that ends before it starts, naming the field', () => {
    for (const [query, field] of [
      ['from=2026-13-01T08:00', 'from'],
      ['from=2026-02-29T08:00', 'from'],
      ['to=2026-03-01T24:00', 'to'],
      ['to=2026-03-01T08:60', 'to'],
      ['from=2026-03-01', 'from'],
      ['from=1969-12-31T23:59', 'from'],
      ['from=1970-01-01T00:30', 'from'],
      ['from=2026-03-01T08:00&to=2026-03-01T07:00', 'to'],
    ] as const) {
      const zone = query === 'from=1970-01-01T00:30' ? 'Europe/Berlin' : 'UTC';
      const { problems, query: asked } = read(query, zone);
      expect(
        problems.map((problem) => problem.field),
        query,
      ).toEqual([field]);
      expect(asked, query).not.toHaveProperty(field === 'from' ? 'createdFrom' : 'createdTo');
    }
    expect(read('from=2028-02-29T08:00').problems).toEqual([]);
  });

  it('takes any text of at most 200 characters without control characters, trimmed; refuses longer ones and control characters', () => {
    fc.assert(
      fc.property(goodTitle, fc.constantFrom('configuration', 'server', 'tool', 'title'), (text, field) => {
        const { filter, problems } = read(new URLSearchParams({ [field]: ` ${text} ` }));
        expect(problems).toEqual([]);
        expect(filter[field]).toBe(text);
      }),
    );
    expect(read(`tool=${'x'.repeat(RUNS_FILTER_MAX_TEXT + 1)}`).problems).toEqual([
      { field: 'tool', message: 'runs.filter.error.tooLong', params: { count: RUNS_FILTER_MAX_TEXT } },
    ]);
    expect(read('configuration=a%09b').problems).toEqual([{ field: 'configuration', message: 'runs.filter.error.control' }]);
  });

  it('refuses a title search of fewer than 3 characters (it would read every run), and no other field for its length', () => {
    fc.assert(
      fc.property(
        goodText.filter((text) => [...text].length < RUNS_TITLE_MIN_TEXT),
        fc.constantFrom('configuration', 'server', 'tool'),
        (short, other) => {
          expect(read(new URLSearchParams({ title: short })).problems).toEqual([
            { field: 'title', message: 'runs.filter.error.tooShort', params: { count: RUNS_TITLE_MIN_TEXT } },
          ]);
          expect(read(new URLSearchParams({ [other]: short })).problems).toEqual([]);
        },
      ),
    );
    // Characters, not UTF-16 units: two emoji are two characters.
    expect(read(new URLSearchParams({ title: '🚀🚀' })).problems).toHaveLength(1);
    expect(read(new URLSearchParams({ title: '🚀🚀🚀' })).problems).toEqual([]);
  });

  it('reads what its links carry as the same filters (paging and the language switch keep them)', () => {
    const filters = fc.record({
      status: fc.constantFrom('', 'running', 'failed', 'bogus'),
      has: fc.constantFrom('', 'ok', 'failed', 'cancelled', 'x'),
      configuration: fc.option(goodText),
      server: fc.option(goodText),
      tool: fc.option(goodText),
      title: fc.option(goodTitle),
      from: fc.option(
        fc.date({ min: new Date(0), max: new Date(4_102_444_800_000), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 16)),
      ),
      refresh: fc.constantFrom('', 'off'),
    });
    fc.assert(
      fc.property(filters, (given) => {
        const first = read(paramsOf(given));
        const again = read(paramsOf(runsFilterParams(first.filter)));
        expect(again.filter).toEqual(first.filter);
        expect(again.query).toEqual(first.query);
      }),
    );
  });

  it('a store that cannot search is not asked for server, tool or title', () => {
    expect(read('server=docs&tool=t&title=xyz&configuration=c', 'UTC', false)).toMatchObject({
      filter: { server: null, tool: null, title: null, configuration: 'c' },
      query: { configuration: 'c' },
      problems: [],
    });
  });
});
