import { TOOL_FAILURE_CAUSES, TOOL_OUTCOMES, ToolArtifact, WriteTarget } from '@runledger/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RunStep, type RunStepFields } from './RunStep.js';
import { RunStepError } from './RunStepError.js';
import { checkRunStepFields } from './RunStepSchema.js';
import { checkStepFields, fastToolStepData } from './toolStepFastPath.js';

// Values of each field a tool step has: valid ones, and invalid ones at and beyond each rule's edge.
const anyJunk = fc.constantFrom<unknown>(null, undefined, 0, -1, 1.5, NaN, Infinity, '', 'x', true, [], {}, () => 1);
const text = fc.oneof(fc.string(), anyJunk);
const flag = fc.oneof(fc.boolean(), anyJunk, fc.constantFrom<unknown>(0, 1, 'true'));
const integerEdges = (max: number) =>
  fc.oneof(
    fc.integer({ min: 0, max }),
    fc.constantFrom<unknown>(-0, -1, max, max + 1, max + 0.5, 2 ** 53, 2 ** 60, '1', NaN, Infinity, -Infinity),
    anyJunk,
  );
const duration = fc.oneof(
  fc.double({ min: 0, max: 8.64e15, noNaN: true }),
  fc.double(),
  fc.constantFrom<unknown>(8.64e15, 8.64e15 * 2, -0, -Number.MIN_VALUE, '12'),
  anyJunk,
);
const artifact = fc.oneof(
  fc.tuple(fc.string(), fc.string()).map(([label, body]) => ToolArtifact.text(label, body)),
  fc.constant(ToolArtifact.table('rows', [{ a: 1 }])),
);
const artifacts = fc.oneof(
  fc.array(artifact, { maxLength: 3 }),
  fc.array(fc.oneof(artifact, anyJunk, fc.constant({ type: 'text', label: 'a', data: 'x' })), { minLength: 1, maxLength: 3 }),
  anyJunk,
);
const target = fc.oneof(
  fc.constant(WriteTarget.created('issue', '1')),
  fc.constant({ resource: 'issue', id: '1', kind: 'created' }),
  anyJunk,
);
const callId = fc.oneof(
  fc.string({ maxLength: 210 }),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 210 }),
  fc.constantFrom('😀', 'a'.repeat(200), 'a'.repeat(201), '😀'.repeat(100), '😀'.repeat(101), '\uD800'),
  anyJunk,
);
const facts = fc.constantFrom<unknown>(undefined, null, {}, { httpStatus: 502 }, { httpStatus: 99 }, { jsonRpcCode: -32602 }, 'x', 7);
/** A `ToolApproval` line: in and out of the line rule (1 to max characters, no control characters, storable). */
const approvalLine = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom<unknown>(null, undefined, '', 'a\nb', '\u0085', 'x\0', '\uD800', 5, 'a'.repeat(200), 'a'.repeat(201)),
  fc.constantFrom<unknown>('😀'.repeat(200), '😀'.repeat(201), 'b'.repeat(500), 'b'.repeat(501)),
);
const approvalBase = fc.record({ approved: fc.oneof(fc.boolean(), anyJunk), by: approvalLine, reason: approvalLine }, { requiredKeys: [] });
const approval = fc.oneof(
  approvalBase,
  approvalBase.map((value) => ({ ...value, extra: 1 })),
  approvalBase.map((value) => Object.assign(Object.create(null) as object, value)),
  approvalBase.map((value) => Object.assign(new (class Approval {})(), value)),
  anyJunk,
);
/** A line every rule takes: no control characters, no lone surrogates. */
const goodLine = (maxLength: number) =>
  fc.option(
    fc.string({ minLength: 1, maxLength }).filter((value) => !/\p{Cc}/u.test(value)),
    { nil: null },
  );

/** Each field of a tool step and any of its values; now and then another kind, another kind's field, an unknown key. */
const ANY_FIELD_VALUES = {
  kind: fc.oneof(
    { arbitrary: fc.constant<unknown>('tool'), weight: 8 },
    { arbitrary: fc.constantFrom<unknown>('tool_start', 'llm', 'TOOL', null, 3), weight: 1 },
  ),
  round: integerEdges(2_147_483_647),
  durationMs: duration,
  toolName: text,
  toolServer: text,
  toolArguments: fc.oneof(fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue(), { maxKeys: 3 }), anyJunk),
  toolResult: text,
  toolIsError: flag,
  toolOutcome: fc.oneof(fc.constantFrom<unknown>(...TOOL_OUTCOMES), fc.constantFrom<unknown>('OK', 'error'), anyJunk),
  toolFailureCause: fc.oneof(fc.constantFrom<unknown>(...TOOL_FAILURE_CAUSES), fc.constant<unknown>('no_such_cause'), anyJunk),
  toolFailureFacts: facts,
  toolArtifacts: artifacts,
  toolWriteTarget: target,
  toolWrites: flag,
  toolCallId: callId,
  toolSends: integerEdges(1000),
  toolApproval: approval,
  model: fc.constantFrom<unknown>(undefined, null, 'gpt', 5),
  content: fc.constantFrom<unknown>(undefined, null, 'hi'),
  raw: fc.constantFrom<unknown>(undefined, null, { a: 1 }),
  unknownKey: fc.constantFrom<unknown>(1, 'x'),
};
/** Fields of a tool step, each key absent or any of its values. */
const anyFields = fc.record(ANY_FIELD_VALUES, { requiredKeys: [] });
/** The keys {@link anyFields} draws, which a generated step may replace or take away. */
const FIELD_KEYS = Object.keys(ANY_FIELD_VALUES) as (keyof typeof ANY_FIELD_VALUES)[];

/** A well-formed tool step as RunTrace's builder makes it: the path that must be fast. */
const wellFormedToolFields = fc
  .record({
    round: fc.integer({ min: 0, max: 2_147_483_647 }),
    durationMs: fc.double({ min: 0, max: 8.64e15, noNaN: true }),
    toolName: fc.string(),
    toolServer: fc.string(),
    toolArguments: fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue(), { maxKeys: 3 }),
    toolResult: fc.string(),
    outcome: fc.constantFrom(...TOOL_OUTCOMES),
    toolFailureCause: fc.option(fc.constantFrom(...TOOL_FAILURE_CAUSES)),
    toolArtifacts: fc.array(artifact, { maxLength: 2 }),
    toolCallId: fc.option(fc.string({ minLength: 1, maxLength: 200 }), { nil: undefined }),
    toolSends: fc.option(fc.integer({ min: 0, max: 1000 })),
    approval: fc.option(fc.record({ approved: fc.boolean(), by: goodLine(200), reason: goodLine(500) }), { nil: undefined }),
  })
  .map(({ outcome, toolFailureCause, toolArtifacts, approval, ...rest }) => ({
    kind: 'tool' as const,
    ...rest,
    toolOutcome: outcome,
    toolIsError: outcome !== 'ok',
    toolFailureCause: outcome === 'failed' ? toolFailureCause : null,
    toolFailureFacts: null,
    toolArtifacts: outcome === 'ok' ? toolArtifacts : [],
    toolWriteTarget: null,
    // a refused call is a failed step
    toolApproval: approval === undefined ? undefined : { ...approval, approved: approval.approved || outcome !== 'failed' },
  }));

/** Generated input: a well-formed tool step with up to 3 fields replaced by any value (absent when that has none), or any fields at all. */
const toolishFields: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.tuple(wellFormedToolFields, anyFields, fc.subarray([...FIELD_KEYS], { maxLength: 3 })).map(([base, other, keys]) => {
    const fields: Record<string, unknown> = { ...base };
    for (const key of keys) {
      if (key in other) fields[key] = other[key];
      else delete fields[key];
    }
    return fields;
  }),
  anyFields,
);

/** What RunStep.of does with fields: the step's payload, or the error's field and message. */
function ofVerdict(fields: unknown): { payload: unknown } | { field: string; message: string } {
  try {
    return { payload: RunStep.of(fields as RunStepFields).toPayload() };
  } catch (error) {
    if (!(error instanceof RunStepError)) throw error;
    return { field: error.field, message: error.message };
  }
}

describe('RunStep.of fast path for tool steps', () => {
  it('gives the schema verdict on generated valid and invalid fields: the same data, or the same error', () => {
    let fast = 0;
    let refused = 0;
    fc.assert(
      fc.property(toolishFields, (fields) => {
        const bySchema = checkRunStepFields(fields);
        const withFastPath = checkStepFields(fields);
        if (fastToolStepData(fields) !== undefined) fast++;
        if (!('data' in bySchema)) {
          refused++;
          expect(withFastPath).toEqual(bySchema);
          // and RunStep.of refuses with that very field and message
          expect(ofVerdict(fields)).toEqual(bySchema);
          return;
        }
        expect('data' in withFastPath).toBe(true);
        if (!('data' in withFastPath)) return;
        expect(withFastPath.data).toEqual(bySchema.data);
        // the same objects, not copies: arguments by reference, artifacts in a fresh list of the same ones
        expect(withFastPath.data.toolArguments).toBe(bySchema.data.toolArguments);
        if (Array.isArray(fields.toolArtifacts)) {
          expect(withFastPath.data.toolArtifacts).not.toBe(fields.toolArtifacts);
          withFastPath.data.toolArtifacts?.forEach((item, i) => expect(item).toBe(bySchema.data.toolArtifacts?.[i]));
        }
      }),
      { numRuns: 1500 },
    );
    // the generator reaches both paths, and the schema's refusals
    expect(fast).toBeGreaterThan(30);
    expect(refused).toBeGreaterThan(150);
    // a generated property over many inputs: its time is the machine's, not a limit of the code
  }, 60_000);

  it('gives the schema verdict on a well-formed tool step with any toolApproval', () => {
    let fast = 0;
    fc.assert(
      fc.property(wellFormedToolFields, approval, (base, toolApproval) => {
        const fields = { ...base, toolOutcome: 'failed', toolIsError: true, toolArtifacts: [], toolApproval };
        const bySchema = checkRunStepFields(fields);
        if (fastToolStepData(fields) !== undefined) fast++;
        expect(checkStepFields(fields)).toEqual(bySchema);
      }),
      { numRuns: 1000 },
    );
    // well-formed approvals take the fast path
    expect(fast).toBeGreaterThan(100);
  });

  it('takes the fast path for every well-formed tool step, with the schema data', () => {
    fc.assert(
      fc.property(wellFormedToolFields, (fields) => {
        const fastData = fastToolStepData(fields);
        expect(fastData).toBeDefined();
        const bySchema = checkRunStepFields(fields);
        expect(bySchema).toEqual({ data: fastData });
        expect(ofVerdict(fields)).toHaveProperty('payload');
      }),
      { numRuns: 300 },
    );
  });

  it("never freezes the caller's artifact list", () => {
    const list = [ToolArtifact.text('a', 'b')];
    const step = RunStep.of({ kind: 'tool', round: 0, durationMs: 1, toolOutcome: 'ok', toolArtifacts: list });
    expect(Object.isFrozen(step.toolArtifacts)).toBe(true);
    expect(Object.isFrozen(list)).toBe(false);
    expect(step.toolArtifacts).toEqual(list);
  });
});
