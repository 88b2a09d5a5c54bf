// The SQL of version 18's token backfill counts a payload's tokens as trace's stepTokens does, for
// every payload text: whole numbers written as 1.0 or 1e3, values past 2^53, booleans, strings,
// arrays and text that is no JSON.
import { stepTokens } from '@runledger/trace/store';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { LLM_STEP_TOKENS_SQL } from './backfillRunTokens.js';

const db = new Database(':memory:');
afterAll(() => db.close());
const sqlTokens = db.prepare(`SELECT ${LLM_STEP_TOKENS_SQL} FROM (SELECT ? AS payload)`).pluck();

/** stepTokens of a stored payload text, read as the in-memory store and importRun read it. */
function jsTokens(text: string): number {
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    return 0;
  }
  return typeof payload === 'object' && payload !== null ? stepTokens('llm', payload as Record<string, unknown>) : 0;
}

/** JSON text of a token value, written the ways a payload may hold it. */
const tokenText = fc.oneof(
  fc.integer({ min: -5, max: 1_000_000 }).map(String),
  fc.integer({ min: 0, max: 1000 }).map((n) => `${n}.0`),
  fc.integer({ min: 1, max: 9 }).map((n) => `${n}e3`),
  fc.integer({ min: 1, max: 9 }).map((n) => `${n}.5`),
  fc.constantFrom(
    '9007199254740991',
    '9007199254740992',
    '9007199254740993',
    '18446744073709551616',
    '1e300',
    '-0',
    '0.0',
    'true',
    'false',
    'null',
    '"12"',
    '[3]',
    '{"n":3}',
  ),
);

const payloadText = fc.oneof(
  fc.record({ promptTokens: tokenText, completionTokens: tokenText, other: fc.constantFrom('1', '"x"') }, { requiredKeys: [] }).map(
    (fields) =>
      `{${Object.entries(fields)
        .map(([key, value]) => `"${key}":${value}`)
        .join(',')}}`,
  ),
  fc.constantFrom('', '{', 'not json', '[]', '[{"promptTokens":3}]', '"text"', '7', 'null', '{"promptTokens":3,}'),
);

describe('the token count of version 18', () => {
  it('counts every payload text as stepTokens does', () => {
    fc.assert(
      fc.property(payloadText, (text) => {
        expect(sqlTokens.get(text), text).toBe(jsTokens(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('adds promptTokens and completionTokens and leaves out what is no safe integer above 0', () => {
    expect(sqlTokens.get('{"promptTokens":120,"completionTokens":30}')).toBe(150);
    expect(sqlTokens.get('{"promptTokens":2.0,"completionTokens":1e2}')).toBe(102);
    expect(sqlTokens.get('{"promptTokens":9007199254740992,"completionTokens":-3}')).toBe(0);
    expect(sqlTokens.get('{"promptTokens":true,"completionTokens":"4"}')).toBe(0);
    expect(sqlTokens.get('{"promptTokens":')).toBe(0);
  });
});
