import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RunStepKind } from './RunStepKind.js';
import { storedStepTokens, stepTokens } from './stepTokens.js';

const count = fc.integer({ min: 0, max: 2 ** 40 });
/** Values that are not a non-negative safe integer: each counts 0. */
const notACount = fc.oneof(
  fc.constantFrom(-1, -0.5, 1.5, Number.NaN, Infinity, -Infinity, 2 ** 53, '12', null, true, undefined),
  fc.integer({ max: -1 }),
  fc.double().filter((d) => !Number.isInteger(d)),
  fc.string(),
  fc.array(fc.nat(), { maxLength: 2 }),
);

describe('stepTokens', () => {
  it('adds promptTokens and completionTokens of an llm step', () => {
    fc.assert(
      fc.property(count, count, (prompt, completion) => {
        expect(stepTokens(RunStepKind.LLM, { promptTokens: prompt, completionTokens: completion })).toBe(prompt + completion);
      }),
    );
    expect(stepTokens('llm', { promptTokens: 10 })).toBe(10);
    expect(stepTokens('llm', { completionTokens: 7 })).toBe(7);
    expect(stepTokens('llm', {})).toBe(0);
  });

  it('counts 0 for a value that is not a non-negative safe integer, and keeps the other', () => {
    fc.assert(
      fc.property(notACount, count, (bad, good) => {
        expect(stepTokens('llm', { promptTokens: bad, completionTokens: good })).toBe(good);
        expect(stepTokens('llm', { promptTokens: good, completionTokens: bad })).toBe(good);
      }),
    );
  });

  it('counts 0 for every kind but llm, whatever its payload says', () => {
    fc.assert(
      fc.property(
        fc.string().filter((kind) => kind !== RunStepKind.LLM),
        count,
        count,
        (kind, prompt, completion) => {
          expect(stepTokens(kind, { promptTokens: prompt, completionTokens: completion })).toBe(0);
        },
      ),
    );
    expect(stepTokens('tool', { promptTokens: 5 })).toBe(0);
    expect(stepTokens('LLM', { promptTokens: 5 })).toBe(0);
  });
});

describe('storedStepTokens', () => {
  it('reads the tokens of a stored llm step from its text, as stepTokens does from the object', () => {
    fc.assert(
      fc.property(fc.oneof(count, notACount), fc.oneof(count, notACount), (prompt, completion) => {
        const payload = { promptTokens: prompt, completionTokens: completion };
        expect(storedStepTokens({ kind: RunStepKind.LLM, payload: JSON.stringify(payload) })).toBe(
          stepTokens(RunStepKind.LLM, JSON.parse(JSON.stringify(payload)) as Record<string, unknown>),
        );
      }),
    );
  });

  it('counts 0 for text that is no JSON object, and for every kind but llm', () => {
    for (const payload of ['', '{', 'null', '7', '"x"', '[1,2]']) expect(storedStepTokens({ kind: RunStepKind.LLM, payload })).toBe(0);
    expect(storedStepTokens({ kind: RunStepKind.TOOL, payload: '{"promptTokens":5}' })).toBe(0);
  });
});
