import { describe, expect, it } from 'vitest';
import { ToolArtifact, ToolResult, WriteTarget } from './index.js';
import { seededRandom as random } from './seededRandom.js';

const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');
/** The text with lone surrogates replaced, as UTF-8 encoding does. */
const wellFormedOf = (text: string): string => Buffer.from(text, 'utf8').toString('utf8');
const isWellFormed = (text: string): boolean => wellFormedOf(text) === text;
const MARKER = /\n\[truncated: (\d+) bytes, limit (\d+)\]$/;

// 1-, 2-, 3- and 4-byte characters, controls, and lone surrogates (which are not characters).
const POOL = ['a', 'Z', ' ', '\n', '\u0000', 'é', 'ß', 'Ω', '€', '中', '\u2028', '\uFFFD', '😀', '𝄞', '👩‍👩‍👧', '\uD83D', '\uDE00'];

function randomText(next: () => number, maxUnits: number): string {
  const length = Math.floor(next() * maxUnits);
  let text = '';
  while (text.length < length) {
    text += POOL[Math.floor(next() * POOL.length)];
  }
  return text;
}

/** Splits a truncated content into the kept head and the marker. */
function splitMarker(content: string): { head: string; marker: string } {
  const match = MARKER.exec(content);
  if (match) {
    return { head: content.slice(0, match.index), marker: match[0] };
  }
  if (content.endsWith('…')) {
    return { head: content.slice(0, -1), marker: '…' };
  }
  return { head: content, marker: '' };
}

const bound = (content: string, contentBytes: number) => ToolResult.text(content).withBoundedChannels({ contentBytes }).content;

describe('withBoundedChannels keeps what it must', () => {
  const target = WriteTarget.changed('page', 'P-9');
  const results = [
    ToolResult.text('x'.repeat(100), ToolArtifact.text('note', 'n')),
    ToolResult.written('x'.repeat(100), target, ToolArtifact.table('rows', [{ a: 1 }])),
    ToolResult.error('x'.repeat(100)),
    ToolResult.cancelled('x'.repeat(100)),
  ];

  it.each(results.map((result) => [result.outcome, result] as const))(
    'keeps outcome "%s" and the write target, within every bound',
    (_, result) => {
      for (const contentBytes of [1, 2, 3, 10, 99, 100, 101, 50_000]) {
        for (const artifactBytes of [1, 10, 100, 50_000]) {
          const bounded = result.withBoundedChannels({ contentBytes, artifactBytes });
          // Immutable: a result already within the bounds is its own bounded result; else a new one.
          const fits =
            bytes(result.content) <= contentBytes &&
            (result.artifacts.length === 0 || bytes(JSON.stringify(result.artifacts)) <= artifactBytes);
          if (fits) expect(bounded).toBe(result);
          else expect(bounded).not.toBe(result);
          expect(ToolResult.is(bounded)).toBe(true);
          expect(bounded.outcome).toBe(result.outcome);
          expect(bounded.isError).toBe(result.isError);
          expect(bounded.writeTarget).toBe(result.writeTarget);
          expect(bytes(bounded.content)).toBeLessThanOrEqual(contentBytes);
        }
      }
      expect(results[1]?.withBoundedChannels().writeTarget).toBe(target);
    },
  );

  it('leaves the original result untouched', () => {
    const original = ToolResult.text('y'.repeat(200), ToolArtifact.text('big', 'z'.repeat(500)));
    const bounded = original.withBoundedChannels({ contentBytes: 50, artifactBytes: 100 });
    expect(original.content).toBe('y'.repeat(200));
    expect(original.artifacts[0]?.data).toBe('z'.repeat(500));
    expect(bounded.content).not.toBe(original.content);
  });

  it('returns the result itself only when nothing is cut, well-formed or replaced', () => {
    const within = ToolResult.text('hello', ToolArtifact.table('rows', [{ a: 1 }]));
    expect(within.withBoundedChannels()).toBe(within);
    expect(within.withBoundedChannels().withBoundedChannels()).toBe(within);
    const lone = ToolResult.text('a\uD800b');
    expect(lone.withBoundedChannels()).not.toBe(lone);
    expect(lone.withBoundedChannels().content).toBe('a\uFFFDb');
    const artifactsOver = ToolResult.text('short', ToolArtifact.text('big', 'z'.repeat(200)));
    const replaced = artifactsOver.withBoundedChannels({ artifactBytes: 100 });
    expect(replaced).not.toBe(artifactsOver);
    expect(replaced.content).toBe('short');
    expect(replaced.artifacts[0]?.label).toBe('Artifacts omitted');
    const contentOver = ToolResult.text('y'.repeat(200));
    expect(contentOver.withBoundedChannels({ contentBytes: 100 })).not.toBe(contentOver);
  });

  it('is idempotent', () => {
    const next = random(7);
    for (let i = 0; i < 200; i++) {
      const limit = 1 + Math.floor(next() * 300);
      const once = ToolResult.text(randomText(next, 400)).withBoundedChannels({ contentBytes: limit });
      expect(once.withBoundedChannels({ contentBytes: limit }).content).toBe(once.content);
    }
  });

  it('uses 50 000 bytes for content when no bound is given', () => {
    expect(ToolResult.text('a'.repeat(50_000)).withBoundedChannels().content).toBe('a'.repeat(50_000));
    const cut = ToolResult.text('a'.repeat(50_001)).withBoundedChannels().content;
    expect(bytes(cut)).toBeLessThanOrEqual(50_000);
    expect(cut).toMatch(/\[truncated: 50001 bytes, limit 50000\]$/);
    expect(ToolResult.text('a'.repeat(50_001)).withBoundedChannels({ artifactBytes: 10 }).content).toBe(cut);
  });
});

describe('withBoundedChannels bounds the content inclusively, on character boundaries', () => {
  it.each([1, 2, 3, 4, 5, 39, 40, 41, 64, 100, 1000, 50_000])(
    'limit %i: limit−1 and limit bytes pass unchanged, limit+1 is cut',
    (limit) => {
      expect(bound('a'.repeat(limit - 1), limit)).toBe('a'.repeat(limit - 1));
      expect(bound('a'.repeat(limit), limit)).toBe('a'.repeat(limit));
      const cut = bound('a'.repeat(limit + 1), limit);
      expect(cut).not.toBe('a'.repeat(limit + 1));
      expect(bytes(cut)).toBeLessThanOrEqual(limit);
      expect('a'.repeat(limit + 1).startsWith(splitMarker(cut).head)).toBe(true);
    },
  );

  it('multibyte content of exactly the limit passes unchanged (2-, 3- and 4-byte characters)', () => {
    expect(bound('é'.repeat(500), 1000)).toBe('é'.repeat(500));
    expect(bound('€'.repeat(400), 1200)).toBe('€'.repeat(400));
    expect(bound('😀'.repeat(250), 1000)).toBe('😀'.repeat(250));
    expect(bound(`a${'😀'.repeat(250)}`, 1000)).not.toBe(`a${'😀'.repeat(250)}`);
  });

  it('shows a visible marker with the original size and the limit', () => {
    const cut = bound('a'.repeat(1000), 100);
    expect(cut).toMatch(/^a+\n\[truncated: 1000 bytes, limit 100\]$/);
    expect(bytes(cut)).toBe(100); // the marker is inside the limit, and the rest is used
  });

  it('falls back to a one-character marker when the full one does not fit, and to none below 3 bytes', () => {
    expect(bound('abcdefghij', 5)).toBe('ab…');
    expect(bound('abcdefghij', 3)).toBe('…');
    expect(bound('abcdefghij', 2)).toBe('ab');
    expect(bound('abcdefghij', 1)).toBe('a');
    expect(bound('😀😀', 3)).toBe('…');
    expect(bound('😀😀', 2)).toBe('');
  });

  it.each([
    ['2-byte', 'é'],
    ['3-byte', '€'],
    ['4-byte (emoji, a surrogate pair)', '😀'],
  ])('never splits a %s character across the cut, at any offset', (_, char) => {
    const limit = 80;
    const full = MARKER.source.length; // large enough window around the cut
    for (let pad = 0; pad < full + 10; pad++) {
      const text = 'a'.repeat(pad) + char.repeat(60);
      const cut = bound(text, limit);
      expect(bytes(cut)).toBeLessThanOrEqual(limit);
      expect(isWellFormed(cut)).toBe(true);
      expect(cut).not.toContain('\uFFFD');
      const { head, marker } = splitMarker(cut);
      expect(marker).toMatch(MARKER);
      expect(text.startsWith(head)).toBe(true);
      // As late as possible: one more character would not fit beside the marker.
      expect(bytes(head) + bytes(char)).toBeGreaterThan(limit - bytes(marker));
    }
  });

  it('cuts before an emoji that straddles the cut', () => {
    const limit = 100;
    const marker = '\n[truncated: 106 bytes, limit 100]';
    const budget = limit - bytes(marker);
    const text = `${'a'.repeat(budget - 2)}😀${'b'.repeat(106 - budget - 2)}`;
    expect(bytes(text)).toBe(106);
    expect(bound(text, limit)).toBe(`${'a'.repeat(budget - 2)}${marker}`);
    // With one byte less before it, the emoji starts 3 bytes before the cut: still cut before it.
    const text2 = `${'a'.repeat(budget - 3)}😀${'b'.repeat(106 - budget - 1)}`;
    expect(bound(text2, limit)).toBe(`${'a'.repeat(budget - 3)}${marker}`);
    // With the emoji ending exactly at the cut, it is kept.
    const text3 = `${'a'.repeat(budget - 4)}😀${'b'.repeat(106 - budget)}`;
    expect(bound(text3, limit)).toBe(`${'a'.repeat(budget - 4)}😀${marker}`);
  });

  it('replaces lone surrogates with U+FFFD and keeps valid pairs', () => {
    expect(bound('a\uD800b', 100)).toBe('a\uFFFDb');
    expect(bound('\uDC00', 100)).toBe('\uFFFD');
    expect(bound('x\uDE00\uD83D', 100)).toBe('x\uFFFD\uFFFD');
    expect(bound('\uD83D\uDE00', 100)).toBe('😀');
    expect(bound('\uDE00\uD83D', 100)).toBe('\uFFFD\uFFFD');
    const result = ToolResult.error('broken \uD800 text').withBoundedChannels();
    expect(result.content).toBe('broken \uFFFD text');
    expect(result.outcome).toBe('failed');
  });

  it('a lone high surrogate at the cut does not leak a replacement character into the kept head', () => {
    for (let pad = 0; pad < 60; pad++) {
      const text = `${'a'.repeat(pad)}\uD83D${'a'.repeat(200)}`;
      const cut = bound(text, 80);
      expect(isWellFormed(cut)).toBe(true);
      expect(bytes(cut)).toBeLessThanOrEqual(80);
    }
  });

  it('property: any text under any limit is well-formed, within the limit, a prefix, and unchanged when it fits', () => {
    const next = random(20_240_601);
    for (let i = 0; i < 3000; i++) {
      const text = randomText(next, 300);
      const limit = 1 + Math.floor(next() * (i % 3 === 0 ? 40 : 500));
      const cut = bound(text, limit);
      const wellFormed = wellFormedOf(text);
      expect(isWellFormed(cut)).toBe(true);
      expect(bytes(cut)).toBeLessThanOrEqual(limit);
      if (bytes(wellFormed) <= limit) {
        expect(cut).toBe(wellFormed);
      } else {
        const { head, marker } = splitMarker(cut);
        expect(wellFormed.startsWith(head)).toBe(true);
        if (limit >= 3) expect(marker).not.toBe('');
        // Maximal cut: the next character would not have fitted.
        const nextChar = String.fromCodePoint(wellFormed.codePointAt(head.length) as number);
        expect(bytes(head) + bytes(nextChar)).toBeGreaterThan(limit - bytes(marker));
      }
    }
  });

  it('bounds 10 MB of content (ASCII and multibyte) to the limit', () => {
    const ascii = 'abcdefghij'.repeat(1024 * 1024);
    expect(bytes(ascii)).toBe(10 * 1024 * 1024);
    const cutAscii = ToolResult.text(ascii).withBoundedChannels().content;
    expect(bytes(cutAscii)).toBeLessThanOrEqual(50_000);
    expect(cutAscii).toMatch(/\[truncated: 10485760 bytes, limit 50000\]$/);
    expect(ascii.startsWith(splitMarker(cutAscii).head)).toBe(true);

    const multi = 'ü€😀'.repeat(1024 * 1024); // 9 bytes per repetition: ~9.4 MB, 4 Mi UTF-16 units
    const cutMulti = ToolResult.error(multi).withBoundedChannels({ contentBytes: 1_000_001 }).content;
    expect(bytes(cutMulti)).toBeLessThanOrEqual(1_000_001);
    expect(isWellFormed(cutMulti)).toBe(true);
    expect(multi.startsWith(splitMarker(cutMulti).head)).toBe(true);

    // Under a huge limit the 10 MB pass whole.
    expect(ToolResult.text(ascii).withBoundedChannels({ contentBytes: 20_000_000 }).content).toBe(ascii);
  });
});

describe('withBoundedChannels bounds the artifacts', () => {
  const jsonBytes = (artifacts: readonly ToolArtifact[]) => bytes(JSON.stringify(artifacts));

  function expectOmitted(result: ToolResult, limit: number, reason: RegExp): void {
    expect(result.artifacts).toHaveLength(1);
    const [notice] = result.artifacts;
    expect(notice?.type).toBe('text');
    expect(notice?.label).toBe('Artifacts omitted');
    expect(notice?.data).toMatch(/^Artifacts omitted: /);
    expect(notice?.data).toMatch(reason);
    expect(jsonBytes(result.artifacts)).toBeLessThanOrEqual(limit);
  }

  it('passes artifacts whose JSON is exactly the limit, and omits them at one byte less', () => {
    const artifacts = [
      ToolArtifact.table('rows', [
        { id: 1, name: 'één' },
        { id: 2, name: '😀' },
      ]),
      ToolArtifact.text('note', 'ünïcödé'),
    ];
    const exact = jsonBytes(artifacts);
    const result = ToolResult.text('x', ...artifacts);
    const kept = result.withBoundedChannels({ artifactBytes: exact });
    expect(kept.artifacts).toHaveLength(2);
    expect(kept.artifacts[0]).toBe(artifacts[0]);
    expect(kept.artifacts[1]).toBe(artifacts[1]);
    expect(result.withBoundedChannels({ artifactBytes: exact + 1 }).artifacts).toEqual(artifacts);
    expectOmitted(
      result.withBoundedChannels({ artifactBytes: exact - 1 }),
      exact - 1,
      new RegExp(`2 artifacts take ${exact} bytes as JSON, over the limit of ${exact - 1} bytes`),
    );
  });

  it('replaces large artifacts whole by one "Artifacts omitted" text artifact, keeping the written target', () => {
    const rows = Array.from({ length: 5000 }, (_, id) => ({ id, name: `row ${id}`, note: 'x'.repeat(20) }));
    const target = WriteTarget.created('ticket', '7');
    const result = ToolResult.written('wrote', target, ToolArtifact.table('rows', rows), ToolArtifact.text('small', 'ok'));
    const bounded = result.withBoundedChannels();
    expectOmitted(bounded, 50_000, /2 artifacts take more than 50000 bytes as JSON, over the limit of 50000 bytes/);
    expect(bounded.writeTarget).toBe(target);
    expect(bounded.outcome).toBe('ok');
    expect(bounded.content).toBe('wrote');
  });

  it('a single 10 MB artifact is omitted', () => {
    const big = ToolArtifact.text('dump', 'y'.repeat(10 * 1024 * 1024));
    expectOmitted(ToolResult.text('x', big).withBoundedChannels(), 50_000, /1 artifact takes more than 50000 bytes/);
  });

  it.each([
    [
      'a cycle',
      () => {
        const row: Record<string, unknown> = { id: 1 };
        row.self = row;
        return [row];
      },
      /cycle at \$\.data\[0\]\.self/,
    ],
    [
      'a cycle through an array',
      () => {
        const list: unknown[] = [];
        list.push({ list });
        return [{ list }];
      },
      /cycle at \$\.data\[0\]\.list\[0\]\.list/,
    ],
    ['a BigInt', () => [{ id: 10n }], /BigInt at \$\.data\[0\]\.id/],
    ['NaN', () => [{ ratio: Number.NaN }], /non-finite number NaN at \$\.data\[0\]\.ratio/],
    ['Infinity', () => [{ ratio: Number.POSITIVE_INFINITY }], /non-finite number Infinity/],
    ['-Infinity', () => [[1, Number.NEGATIVE_INFINITY]], /non-finite number -Infinity at \$\.data\[0\]\[1\]/],
    ['nesting deeper than 64 levels', () => [nest(64)], /nesting deeper than 64/],
    [
      'a throwing getter',
      () => [
        {
          get boom(): never {
            throw new Error('getter exploded');
          },
        },
      ],
      /an error was thrown: getter exploded/,
    ],
    [
      'a throwing toJSON',
      () => [
        {
          toJSON(): never {
            throw new Error('toJSON exploded');
          },
        },
      ],
      /toJSON exploded/,
    ],
  ])('omits artifacts that cannot be encoded: %s', (_, rows, reason) => {
    const result = ToolResult.text(
      'x',
      ToolArtifact.text('fine', 'ok'),
      ToolArtifact.table('bad "rows"', rows() as Record<string, unknown>[]),
    );
    const bounded = result.withBoundedChannels();
    expectOmitted(bounded, 50_000, reason);
    expect(bounded.artifacts[0]?.data).toMatch(/artifact 2 \("bad "rows""\) cannot be encoded/);
    // Also when the limit is huge: it is about encoding, not size.
    expectOmitted(result.withBoundedChannels({ artifactBytes: 100_000_000 }), 100_000_000, reason);
  });

  it('64 levels of nesting are accepted, 65 are not', () => {
    // data = [row], row nests arrays: the table array itself is level 1.
    const ok = ToolResult.text('x', ToolArtifact.of('table', 'deep', [nest(62)])).withBoundedChannels();
    expect(ok.artifacts[0]?.label).toBe('deep');
    const deep = ToolResult.text('x', ToolArtifact.of('table', 'deep', [nest(63)])).withBoundedChannels();
    expect(deep.artifacts[0]?.label).toBe('Artifacts omitted');
  });

  it('a shared (non-cyclic) reference is not a cycle', () => {
    const shared = { city: 'Köln' };
    const rows = [{ a: shared, b: shared }, { c: shared }];
    const result = ToolResult.text('x', ToolArtifact.table('shared', rows)).withBoundedChannels();
    expect(result.artifacts[0]?.label).toBe('shared');
    expect(JSON.stringify(result.artifacts)).toBe(JSON.stringify([ToolArtifact.table('shared', rows)]));
  });

  it('a small graph of shared references that expands to a huge tree is omitted quickly, not walked', () => {
    let node: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < 60; i++) node = { left: node, right: node }; // 2^60 leaves as JSON
    const started = Date.now();
    const bounded = ToolResult.text('x', ToolArtifact.table('dag', [node])).withBoundedChannels();
    expectOmitted(bounded, 50_000, /over the limit of 50000 bytes/);
    expect(Date.now() - started).toBeLessThan(5000); // a hang guard, not a benchmark
  });

  it('the "Artifacts omitted" notice fits the limit, whatever the label and the limit (from 56 bytes, the smallest notice)', () => {
    const row: Record<string, unknown> = {};
    row.self = row;
    const label = '"quotes" \\ back\u0001slash\n'.repeat(10);
    // 56 bytes is the smallest notice there is: [{"type":"text","label":"Artifacts omitted","data":"A"}].
    for (let limit = 1; limit <= 400; limit++) {
      const result = ToolResult.text('x', ToolArtifact.table(label, [row])).withBoundedChannels({ artifactBytes: limit });
      expect(result.artifacts).toHaveLength(1);
      expect(result.artifacts[0]?.label).toBe('Artifacts omitted');
      expect(jsonBytes(result.artifacts)).toBeLessThanOrEqual(Math.max(limit, 56));
    }
    const roomy = ToolResult.text('x', ToolArtifact.table(label, [row])).withBoundedChannels({ artifactBytes: 400 });
    expect(roomy.artifacts[0]?.data).toMatch(/^Artifacts omitted: artifact 1 \(".*cannot be encoded: cycle at \$\.data\[0\]\.self\.$/s);
  });

  it('results without artifacts stay without artifacts', () => {
    expect(ToolResult.text('x').withBoundedChannels({ artifactBytes: 1 }).artifacts).toEqual([]);
  });

  it('drops nothing JSON keeps: values JSON.stringify accepts pass, encoded the same way', () => {
    const rows = [
      { when: new Date(0), none: undefined, fn: () => 1, list: [undefined, () => 1, Symbol('s')], nested: { n: -0, e: 1e21 } },
      { boxed: [Object(1), Object('s'), Object(false)], custom: { toJSON: (key: string) => `key:${key}` } },
    ];
    const artifact = ToolArtifact.table('mixed', rows);
    const result = ToolResult.text('x', artifact).withBoundedChannels();
    expect(result.artifacts[0]).toBe(artifact);
  });
});

describe('withBoundedChannels refuses invalid bounds, naming the field', () => {
  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, '100', null])('contentBytes %s', (value) => {
    const call = () => ToolResult.text('x').withBoundedChannels({ contentBytes: value as number });
    if (value === null) {
      // null is treated like a missing field (the default applies).
      expect(call().content).toBe('x');
      return;
    }
    expect(call).toThrow(RangeError);
    expect(call).toThrow(/ChannelBounds\.contentBytes must be a positive integer/);
  });

  it.each([0, -5, 0.5, Number.NaN, '1'])('artifactBytes %s', (value) => {
    const call = () => ToolResult.error('x').withBoundedChannels({ artifactBytes: value as number });
    expect(call).toThrow(RangeError);
    expect(call).toThrow(/ChannelBounds\.artifactBytes must be a positive integer/);
  });

  it('accepts 1 and the largest safe integer', () => {
    expect(ToolResult.text('ab').withBoundedChannels({ contentBytes: 1, artifactBytes: 1 }).content).toBe('a');
    expect(ToolResult.text('ab').withBoundedChannels({ contentBytes: Number.MAX_SAFE_INTEGER }).content).toBe('ab');
  });
});

/** An array nested `levels` times inside another array: nest(0) is `[]`. */
function nest(levels: number): unknown[] {
  let value: unknown[] = [];
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}
