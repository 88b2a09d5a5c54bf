import { describe, expect, it } from 'vitest';
import { DEFAULT_CHANNEL_BOUNDS, isToolOutcome, TOOL_OUTCOMES, ToolArtifact, ToolOutcome, ToolResult, WriteTarget } from './index.js';

// Test files are ES modules, so strict mode holds: writing to a frozen object throws.

const table = () => ToolArtifact.table('rows', [{ id: 1, name: 'one' }]);
const note = () => ToolArtifact.text('note', 'run-only text');
const target = () => WriteTarget.created('ticket', 'T-1');

/** Every factory, with what it must produce. */
const FACTORIES: ReadonlyArray<{ name: string; make: () => ToolResult; outcome: ToolOutcome; artifacts: number; target: boolean }> = [
  { name: 'text()', make: () => ToolResult.text('hello'), outcome: 'ok', artifacts: 0, target: false },
  { name: 'text() with artifacts', make: () => ToolResult.text('hello', table(), note()), outcome: 'ok', artifacts: 2, target: false },
  { name: 'written()', make: () => ToolResult.written('saved', target()), outcome: 'ok', artifacts: 0, target: true },
  {
    name: 'written() with artifacts',
    make: () => ToolResult.written('saved', target(), table()),
    outcome: 'ok',
    artifacts: 1,
    target: true,
  },
  { name: 'error()', make: () => ToolResult.error('boom'), outcome: 'failed', artifacts: 0, target: false },
  { name: 'cancelled()', make: () => ToolResult.cancelled('stopped'), outcome: 'cancelled', artifacts: 0, target: false },
];

describe('ToolResult factories', () => {
  it.each(FACTORIES)('$name ends as "$outcome"', ({ make, outcome, artifacts, target: hasTarget }) => {
    const result = make();
    expect(result.outcome).toBe(outcome);
    expect(isToolOutcome(result.outcome)).toBe(true);
    expect(result.artifacts).toHaveLength(artifacts);
    expect(result.writeTarget === null).toBe(!hasTarget);
  });

  it('keeps content, artifacts in order and the write target as given', () => {
    const rows = table();
    const text = note();
    const written = target();
    const result = ToolResult.written('saved T-1', written, rows, text);
    expect(result.content).toBe('saved T-1');
    expect(result.artifacts[0]).toBe(rows);
    expect(result.artifacts[1]).toBe(text);
    expect(result.writeTarget).toBe(written);
    expect(result.writeTarget?.toJSON()).toEqual({ resource: 'ticket', id: 'T-1', kind: 'created' });
  });

  it('covers every outcome: text/written → ok, error → failed, cancelled → cancelled', () => {
    const seen = new Set(FACTORIES.map(({ make }) => make().outcome));
    expect([...seen].sort()).toEqual([...TOOL_OUTCOMES].sort());
  });

  it.each(FACTORIES)('$name: isError === (outcome !== "ok"), also after withBoundedChannels', ({ make }) => {
    const result = make();
    expect(result.isError).toBe(result.outcome !== ToolOutcome.OK);
    const bounded = result.withBoundedChannels({ contentBytes: 3, artifactBytes: 10 });
    expect(bounded.outcome).toBe(result.outcome);
    expect(bounded.isError).toBe(bounded.outcome !== ToolOutcome.OK);
    expect(bounded.isError).toBe(result.isError);
  });

  it('isError is true for failed and for cancelled, false for ok', () => {
    expect(ToolResult.text('x').isError).toBe(false);
    expect(ToolResult.written('x', target()).isError).toBe(false);
    expect(ToolResult.error('x').isError).toBe(true);
    expect(ToolResult.cancelled('x').isError).toBe(true);
  });

  it('isError is derived, not stored: it cannot be set or disagree with the outcome', () => {
    const result = ToolResult.text('x');
    expect(Object.getOwnPropertyNames(result)).not.toContain('isError');
    expect(() => {
      (result as { isError: boolean }).isError = true;
    }).toThrow(TypeError);
    expect(result.isError).toBe(false);
  });

  it('results are immutable', () => {
    const result = ToolResult.text('x', table());
    expect(Object.isFrozen(result)).toBe(true);
    expect(Object.isFrozen(result.artifacts)).toBe(true);
    expect(() => {
      (result as { content: string }).content = 'y';
    }).toThrow(TypeError);
    expect(() => {
      (result as { outcome: string }).outcome = 'failed';
    }).toThrow(TypeError);
    expect(result.content).toBe('x');
    expect(result.outcome).toBe('ok');
  });

  it('the artifacts list is a copy: changing the caller array afterwards changes nothing', () => {
    const list = [table()];
    const result = ToolResult.text('x', ...list);
    list.push(note());
    expect(result.artifacts).toHaveLength(1);
  });

  it('refuses content that is not a string, naming the field', () => {
    for (const make of [
      (c: unknown) => ToolResult.text(c as string),
      (c: unknown) => ToolResult.written(c as string, target()),
      (c: unknown) => ToolResult.error(c as string),
      (c: unknown) => ToolResult.cancelled(c as string),
    ]) {
      for (const bad of [undefined, null, 42, {}, Symbol('x')]) {
        expect(() => make(bad)).toThrow(/ToolResult\.content must be a string/);
      }
    }
  });

  it('written() refuses a target that is not a WriteTarget', () => {
    for (const bad of [null, undefined, 'ticket:1', { resource: 'ticket', id: '1', kind: 'created' }]) {
      expect(() => ToolResult.written('x', bad as unknown as WriteTarget)).toThrow(/ToolResult\.written target must be a WriteTarget/);
    }
  });

  it('text() and written() refuse artifacts that are not ToolArtifacts, naming the index', () => {
    const fake = { type: 'table', label: 'rows', data: [] };
    expect(() => ToolResult.text('x', table(), fake as unknown as ToolArtifact)).toThrow(
      /ToolResult\.artifacts\[1\] must be a ToolArtifact/,
    );
    expect(() => ToolResult.written('x', target(), fake as unknown as ToolArtifact)).toThrow(/ToolResult\.artifacts\[0\]/);
  });

  it('ToolResult.is and instanceof recognise results and nothing else', () => {
    for (const { make } of FACTORIES) {
      const result = make();
      expect(ToolResult.is(result)).toBe(true);
      expect(result instanceof ToolResult).toBe(true);
      expect(ToolResult.is(result.withBoundedChannels())).toBe(true);
    }
    const result = ToolResult.text('x');
    const others = [
      null,
      undefined,
      'ok',
      1,
      {},
      { content: 'x', outcome: 'ok', artifacts: [], writeTarget: null },
      Object.create(ToolResult.prototype),
      Object.freeze(Object.create(ToolResult.prototype)),
      { ...result },
      Object.freeze({ ...result }),
    ];
    for (const other of others) {
      expect(ToolResult.is(other)).toBe(false);
      expect(other instanceof ToolResult).toBe(false);
    }
  });
});

describe('ToolResult is fail-closed: failed and cancelled results never carry artifacts or a write target', () => {
  const closed = [
    { name: 'error', make: () => ToolResult.error('boom') },
    { name: 'cancelled', make: () => ToolResult.cancelled('stopped') },
  ] as const;

  it.each(closed)('$name() has no artifacts and no write target', ({ make }) => {
    const result = make();
    expect(result.artifacts).toEqual([]);
    expect(result.writeTarget).toBeNull();
  });

  it.each(closed)('$name() refuses extra arguments passed through a cast', ({ name }) => {
    const factory = ToolResult[name] as unknown as (...args: unknown[]) => ToolResult;
    expect(() => factory('x', table())).toThrow(TypeError);
    expect(() => factory('x', target())).toThrow(/fail-closed/);
    expect(() => factory('x', undefined)).toThrow(/takes only the content/);
    expect(() => factory.call(ToolResult, 'x', note(), target())).toThrow(TypeError);
    expect(() => factory.apply(ToolResult, ['x', table()])).toThrow(TypeError);
    expect(() => Reflect.apply(factory, ToolResult, ['x', [table()]])).toThrow(TypeError);
  });

  it.each(closed)('$name(): pushing into artifacts throws and leaves it empty', ({ make }) => {
    const result = make();
    expect(() => (result.artifacts as ToolArtifact[]).push(table())).toThrow(TypeError);
    expect(() => (result.artifacts as ToolArtifact[]).splice(0, 0, table())).toThrow(TypeError);
    expect(() => {
      (result.artifacts as ToolArtifact[])[0] = table();
    }).toThrow(TypeError);
    expect(() => Array.prototype.push.call(result.artifacts, note())).toThrow(TypeError);
    expect(result.artifacts).toHaveLength(0);
  });

  it.each(closed)('$name(): assigning or defining writeTarget or artifacts throws', ({ make }) => {
    const result = make();
    expect(() => {
      (result as { writeTarget: WriteTarget | null }).writeTarget = target();
    }).toThrow(TypeError);
    expect(() => {
      (result as { artifacts: readonly ToolArtifact[] }).artifacts = [table()];
    }).toThrow(TypeError);
    expect(() => Object.defineProperty(result, 'writeTarget', { value: target() })).toThrow(TypeError);
    expect(() => Object.assign(result, { artifacts: [table()] })).toThrow(TypeError);
    expect(Reflect.set(result, 'writeTarget', target())).toBe(false);
    expect(Reflect.deleteProperty(result, 'writeTarget')).toBe(false);
    expect(result.writeTarget).toBeNull();
    expect(result.artifacts).toHaveLength(0);
  });

  it.each(closed)('$name(): the prototype of a result cannot be swapped', ({ make }) => {
    const result = make();
    const evil = Object.create(ToolResult.prototype, { writeTarget: { get: () => target() } });
    expect(() => Object.setPrototypeOf(result, evil)).toThrow(TypeError);
    expect(Reflect.setPrototypeOf(result, evil)).toBe(false);
    expect(Object.getPrototypeOf(result)).toBe(ToolResult.prototype);
    expect(result.writeTarget).toBeNull();
  });

  it('the constructor cannot be called through a cast, a subclass or Reflect.construct', () => {
    const Ctor = ToolResult as unknown as new (...args: unknown[]) => ToolResult;
    expect(() => new Ctor('x', 'failed', [table()], target())).toThrow(/made through its factories/);
    expect(() => new Ctor(Symbol('ToolResult.construct'), 'x', 'failed', [table()], target())).toThrow(TypeError);
    expect(() => Reflect.construct(Ctor, [Symbol('ToolResult.construct'), 'x', 'ok', [], null])).toThrow(TypeError);
    class Sneaky extends Ctor {
      constructor() {
        super(Symbol.for('ToolResult.construct'), 'x', 'failed', [table()], target());
      }
    }
    expect(() => new Sneaky()).toThrow(TypeError);
    const Sub = class extends Ctor {};
    expect(() => new Sub('x')).toThrow(TypeError);
    // A subclass gives `instanceof` no new meaning: no result is an instance of it.
    expect(ToolResult.text('x') instanceof Sub).toBe(false);
    expect(ToolResult.error('x') instanceof Sneaky).toBe(false);
  });

  it('a forged object with ToolResult.prototype is not a result and cannot be laundered into one', () => {
    const forged = Object.setPrototypeOf(
      { content: 'boom', outcome: 'failed', artifacts: [table()], writeTarget: target() },
      ToolResult.prototype,
    ) as ToolResult;
    expect(ToolResult.is(forged)).toBe(false);
    expect(forged instanceof ToolResult).toBe(false);
    // withBoundedChannels makes a new result from `this`: that path must keep the rule as well.
    expect(() => forged.withBoundedChannels()).toThrow(/must be empty on a "failed" result/);
    const cancelled = Object.setPrototypeOf(
      { content: 'stop', outcome: 'cancelled', artifacts: [], writeTarget: target() },
      ToolResult.prototype,
    ) as ToolResult;
    expect(() => cancelled.withBoundedChannels()).toThrow(/fail-closed/);
    const bogus = Object.setPrototypeOf(
      { content: 'x', outcome: 'maybe', artifacts: [], writeTarget: null },
      ToolResult.prototype,
    ) as ToolResult;
    expect(() => bogus.withBoundedChannels()).toThrow(/ToolResult\.outcome must be one of "ok", "failed", "cancelled"/);
    const borrowed = ToolResult.prototype.withBoundedChannels;
    expect(() =>
      borrowed.call({ content: 'x', outcome: 'failed', artifacts: [note()], writeTarget: null } as unknown as ToolResult),
    ).toThrow(TypeError);
  });

  it('a ToolResult.prototype-forged artifact or write target is refused', () => {
    const fakeArtifact = Object.setPrototypeOf({ type: 'table', label: 'x', data: [] }, ToolArtifact.prototype) as ToolArtifact;
    const fakeTarget = Object.setPrototypeOf({ resource: '', id: '', kind: 'exploded' }, WriteTarget.prototype) as WriteTarget;
    expect(Object.getPrototypeOf(fakeArtifact)).toBe(ToolArtifact.prototype); // the prototype chain alone would be fooled …
    expect(fakeArtifact instanceof ToolArtifact).toBe(false); // … the brand is not (not frozen, no field of its own) …
    expect(
      Object.freeze(Object.setPrototypeOf({ type: 'text', label: '', data: '' }, ToolArtifact.prototype)) instanceof ToolArtifact,
    ).toBe(true);
    expect(() => ToolResult.text('x', Object.freeze(fakeArtifact) as ToolArtifact)).toThrow(/must be a ToolArtifact made by its factories/); // … nor the factory, ever
    expect(() => ToolResult.written('x', fakeTarget)).toThrow(/must be a WriteTarget made by its factories/);
  });

  it.each(closed)('$name() stays closed through withBoundedChannels', ({ make }) => {
    const bounded = make().withBoundedChannels({ contentBytes: 1, artifactBytes: 1 });
    expect(bounded.artifacts).toEqual([]);
    expect(bounded.writeTarget).toBeNull();
  });
});

describe('ToolResult invariants (docs/architecture.md)', () => {
  it('the outcome strings are exactly ok, failed, cancelled', () => {
    expect(ToolOutcome).toEqual({ OK: 'ok', FAILED: 'failed', CANCELLED: 'cancelled' });
    expect(TOOL_OUTCOMES).toEqual(['ok', 'failed', 'cancelled']);
  });

  it('the default bounds are 50 000 bytes each', () => {
    expect(DEFAULT_CHANNEL_BOUNDS).toEqual({ contentBytes: 50_000, artifactBytes: 50_000 });
    expect(Object.isFrozen(DEFAULT_CHANNEL_BOUNDS)).toBe(true);
  });
});
