import { describe, expect, it } from 'vitest';
import { checkArtifacts, encodeArtifacts } from './encodeArtifacts.js';
import { ToolArtifact } from './index.js';
import { seededRandom as random } from './seededRandom.js';

const LEAVES: ReadonlyArray<() => unknown> = [
  () => 'text',
  () => 'ünï "quoted" \\ \n\u0000 😀 \uD800',
  () => '',
  () => 0,
  () => -0,
  () => 3.25,
  () => 1e300,
  () => -42,
  () => true,
  () => false,
  () => null,
  () => undefined,
  () => () => 1,
  () => Symbol('s'),
  () => new Date(86_400_000),
  () => Object(7),
  () => Object('boxed'),
  () => ({ toJSON: (key: string) => ({ key }) }),
  () => ({ toJSON: () => undefined }),
];

/** A random JSON-ish value that JSON.stringify accepts (no cycles, no BigInt, finite numbers, shallow). */
function randomValue(next: () => number, depth: number): unknown {
  const pick = next();
  if (depth > 5 || pick < 0.5) {
    return (LEAVES[Math.floor(next() * LEAVES.length)] as () => unknown)();
  }
  if (pick < 0.75) {
    const list: unknown[] = Array.from({ length: Math.floor(next() * 5) }, () => randomValue(next, depth + 1));
    if (next() < 0.1) list.length += 2; // holes
    return list;
  }
  const record: Record<string, unknown> = {};
  for (let i = Math.floor(next() * 5); i > 0; i--) {
    record[next() < 0.2 ? `k"${i}\u00e9` : `k${i}`] = randomValue(next, depth + 1);
  }
  return record;
}

describe('encodeArtifacts', () => {
  it('produces exactly the JSON that JSON.stringify produces, and accepts exactly its size, for many random values', () => {
    const next = random(424_242);
    for (let i = 0; i < 2000; i++) {
      const artifacts = Array.from({ length: 1 + Math.floor(next() * 3) }, (_, n) =>
        next() < 0.3
          ? ToolArtifact.text(`t${n}`, 'text ✓')
          : ToolArtifact.table(`rows ${n}`, [randomValue(next, 0) as Record<string, unknown>]),
      );
      const expected = JSON.stringify(artifacts);
      const size = Buffer.byteLength(expected, 'utf8');
      expect(encodeArtifacts(artifacts, 10_000_000)).toEqual({ ok: true, json: expected, bytes: size });
      // The early size check never overestimates: exactly the size passes, one byte less does not.
      expect(encodeArtifacts(artifacts, size)).toEqual({ ok: true, json: expected, bytes: size });
      expect(encodeArtifacts(artifacts, size - 1).ok).toBe(false);
    }
  });

  it('omits a data field whose toJSON returns undefined, as JSON.stringify does', () => {
    const artifact = ToolArtifact.table('rows', [{ a: { toJSON: () => undefined }, b: 1 }]);
    const encoding = encodeArtifacts([artifact], 1000);
    expect(encoding.ok && encoding.json).toBe(JSON.stringify([artifact]));
  });

  it('stops at the limit: the exact limit passes, one byte less does not', () => {
    const artifacts = [ToolArtifact.text('note', 'é'.repeat(100))];
    const size = Buffer.byteLength(JSON.stringify(artifacts), 'utf8');
    expect(encodeArtifacts(artifacts, size)).toMatchObject({ ok: true, bytes: size });
    // The UTF-16 length is below the byte size here, so this is decided after encoding, with the exact size.
    expect(encodeArtifacts(artifacts, size - 1)).toEqual({
      ok: false,
      reason: `1 artifact takes ${size} bytes as JSON, over the limit of ${size - 1} bytes`,
    });
    expect(encodeArtifacts([ToolArtifact.text('a', 'x'.repeat(1000))], 100)).toEqual({
      ok: false,
      reason: '1 artifact takes more than 100 bytes as JSON, over the limit of 100 bytes',
    });
  });

  it('names the artifact and the path of what cannot be encoded', () => {
    const row: Record<string, unknown> = { a: [1, { b: 2n }] };
    const encoding = encodeArtifacts([ToolArtifact.text('ok', 'x'), ToolArtifact.table('numbers', [row])], 1000);
    expect(encoding).toEqual({ ok: false, reason: 'artifact 2 ("numbers") cannot be encoded: BigInt at $.data[0].a[1].b' });
  });

  it('clips a long label in the reason to 60 characters', () => {
    const label = '😀'.repeat(100);
    const encoding = encodeArtifacts([ToolArtifact.table(label, [{ n: Number.NaN }])], 1000);
    expect(encoding.ok).toBe(false);
    if (!encoding.ok) {
      expect(encoding.reason).toContain(`("${'😀'.repeat(60)}…")`);
    }
  });
});

describe('checkArtifacts', () => {
  it('gives the same verdict and reason as encodeArtifacts, at the exact size, one byte below and far above, for many random values', () => {
    const next = random(737_373);
    for (let i = 0; i < 2000; i++) {
      const artifacts = Array.from({ length: 1 + Math.floor(next() * 3) }, (_, n) =>
        next() < 0.3
          ? ToolArtifact.text(`t${n}`, 'text ✓ \u0001 "q"')
          : ToolArtifact.table(`rows ${n}`, [randomValue(next, 0) as Record<string, unknown>]),
      );
      const size = Buffer.byteLength(JSON.stringify(artifacts), 'utf8');
      for (const limit of [size, size - 1, Math.max(1, Math.floor(size / 2)), size * 10]) {
        const encoded = encodeArtifacts(artifacts, limit);
        const checked = checkArtifacts(artifacts, limit);
        expect(checked.ok).toBe(encoded.ok);
        if (!encoded.ok && !checked.ok) expect(checked.reason).toBe(encoded.reason);
      }
    }
  });

  it('refuses what cannot be encoded with the same reason, also when the limit is huge', () => {
    const cycle: Record<string, unknown> = {};
    cycle['self'] = cycle;
    for (const data of [[cycle], [{ n: Number.NaN }], [{ b: 1n }]]) {
      const artifacts = [ToolArtifact.table('bad', data as Record<string, unknown>[])];
      const checked = checkArtifacts(artifacts, 10_000_000);
      expect(checked.ok).toBe(false);
      expect(checked).toEqual({ ok: false, reason: (encodeArtifacts(artifacts, 10_000_000) as { reason: string }).reason });
    }
  });
});
