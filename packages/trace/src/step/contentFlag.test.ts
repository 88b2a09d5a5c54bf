// Which step fields are content is one flag in the step schema (RunStepSchema.ts, `content(…)`).
// The privacy filter, the timeline and (in @runledger/otel) the span mapping read it: these tests
// go over every flagged field, so a content field added to the schema is held to all of them.
import { describe, expect, it } from 'vitest';
import { applyPrivacy } from '../privacy/applyPrivacy.js';
import { PrivacyLevel } from '../privacy/PrivacyLevel.js';
import type { StoredStep } from '../store/RunStore.js';
import { buildRunTimeline } from '../timeline/buildRunTimeline.js';
import { RUN_STEP_CONTENT, RUN_STEP_KEYS, RunStepSchema } from './RunStepSchema.js';
import { RUN_STEP_CONTENT_KEYS } from './runStepContentKeys.js';

/** Values of the shapes content fields have; each field gets the first one its schema and its measures take. */
const CANDIDATES: readonly unknown[] = [
  'a prompt, an answer: jane@example.com',
  [{ role: 'user', content: 'hello' }],
  [{ name: 'mcp_crm_update', arguments: { id: 1 } }],
  [{ type: 'text', label: 'log', data: 'line' }],
  { id: 1, note: 'x' },
];

function sampleOf(key: string): unknown {
  const flag = RUN_STEP_CONTENT.get(key as never)!;
  const field = RunStepSchema.shape[key as keyof typeof RunStepSchema.shape];
  const value = CANDIDATES.find(
    (candidate) => field.safeParse(candidate).success && Object.values(flag.sizes).every((measure) => measure(candidate) !== undefined),
  );
  if (value === undefined) throw new Error(`add a candidate value for the content field ${key}`);
  return value;
}

/** A payload with every content field set, and a metadata field beside them. */
const full: Record<string, unknown> = { kind: 'llm', round: 0, durationMs: 1, model: 'gpt' };
for (const key of RUN_STEP_CONTENT_KEYS) full[key] = sampleOf(key);

const stored = (payload: Record<string, unknown>): StoredStep => ({
  runId: 'a0000000-0000-4000-8000-000000000001',
  sequence: 0,
  kind: 'llm',
  round: 0,
  durationMs: 1,
  createdAt: 1,
  payload: JSON.stringify(payload),
  toolServer: null,
  toolOutcome: null,
});

describe('the content flag of the step schema', () => {
  it('flags the fields that hold prompts, answers, tool arguments and results', () => {
    expect(RUN_STEP_CONTENT_KEYS).toEqual([
      'content',
      'thinking',
      'messages',
      'requestedToolCalls',
      'raw',
      'toolArguments',
      'toolResult',
      'toolArtifacts',
    ]);
    for (const key of RUN_STEP_CONTENT_KEYS) expect(RUN_STEP_KEYS).toContain(key);
  });

  it('applyPrivacy replaces each content field by its sizes at metadata, drops it at none, keeps the rest', () => {
    const metadata = applyPrivacy(full, PrivacyLevel.METADATA);
    const none = applyPrivacy(full, PrivacyLevel.NONE);
    for (const [key, flag] of RUN_STEP_CONTENT) {
      expect(metadata, key).not.toHaveProperty(key);
      expect(none, key).not.toHaveProperty(key);
      for (const [size, measure] of Object.entries(flag.sizes)) expect(metadata[size], `${key} → ${size}`).toBe(measure(full[key]));
    }
    expect(metadata).toMatchObject({ kind: 'llm', round: 0, durationMs: 1, model: 'gpt' });
  });

  it('the timeline shows the sizes of each content field, never the field, whatever the level it was stored at', () => {
    const fromFull = buildRunTimeline(null, [stored(full)])[0]!.details;
    const fromMetadata = buildRunTimeline(null, [stored(applyPrivacy(full, PrivacyLevel.METADATA))])[0]!.details;
    for (const [key, flag] of RUN_STEP_CONTENT) {
      expect(fromFull, key).not.toHaveProperty(key);
      for (const [size, measure] of Object.entries(flag.sizes)) expect(fromFull[size], `${key} → ${size}`).toBe(measure(full[key]));
    }
    expect(fromFull).toEqual(fromMetadata);
  });
});
