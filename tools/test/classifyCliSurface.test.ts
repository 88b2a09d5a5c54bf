import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { classifyCliSurface } from '../src/lib/classifyCliSurface.ts';
import { cliSurfaceText } from '../src/lib/cliSurface.ts';
import { ROOT } from './helpers.js';

/** The committed CLI surface of @runledger/cli: the base every case below changes one thing of. */
const BASE = readFileSync(path.join(ROOT, 'api-reports', 'cli.cli.json'), 'utf8');

type Flag = {
  name: string;
  value: string | null;
  required: boolean;
  env?: string;
  choices?: string[];
  min?: number;
  max?: number;
  default?: string;
};
type Surface = {
  program: string;
  exitCodes: { code: number; id: string; meaning: string }[];
  commands: { name: string; aliases: string[]; arguments: { name: string; required: boolean }[]; flags: Flag[]; jsonOutput: any }[];
};

/** The base surface with one edit applied, as report text. */
function edited(edit: (s: Surface) => void): string {
  const s = JSON.parse(BASE) as Surface;
  edit(s);
  return cliSurfaceText(s);
}
const command = (s: Surface, name: string) => s.commands.find((c) => c.name === name)!;
const flagOf = (s: Surface, name: string, flag: string) => command(s, name).flags.find((f) => f.name === flag)!;
const runsListRun = (s: Surface) => command(s, 'runs list').jsonOutput.properties.runs.items;

describe('classifyCliSurface: breaking', () => {
  it('a removed flag', () => {
    const c = classifyCliSurface(
      BASE,
      edited((s) => (command(s, 'runs list').flags = command(s, 'runs list').flags.filter((f) => f.name !== 'limit'))),
    );
    expect(c.level).toBe('breaking');
    expect(c.removed).toEqual([expect.objectContaining({ display: 'runs list --limit (flag)', level: 'breaking', was: '--limit <n>' })]);
  });
  it('a removed command', () => {
    const c = classifyCliSurface(
      BASE,
      edited((s) => (s.commands = s.commands.filter((x) => x.name !== 'copy'))),
    );
    expect(c.level).toBe('breaking');
    expect(c.removed.map((i) => i.display)).toEqual(['copy (command)']);
  });
  it('a removed exit code', () => {
    const c = classifyCliSurface(
      BASE,
      edited((s) => (s.exitCodes = s.exitCodes.filter((x) => x.code !== 2))),
    );
    expect(c.level).toBe('breaking');
    expect(c.removed.map((i) => i.display)).toEqual(['exit code 2']);
  });
  it('a removed JSON output property', () => {
    const c = classifyCliSurface(
      BASE,
      edited((s) => delete runsListRun(s).properties.heartbeatAt),
    );
    expect(c.level).toBe('breaking');
    expect(c.removed.map((i) => i.display)).toEqual(['runs list --json runs[].heartbeatAt (JSON output property)']);
  });
  it('a JSON output property that became optional', () => {
    const c = classifyCliSurface(
      BASE,
      edited((s) => (runsListRun(s).required = runsListRun(s).required.filter((n: string) => n !== 'status'))),
    );
    expect(c.level).toBe('breaking');
    expect(c.changed).toEqual([
      expect.objectContaining({
        display: 'runs list --json runs[].status (JSON output property)',
        level: 'breaking',
        was: 'required',
        now: 'optional',
      }),
    ]);
  });
  it('a changed output type: nullability, a new enum value, string → number', () => {
    const nullable = classifyCliSurface(
      BASE,
      edited((s) => (runsListRun(s).properties.configuration = { type: ['string', 'null'] })),
    );
    expect(nullable.level).toBe('breaking');
    expect(nullable.changed[0]).toMatchObject({
      display: 'runs list --json runs[].configuration (JSON output)',
      reason: expect.stringMatching(/changed type/),
    });
    const newStatus = classifyCliSurface(
      BASE,
      edited((s) => runsListRun(s).properties.status.enum.push('paused')),
    );
    expect(newStatus.level).toBe('breaking');
    const inVariant = classifyCliSurface(
      BASE,
      edited((s) => (runsListRun(s).properties.startedAt.anyOf[0] = { type: 'string' })),
    );
    expect(inVariant.level).toBe('breaking');
    expect(inVariant.changed[0]?.display).toBe('runs list --json runs[].startedAt (JSON output)');
  });
  it('a flag that became required, or a new required flag, or a flag that takes a value now', () => {
    expect(
      classifyCliSurface(
        BASE,
        edited((s) => (command(s, 'servers').flags.find((f) => f.name === 'window')!.required = true)),
      ).level,
    ).toBe('breaking');
    const added = classifyCliSurface(
      BASE,
      edited((s) => command(s, 'servers').flags.push({ name: 'since', value: '<time>', required: true })),
    );
    expect(added.added).toEqual([expect.objectContaining({ display: 'servers --since (flag)', level: 'breaking' })]);
    const valued = classifyCliSurface(
      BASE,
      edited((s) => (command(s, 'runs list').flags.find((f) => f.name === 'json')!.value = '<format>')),
    );
    expect(valued.changed[0]).toMatchObject({ level: 'breaking', reason: 'takes a value now' });
  });
  it('a --json output removed, an argument removed, a flag no longer read from its environment variable', () => {
    expect(
      classifyCliSurface(
        BASE,
        edited((s) => (command(s, 'servers').jsonOutput = null)),
      ).removed.map((i) => i.display),
    ).toEqual(['servers --json (JSON output)']);
    expect(
      classifyCliSurface(
        BASE,
        edited((s) => (command(s, 'runs show').arguments = [])),
      ).level,
    ).toBe('breaking');
    const env = classifyCliSurface(
      BASE,
      edited((s) => delete command(s, 'serve').flags.find((f) => f.name === 'token')!.env),
    );
    expect(env.changed[0]).toMatchObject({
      display: 'serve --token (flag)',
      level: 'breaking',
      reason: 'no longer read from RUNLEDGER_TOKEN',
    });
  });
});

describe('classifyCliSurface: accepted flag values and defaults', () => {
  it('a removed choice is breaking (--has no longer accepting cancelled)', () => {
    const c = classifyCliSurface(
      BASE,
      edited((s) => (flagOf(s, 'runs list', 'has').choices = ['failed', 'ok'])),
    );
    expect(c.level).toBe('breaking');
    expect(c.removed).toEqual([
      expect.objectContaining({ display: 'runs list --has (flag) value cancelled', level: 'breaking', was: 'cancelled' }),
    ]);
  });
  it('a flag that now has choices where it had none is breaking; dropping its choices is additive', () => {
    const now = classifyCliSurface(
      BASE,
      edited((s) => (flagOf(s, 'serve', 'host').choices = ['127.0.0.1', '::1'])),
    );
    expect(now.level).toBe('breaking');
    expect(now.changed).toEqual([expect.objectContaining({ display: 'serve --host (flag)', was: '(any value)', now: '127.0.0.1|::1' })]);
    expect(
      classifyCliSurface(
        BASE,
        edited((s) => delete flagOf(s, 'servers', 'window').choices),
      ).level,
    ).toBe('additive');
  });
  it('a narrower range is breaking (a higher min, a lower max, a new bound); a wider one additive', () => {
    const narrower = classifyCliSurface(
      BASE,
      edited((s) => (flagOf(s, 'runs list', 'limit').max = 100)),
    );
    expect(narrower.level).toBe('breaking');
    expect(narrower.changed).toEqual([
      expect.objectContaining({ display: 'runs list --limit (flag)', level: 'breaking', was: '1000', now: '100' }),
    ]);
    expect(
      classifyCliSurface(
        BASE,
        edited((s) => (flagOf(s, 'runs list', 'limit').min = 5)),
      ).level,
    ).toBe('breaking');
    expect(
      classifyCliSurface(
        BASE,
        edited((s) => Object.assign(flagOf(s, 'runs show', 'db'), { min: 0 })),
      ).level,
    ).toBe('breaking');
    const wider = classifyCliSurface(
      BASE,
      edited((s) => Object.assign(flagOf(s, 'runs list', 'limit'), { min: 0, max: 5000 })),
    );
    expect(wider.level).toBe('additive');
    expect(wider.changed.map((i) => i.reason)).toEqual(['min widens the range', 'max widens the range']);
  });
  it('a new choice is additive', () => {
    const c = classifyCliSurface(
      BASE,
      edited((s) => flagOf(s, 'servers', 'window').choices!.push('30d')),
    );
    expect(c).toMatchObject({ level: 'additive', removed: [], changed: [] });
    expect(c.added).toEqual([expect.objectContaining({ display: 'servers --window (flag) value 30d', now: '30d' })]);
  });
  it('a changed, new or removed default is breaking', () => {
    const changed = classifyCliSurface(
      BASE,
      edited((s) => (flagOf(s, 'servers', 'window').default = '7d')),
    );
    expect(changed.level).toBe('breaking');
    expect(changed.changed).toEqual([
      expect.objectContaining({
        display: 'servers --window (flag)',
        was: 'all',
        now: '7d',
        reason: expect.stringMatching(/changed default/),
      }),
    ]);
    expect(
      classifyCliSurface(
        BASE,
        edited((s) => delete flagOf(s, 'serve', 'port').default),
      ).level,
    ).toBe('breaking');
    expect(
      classifyCliSurface(
        BASE,
        edited((s) => (flagOf(s, 'runs list', 'has').default = 'failed')),
      ).level,
    ).toBe('breaking');
  });
  it('the committed report freezes the values: --has, --window, --status choices, the --limit range and the defaults', () => {
    const s = JSON.parse(BASE) as Surface;
    expect(flagOf(s, 'runs list', 'has')).toMatchObject({ choices: ['cancelled', 'failed', 'ok'] });
    expect(flagOf(s, 'servers', 'window')).toMatchObject({ choices: ['24h', '7d', 'all'], default: 'all' });
    expect(flagOf(s, 'runs list', 'status').choices).toEqual(['cancelled', 'completed', 'failed', 'interrupted', 'running']);
    expect(flagOf(s, 'runs list', 'limit')).toMatchObject({ min: 1, max: 1000, default: '20' });
    expect([
      flagOf(s, 'serve', 'db').default,
      flagOf(s, 'serve', 'port').default,
      flagOf(s, 'serve', 'host').default,
      flagOf(s, 'runs recover', 'stale-after').default,
    ]).toEqual(['runledger.db', '4310', '127.0.0.1', '10m']);
  });
});

describe('classifyCliSurface: exit code ids', () => {
  it('swapped meanings (1 and 2 trading ids) are breaking', () => {
    const c = classifyCliSurface(
      BASE,
      edited((s) => {
        const [one, two] = [s.exitCodes.find((x) => x.code === 1)!, s.exitCodes.find((x) => x.code === 2)!];
        [one.id, two.id, one.meaning, two.meaning] = [two.id, one.id, two.meaning, one.meaning];
      }),
    );
    expect(c.level).toBe('breaking');
    expect(c.changed).toEqual([
      expect.objectContaining({ display: 'exit code 1', level: 'breaking', was: 'FAILED', now: 'USAGE' }),
      expect.objectContaining({ display: 'exit code 2', level: 'breaking', was: 'USAGE', now: 'FAILED' }),
    ]);
  });
  it('an id given where an older report had none is identical, and listed', () => {
    const older = edited((s) => s.exitCodes.forEach((x) => delete (x as Partial<typeof x>).id));
    const c = classifyCliSurface(older, BASE);
    expect(c.level).toBe('identical');
    expect(c.changed.map((i) => [i.display, i.now])).toEqual([
      ['exit code 0', 'OK'],
      ['exit code 1', 'FAILED'],
      ['exit code 2', 'USAGE'],
    ]);
  });
  it('a reworded meaning with the same id is identical, and listed', () => {
    const c = classifyCliSurface(
      BASE,
      edited((s) => (s.exitCodes[1]!.meaning = 'it did not work')),
    );
    expect(c.level).toBe('identical');
    expect(c.changed).toEqual([expect.objectContaining({ display: 'exit code 1', level: 'identical', reason: 'meaning reworded' })]);
  });
});

describe('classifyCliSurface: additive', () => {
  it('a new JSON output property', () => {
    const c = classifyCliSurface(
      BASE,
      edited((s) => (runsListRun(s).properties.labels = { type: 'array', items: { type: 'string' } })),
    );
    expect(c.level).toBe('additive');
    expect(c.added).toEqual([
      expect.objectContaining({ display: 'runs list --json runs[].labels (JSON output property)', level: 'additive' }),
    ]);
    expect(c.removed).toEqual([]);
    expect(c.changed).toEqual([]);
  });
  it('a new optional flag, a new command, a new exit code', () => {
    expect(
      classifyCliSurface(
        BASE,
        edited((s) => command(s, 'runs list').flags.push({ name: 'label', value: '<text>', required: false })),
      ).level,
    ).toBe('additive');
    const cmd = classifyCliSurface(
      BASE,
      edited((s) =>
        s.commands.push({ name: 'runs archive', aliases: [], arguments: [{ name: 'id', required: true }], flags: [], jsonOutput: null }),
      ),
    );
    expect(cmd.level).toBe('additive');
    expect(cmd.added.map((i) => i.display)).toEqual(['runs archive (command)']);
    expect(
      classifyCliSurface(
        BASE,
        edited((s) => s.exitCodes.push({ code: 3, id: 'PARTIAL', meaning: 'partly done' })),
      ).added.map((i) => i.display),
    ).toEqual(['exit code 3']);
  });
  it('a required flag that became optional, a --json output on a command that had none', () => {
    expect(
      classifyCliSurface(
        BASE,
        edited((s) => (command(s, 'copy').flags.find((f) => f.name === 'db')!.required = false)),
      ).level,
    ).toBe('additive');
    expect(
      classifyCliSurface(
        BASE,
        edited((s) => (command(s, 'migrate').jsonOutput = { type: 'object', properties: {} })),
      ).level,
    ).toBe('additive');
  });
});

describe('classifyCliSurface: identical', () => {
  it('the same surface, reworded meanings and descriptions, renamed placeholders, another key order', () => {
    expect(classifyCliSurface(BASE, BASE)).toMatchObject({ level: 'identical', removed: [], changed: [], added: [] });
    const words = classifyCliSurface(
      BASE,
      edited((s) => {
        s.exitCodes[0]!.meaning = 'all went well';
        runsListRun(s).properties.createdAt.description = 'ms since 1970';
        command(s, 'serve').flags.find((f) => f.name === 'port')!.value = '<port>';
      }),
    );
    expect(words.level).toBe('identical');
    expect(words.changed.map((i) => i.display)).toEqual(['exit code 0', 'serve --port (flag)']);
    const reverseKeys = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(reverseKeys)
        : v !== null && typeof v === 'object'
          ? Object.fromEntries(
              Object.entries(v)
                .reverse()
                .map(([k, x]) => [k, reverseKeys(x)]),
            )
          : v;
    const reordered = JSON.stringify(reverseKeys(JSON.parse(BASE)));
    expect(reordered).not.toBe(JSON.stringify(JSON.parse(BASE)));
    expect(classifyCliSurface(BASE, reordered)).toMatchObject({ level: 'identical', changed: [] });
  });
  it('an initial surface lists every command as added', () => {
    const c = classifyCliSurface(undefined, BASE);
    expect(c.initial).toBe(true);
    expect(c.added.map((i) => i.display)).toContain('runs list (command)');
  });
});
