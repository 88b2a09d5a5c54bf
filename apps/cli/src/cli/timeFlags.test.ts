// The time flags (`export otlp --since`, `runs recover --stale-after`, `prune --older-than`) never
// reach before 1970: a value that would is a usage error (exit 2) naming the flag and the rule,
// before any store is opened — never a store's message with exit 1, never a silent clamp.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCommand } from './parseCommand.js';
import { runCli } from './runCli.js';
import { UsageError } from '../commandKit/UsageError.js';

let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'runledger-time-flags-'));
  // a real store, so that a value the parser let through would reach it (and its refusal show)
  expect((await cli(['migrate', '--db', 'runs.db'])).code).toBe(0);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    env: {},
    cwd: dir,
  });
  return { code, stdout, stderr };
}

const MINUTE = 60_000;
const env = { cwd: '/work/here' };

/** Each time flag counted back from now: its command line and its units. */
const SPAN_FLAGS = [
  { command: 'prune', flag: '--older-than', units: { m: MINUTE, h: 60 * MINUTE, d: 1440 * MINUTE, w: 10_080 * MINUTE } },
  { command: 'runs recover', flag: '--stale-after', units: { s: 1000, m: MINUTE, h: 60 * MINUTE } },
  { command: 'export otlp', flag: '--since', units: { m: MINUTE, h: 60 * MINUTE, d: 1440 * MINUTE } },
] as const;

const line = (command: string, flag: string, value: string) => [
  ...command.split(' '),
  ...(command === 'export otlp' ? ['--endpoint', 'http://127.0.0.1:9'] : []),
  '--db',
  'runs.db',
  `${flag}=${value}`,
];

/** A whole number of `unit` that reaches at least a minute before 1970 (up to 400 digits). */
const beyondEpoch = (unit: number) =>
  fc.oneof(
    fc.bigInt({ min: BigInt(Math.floor(Date.now() / unit) + Math.ceil(MINUTE / unit) + 1), max: 10n ** 30n }).map(String),
    fc.stringMatching(/^[1-9]\d{16,399}$/),
  );

/** The refusal of a value reaching before 1970, naming the command, the flag and the rule. */
const refusal = (command: string, flag: string) =>
  new RegExp(`^runledger ${command}: ${flag} must not reach back before 1970-01-01 \\(at most \\d+[a-z] from now\\), got "`);

describe('time flags reaching before 1970', () => {
  it('a span back from now that reaches before 1970 is a usage error naming the flag, at parse time', () => {
    for (const { command, flag, units } of SPAN_FLAGS) {
      for (const [unit, ms] of Object.entries(units)) {
        fc.assert(
          fc.property(beyondEpoch(ms), (count) => {
            const value = `${count}${unit}`;
            let thrown: unknown;
            try {
              parseCommand(line(command, flag, value), env);
            } catch (error) {
              thrown = error;
            }
            expect(thrown, `${command} ${flag} ${value}`).toBeInstanceOf(UsageError);
            expect((thrown as Error).message).toMatch(refusal(command, flag));
          }),
          { numRuns: 40 },
        );
      }
    }
  });

  it('a span that reaches no further than 1970 is accepted (the rule is the epoch, not a digit count)', () => {
    for (const { command, flag, units } of SPAN_FLAGS) {
      for (const [unit, ms] of Object.entries(units)) {
        const furthest = Math.floor(Date.now() / ms) - Math.ceil(MINUTE / ms);
        fc.assert(
          fc.property(fc.integer({ min: Math.max(1, Math.ceil(MINUTE / ms)), max: furthest }), (count) => {
            expect(() => parseCommand(line(command, flag, `${count}${unit}`), env), `${command} ${flag} ${count}${unit}`).not.toThrow();
          }),
          { numRuns: 40 },
        );
      }
    }
  });

  it('--since as a date or time before 1970 is a usage error naming the flag', () => {
    const before1970 = fc.date({ min: new Date('0000-01-01T00:00:00Z'), max: new Date('1969-12-31T23:59:59Z'), noInvalidDate: true });
    fc.assert(
      fc.property(before1970, fc.boolean(), (date, dayOnly) => {
        const value = dayOnly ? date.toISOString().slice(0, 10) : `${date.toISOString().slice(0, 19)}Z`;
        expect(() => parseCommand(line('export otlp', '--since', value), env), value).toThrow(
          `runledger export otlp: --since must not reach back before 1970-01-01, got ${JSON.stringify(value)}`,
        );
      }),
    );
    expect(parseCommand(line('export otlp', '--since', '1970-01-01'), env).options).toMatchObject({ since: 0 });
    expect(parseCommand(line('export otlp', '--since', '9999-12-31T23:59:59Z'), env).options).toMatchObject({
      since: Date.parse('9999-12-31T23:59:59Z'),
    });
  });

  it('the CLI exits 2 with the usage, never 1 with a store message nor 0 after a silent clamp', async () => {
    for (const [command, flag, value] of [
      ['prune', '--older-than', '100000000d'],
      ['prune', '--older-than', '999999999w'],
      ['runs recover', '--stale-after', '99999999999999h'],
      ['runs recover', '--stale-after', `${'9'.repeat(400)}s`],
      ['export otlp', '--since', '999999d'],
      ['export otlp', '--since', '1969-12-31'],
      ['export otlp', '--since', '0001-01-01T00:00:00Z'],
    ] as const) {
      const result = await cli(line(command, flag, value));
      expect(result.code, `${command} ${flag} ${value}: ${result.stderr}`).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(new RegExp(`^runledger ${command}: ${flag} must not reach back before 1970-01-01`));
      expect(result.stderr).toContain(`got ${JSON.stringify(value)}`);
      expect(result.stderr).toContain('Usage: runledger');
      expect(result.stderr).not.toContain('milliseconds since the epoch');
    }
  });

  it('the CLI exits 2 naming the flag for every generated span beyond 1970, on every time flag', async () => {
    const spans = fc
      .constantFrom(...SPAN_FLAGS)
      .chain(({ command, flag, units }) =>
        fc
          .constantFrom(...Object.entries(units))
          .chain(([unit, ms]) => beyondEpoch(ms).map((count) => ({ command, flag, value: `${count}${unit}` }))),
      );
    await fc.assert(
      fc.asyncProperty(spans, async ({ command, flag, value }) => {
        const result = await cli(line(command, flag, value));
        expect(result.code, `${command} ${flag} ${value}: ${result.stderr}`).toBe(2);
        expect(result.stderr.split('\n')[0]).toMatch(refusal(command, flag));
      }),
      { numRuns: 30 },
    );
  });
});
