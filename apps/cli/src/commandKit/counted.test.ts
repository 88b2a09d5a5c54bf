// The command line says every count with the noun form the count needs (issue 40 item 6): `1 run`,
// `2 runs`, never `1 runs`, through the app's catalog and Intl.PluralRules. The German forms of the
// same keys are held by src/i18n/plurals.test.ts; here, English (the command line's language) for
// any count, and no count written before a plural noun by hand anywhere in the CLI's sources.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { en } from '../i18n/messagesEn.js';
import { type CountKey, counted } from './counted.js';

/** Each count key's English noun for one and for any other count. */
const NOUNS: Readonly<Record<CountKey, readonly [one: string, other: string]>> = {
  'count.runs': ['run', 'runs'],
  'count.demoRuns': ['demo run', 'demo runs'],
  'count.steps': ['step', 'steps'],
  'count.unstoredSteps': ['unstored step', 'unstored steps'],
  'count.spans': ['span', 'spans'],
  'count.toolCalls': ['tool call', 'tool calls'],
  'count.batches': ['batch', 'batches'],
  'count.finalStatuses': ['final status', 'final statuses'],
  'count.lateFinalStatuses': ['late final status', 'late final statuses'],
  'count.tornLines': ['torn last line', 'torn last lines'],
  'count.tools': ['tool', 'tools'],
  'count.alertsFiring': ['alert firing', 'alerts firing'],
};

const SRC = fileURLToPath(new URL('..', import.meta.url));

/** Every non-test TypeScript file below a folder of src/. */
function sources(folder: string): string[] {
  return readdirSync(join(SRC, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !/\.test(-d)?\.ts$/.test(file))
    .map((file) => join(SRC, folder, file));
}

describe('counted', () => {
  it('covers every count key of the catalog', () => {
    const keys = Object.keys(en).filter((key) => key.startsWith('count.'));
    expect(Object.keys(NOUNS).sort()).toEqual(keys.sort());
  });

  it('says 0, 1, 2 and any large count with its noun in the form the count needs', () => {
    const check = (count: number) => {
      for (const [key, [one, other]] of Object.entries(NOUNS) as [CountKey, readonly [string, string]][]) {
        const number = count.toLocaleString('en-US');
        expect(counted(key, count), `${key} ${count}`).toBe(`${number} ${count === 1 ? one : other}`);
      }
    };
    for (const count of [0, 1, 2, 1_000, 1_000_000]) check(count);
    fc.assert(fc.property(fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER })), check), {
      numRuns: 200,
    });
    expect(counted('count.runs', 1)).toBe('1 run');
    expect(counted('count.runs', 2)).toBe('2 runs');
    expect(counted('count.steps', 1_200)).toBe('1,200 steps');
  });

  it('is the only way the commands, the demo and the command kit put a count before a plural noun', () => {
    const byHand = /\$\{[^}]+\} ?(runs|steps|spans|batches|statuses|lines|tools|calls|files|tokens|seconds|alerts|rules)\b/;
    const offenders = ['commands', 'commandKit', 'cli', 'demo'].flatMap(sources).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, index) => ({ where: `${file}:${index + 1}`, line }))
        .filter(({ line }) => !/^\s*(\/\/|\*)/.test(line) && byHand.test(line)),
    );
    expect(offenders).toEqual([]);
  });
});
