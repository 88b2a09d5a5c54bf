import { TOOL_FAILURE_CAUSES, TOOL_OUTCOMES, ToolArtifact, ToolOutcome, WriteTarget } from '@runledger/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RunStep, type RunStepFields } from './RunStep.js';
import { RunStepError } from './RunStepError.js';
import { RunStepReadError } from './RunStepReadError.js';
import { RUN_STEP_KEYS } from './RunStepSchema.js';
import { applyPrivacy, stepPayloadAt } from '../privacy/applyPrivacy.js';
import { PRIVACY_LEVELS } from '../privacy/PrivacyLevel.js';

const key = fc.stringMatching(/^[a-z][a-zA-Z0-9]{0,8}$/);
const record = fc.dictionary(key, fc.jsonValue(), { maxKeys: 4 });
const count = fc.maxSafeNat();
const amount = fc.double({ min: 0, max: 1e9, noNaN: true });
const callId = fc.string({ minLength: 1, maxLength: 200 });
const common = { round: fc.integer({ min: 0, max: 2 ** 31 - 1 }), durationMs: fc.double({ min: 0, max: 8.64e15, noNaN: true }) };
const some = { requiredKeys: ['kind', 'round', 'durationMs'] as ('kind' | 'round' | 'durationMs')[] };

const artifact = fc.oneof(
  fc.tuple(fc.string(), fc.string()).map(([label, text]) => ToolArtifact.text(label, text)),
  fc.tuple(fc.string(), fc.array(record, { maxLength: 3 })).map(([label, rows]) => ToolArtifact.table(label, rows)),
);
const target = fc
  .tuple(fc.constantFrom('created', 'changed', 'deleted'), fc.string({ minLength: 1 }), fc.string({ minLength: 1 }))
  .map(([kind, resource, id]) =>
    kind === 'created'
      ? WriteTarget.created(resource, id)
      : kind === 'changed'
        ? WriteTarget.changed(resource, id)
        : WriteTarget.deleted(resource, id),
  );

/** Fields of a valid step of every kind, optional fields present or not, `null` for some unset ones. */
const validFields: fc.Arbitrary<RunStepFields> = fc.oneof(
  fc.record({ kind: fc.constant('request' as const), ...common, content: fc.option(fc.string()) }, some),
  fc.record(
    {
      kind: fc.constant('llm' as const),
      ...common,
      model: fc.string(),
      provider: fc.option(fc.string()),
      content: fc.option(fc.string()),
      thinking: fc.string(),
      finishReason: fc.string(),
      promptTokens: count,
      completionTokens: fc.option(count),
      costUsd: amount,
      requestedToolCalls: fc.array(
        fc.record({ id: fc.string(), name: fc.string(), arguments: record }, { requiredKeys: ['name', 'arguments'] }),
        { maxLength: 3 },
      ),
      raw: fc.jsonValue(),
    },
    some,
  ),
  fc.record({ kind: fc.constant('context' as const), ...common, tokenBudget: count, tokensUsed: count }, some),
  fc.record({ kind: fc.constant('dropped' as const), ...common, droppedSources: fc.array(fc.string(), { maxLength: 4 }) }, some),
  fc.record(
    {
      kind: fc.constant('assembled' as const),
      ...common,
      messages: fc.array(fc.record({ role: fc.string(), content: fc.string() }), { maxLength: 4 }),
    },
    some,
  ),
  fc.record(
    {
      kind: fc.constant('tool_start' as const),
      ...common,
      toolName: fc.string(),
      toolCallId: callId,
      toolServer: fc.string(),
      toolArguments: record,
      toolWrites: fc.boolean(),
    },
    { requiredKeys: ['kind', 'round', 'durationMs', 'toolName', 'toolCallId'] },
  ),
  fc
    .record(
      {
        kind: fc.constant('tool' as const),
        ...common,
        toolName: fc.string(),
        toolServer: fc.string(),
        toolArguments: fc.option(record),
        toolResult: fc.string(),
        toolOutcome: fc.constantFrom(...TOOL_OUTCOMES),
        toolWrites: fc.boolean(),
        toolCallId: callId,
        cause: fc.option(fc.constantFrom(...TOOL_FAILURE_CAUSES), { nil: undefined }),
        toolArtifacts: fc.array(artifact, { maxLength: 2 }),
        toolWriteTarget: fc.option(target, { nil: undefined }),
      },
      { requiredKeys: ['kind', 'round', 'durationMs', 'toolOutcome'] },
    )
    .map(({ cause, ...fields }): RunStepFields => {
      if (fields.toolOutcome === ToolOutcome.OK) return fields;
      // a call that did not end ok is fail-closed; only a failed one has a cause
      const { toolArtifacts: _artifacts, toolWriteTarget: _target, ...closed } = fields;
      return fields.toolOutcome === ToolOutcome.FAILED && cause !== undefined ? { ...closed, toolFailureCause: cause } : closed;
    }),
);

describe('RunStep payload, by property', () => {
  it('reads back every payload a valid step gives: the same payload, as an object and as JSON text', () => {
    fc.assert(
      fc.property(validFields, (fields) => {
        const step = RunStep.of(fields);
        const payload = step.toPayload();
        expect(Object.keys(payload).every((k) => (RUN_STEP_KEYS as readonly string[]).includes(k))).toBe(true);
        expect(RunStep.fromPayload(payload).toPayload()).toEqual(payload);
        const json = JSON.stringify(step);
        expect(RunStep.fromPayload(json).toPayload()).toEqual(JSON.parse(json));
        expect(JSON.stringify(RunStep.fromPayload(json))).toBe(json);
      }),
      { numRuns: 300 },
    );
  });

  it('a step keeps every field its fields set, and sets no other but the outcome pair one gives the other', () => {
    const derived = new Set(['toolIsError', 'toolOutcome']);
    fc.assert(
      fc.property(validFields, (fields) => {
        const step = RunStep.of(fields) as unknown as Record<string, unknown>;
        const given = fields as unknown as Record<string, unknown>;
        expect(Object.keys(step)).toEqual([...RUN_STEP_KEYS]);
        for (const key of RUN_STEP_KEYS) {
          const isGiven = given[key] !== undefined && given[key] !== null;
          const isSet = step[key] !== undefined;
          expect([key, isSet]).toEqual([key, isGiven || (derived.has(key) && isSet)]);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("the payload a recorder stores at each privacy level is applyPrivacy of the step's payload, key for key and in order", () => {
    fc.assert(
      fc.property(validFields, fc.constantFrom(...PRIVACY_LEVELS), (fields, level) => {
        const step = RunStep.of(fields);
        const expected = applyPrivacy(step.toPayload(), level);
        const made = stepPayloadAt(step, level);
        expect(made).toEqual(expected);
        expect(Object.keys(made)).toEqual(Object.keys(expected));
      }),
      { numRuns: 500 },
    );
  });

  it('rounds durationMs to hundredths once: a rounded duration rounds to itself, over the whole range', () => {
    // 40393828915167.02 rounded to .03 through Math.round(x * 100) / 100 (found by the property above in CI)
    expect(RunStep.of({ kind: 'request', round: 0, durationMs: 40393828915167.02 }).durationMs).toBe(40393828915167.02);
    fc.assert(
      fc.property(common.durationMs, (durationMs) => {
        const once = RunStep.of({ kind: 'request', round: 0, durationMs }).durationMs;
        expect(RunStep.of({ kind: 'request', round: 0, durationMs: once }).durationMs).toBe(once);
        expect(Math.abs(once - durationMs)).toBeLessThanOrEqual(0.005 + durationMs * Number.EPSILON * 4);
      }),
      { numRuns: 10_000 },
    );
  });

  it('refuses an outcome string that is not a ToolOutcome, naming the field, from the reader and from RunStep.of', () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !(TOOL_OUTCOMES as readonly string[]).includes(s)),
        (outcome) => {
          const payload = { kind: 'tool', round: 0, durationMs: 1, toolName: 'mcp_a_b', toolOutcome: outcome };
          let read: unknown;
          try {
            RunStep.fromPayload(payload);
          } catch (error) {
            read = error;
          }
          expect(RunStepReadError.is(read)).toBe(true);
          expect((read as RunStepReadError).path).toEqual(['toolOutcome']);
          expect((read as Error).message).toContain(
            `at toolOutcome cannot be read: must be "ok", "failed" or "cancelled", got ${JSON.stringify(outcome)}`,
          );
          let made: unknown;
          try {
            RunStep.of(payload as unknown as RunStepFields);
          } catch (error) {
            made = error;
          }
          expect(RunStepError.is(made)).toBe(true);
          expect((made as RunStepError).field).toBe('toolOutcome');
          expect((made as Error).message).toBe(`RunStep.toolOutcome must be "ok", "failed" or "cancelled", got ${JSON.stringify(outcome)}`);
        },
      ),
      { numRuns: 200 },
    );
  });
});
