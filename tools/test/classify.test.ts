import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { classifyReports } from '../src/lib/classifier/classify.ts';
import { formatClassification } from '../src/lib/classifier/formatClassification.ts';
import { TOOLS } from './helpers.js';

const dir = path.join(TOOLS, 'test', 'fixtures', 'reports');
function classify(name: string) {
  const read = (f: string) => readFileSync(path.join(dir, name, f), 'utf8');
  return classifyReports(read('before.api.md'), read('after.api.md'), { resolveDir: TOOLS });
}

describe('classify: breaking', () => {
  it('a removed method', () => {
    const c = classify('removed-method');
    expect(c.level).toBe('breaking');
    expect(c.removed.map((i) => i.display)).toEqual(['RunTrace.recordToolExecution (method)']);
    expect(c.changed).toEqual([]);
  });
  it('a required parameter added', () => {
    const c = classify('required-param');
    expect(c.level).toBe('breaking');
    expect(c.changed[0]).toMatchObject({
      display: 'startRun (function)',
      level: 'breaking',
      was: 'export function startRun(name: string): string;',
      now: 'export function startRun(name: string, owner: string): string;',
    });
  });
  it('a parameter narrowed (on a method, despite method bivariance)', () => {
    expect(classify('param-narrowed').changed[0]).toMatchObject({
      display: 'Store.find (method)',
      level: 'breaking',
      reason: 'parameters no longer accept the old arguments',
    });
  });
  it('a return type narrowed', () => {
    expect(classify('return-narrowed').changed[0]).toMatchObject({ level: 'breaking', reason: 'return type changed (narrowed)' });
  });
  it('a changed property type', () => {
    expect(classify('property-type')).toMatchObject({
      level: 'breaking',
      changed: [expect.objectContaining({ display: 'StoredRun.createdAt (property)' })],
    });
  });
  it('a const value removed (and the union derived from it narrowed)', () => {
    const c = classify('const-value-removed');
    expect(c.level).toBe('breaking');
    expect(c.removed.map((i) => i.display)).toEqual(['ToolOutcome.CANCELLED (property)']);
    expect(c.changed[0]).toMatchObject({ display: 'ToolOutcome (type)', was: '"ok" | "failed" | "cancelled"', now: '"ok" | "failed"' });
  });
  it('a union widened where users receive it', () => {
    expect(classify('union-widened-output').level).toBe('breaking');
  });
  it('a class made abstract', () => {
    expect(classify('class-made-abstract').changed[0]).toMatchObject({
      display: 'Recorder (class)',
      level: 'breaking',
      reason: 'class made abstract',
    });
  });
  it('a required member on an interface users implement', () => {
    const c = classify('member-on-implemented-interface');
    expect(c.level).toBe('breaking');
    expect(c.added[0]).toMatchObject({ display: 'RunStore.requestCancel (method)', level: 'breaking' });
  });
});

describe('classify: additive', () => {
  it('an optional parameter added', () => {
    const c = classify('optional-param');
    expect(c.level).toBe('additive');
    expect(c.changed[0]).toMatchObject({ display: 'startRun (function)', level: 'additive' });
  });
  it('a new export', () => {
    expect(classify('new-export')).toMatchObject({ level: 'additive', added: [expect.objectContaining({ display: 'b (function)' })] });
  });
  it('a new optional member on a type users only receive', () => {
    expect(classify('optional-member-received')).toMatchObject({
      level: 'additive',
      added: [expect.objectContaining({ display: 'RunPage.nextCursor (property)', level: 'additive' })],
    });
  });
  it('a union widened in an input position', () => {
    expect(classify('union-widened-input')).toMatchObject({
      level: 'additive',
      changed: [expect.objectContaining({ display: 'PrivacyLevel (type)', level: 'additive' })],
    });
  });
  it('an optional member on an interface users implement', () => {
    expect(classify('optional-member-on-implemented-interface').level).toBe('additive');
  });
  it('a required member on a @sealed interface', () => {
    expect(classify('member-on-sealed-interface').level).toBe('additive');
  });
});

describe('classify: identical', () => {
  it('a reformatted report (whitespace, line breaks, "(undocumented)")', () => {
    const c = classify('reformatted');
    expect(c).toMatchObject({ level: 'identical', removed: [], changed: [], added: [] });
  });
  it('changes confined to @internal items are listed but do not raise the level', () => {
    const c = classify('internal-only');
    expect(c.level).toBe('identical');
    expect(c.changed[0]).toMatchObject({ display: 'seam (function)', internal: true });
  });
  it('no report at the base is the initial surface', () => {
    const after = readFileSync(path.join(dir, 'new-export', 'after.api.md'), 'utf8');
    expect(classifyReports(undefined, after)).toMatchObject({ initial: true, level: 'additive' });
  });
});

describe('classify: release tags are surface', () => {
  it('@public → @internal (a member and an export) is breaking, naming each and the tag change', () => {
    const c = classify('tag-public-to-internal');
    expect(c.level).toBe('breaking');
    expect(c.removed).toEqual([]);
    expect(c.added).toEqual([]);
    expect(c.changed).toEqual([
      expect.objectContaining({
        display: 'Recorder.flush (method)',
        level: 'breaking',
        internal: false,
        reason: expect.stringMatching(/^release tag changed @public → @internal/),
      }),
      expect.objectContaining({
        display: 'seam (function)',
        level: 'breaking',
        internal: false,
        reason: expect.stringMatching(/^release tag changed @public → @internal/),
      }),
    ]);
    const out = formatClassification('@fx/tags', c);
    expect(out).toContain('~ Recorder.flush (method) — breaking: release tag changed @public → @internal');
    expect(out).toContain('~ seam (function) — breaking: release tag changed @public → @internal');
    expect(out).not.toContain('not semver-covered');
  });
  it('@internal → @public (a member and an export) is additive, naming each and the tag change', () => {
    const c = classify('tag-internal-to-public');
    expect(c.level).toBe('additive');
    expect(c.changed).toEqual([
      expect.objectContaining({
        display: 'Recorder.flush (method)',
        level: 'additive',
        internal: false,
        reason: expect.stringMatching(/^release tag changed @internal → @public/),
      }),
      expect.objectContaining({
        display: 'seam (function)',
        level: 'additive',
        internal: false,
        reason: expect.stringMatching(/^release tag changed @internal → @public/),
      }),
    ]);
  });
  it('a container flipped @public → @internal is one breaking entry (its members are not listed again)', () => {
    const before = readFileSync(path.join(dir, 'tag-public-to-internal', 'before.api.md'), 'utf8');
    const after = before.replace('// @public\nexport class Recorder', '// @internal\nexport class Recorder');
    const c = classifyReports(before, after, { resolveDir: TOOLS });
    expect(c.level).toBe('breaking');
    expect(c.changed.map((i) => i.display)).toEqual(['Recorder (class)']);
    expect(classifyReports(after, before, { resolveDir: TOOLS })).toMatchObject({
      level: 'additive',
      changed: [expect.objectContaining({ display: 'Recorder (class)' })],
    });
  });
  it('a flip and a signature change together: @public → @internal stays breaking, @internal → @public additive', () => {
    const read = (f: string) => readFileSync(path.join(dir, 'tag-public-to-internal', f), 'utf8');
    const after = read('after.api.md').replace('export function seam(x: number): void;', 'export function seam(x: string): void;');
    expect(classifyReports(read('before.api.md'), after, { resolveDir: TOOLS }).level).toBe('breaking');
    const up = classifyReports(after, read('before.api.md'), { resolveDir: TOOLS });
    expect(up.changed.find((i) => i.display === 'seam (function)')).toMatchObject({
      level: 'additive',
      reason: expect.stringMatching(/@internal → @public/),
    });
  });
});

describe('formatClassification', () => {
  it('prints removed / changed (was/now) / added, capped at the limit', () => {
    const c = classify('required-param');
    const out = formatClassification('@fx/x', c, { advice: 'do it' });
    expect(out).toContain('@fx/x: breaking');
    expect(out).toContain('was: export function startRun(name: string): string;');
    expect(out).toContain('now: export function startRun(name: string, owner: string): string;');
    expect(out).toContain('→ do it');
    const many = {
      level: 'additive' as const,
      initial: false,
      removed: [],
      changed: [],
      added: Array.from({ length: 45 }, (_, i) => ({ display: `x${i}`, level: 'additive' as const, internal: false })),
    };
    const text = formatClassification('@fx/x', many);
    expect(text).toContain('+ x39');
    expect(text).not.toContain('+ x40');
    expect(text).toContain('… and 5 more');
  });
});
