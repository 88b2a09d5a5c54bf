import { stepTokens } from '@runledger/trace/store';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { payloadRecordOf, tokensOfPayload, toolNameOfPayload } from './payloadFields.js';

const kinds = fc.constantFrom('llm', 'tool', 'tool_start', 'request', 'unknown');
const payloads = fc.dictionary(
  fc.constantFrom('promptTokens', 'completionTokens', 'toolName', 'kind', 'other'),
  fc.oneof(fc.jsonValue({ maxDepth: 1 }), fc.double(), fc.integer(), fc.constantFrom(2 ** 53, 2 ** 53 - 1, -1, 0)),
);

describe('what the store reads of a payload', () => {
  it('reads the same from the payload an append gives and from its stored text, by trace’s stepTokens (generated)', () => {
    fc.assert(
      fc.property(kinds, payloads, (kind, payload) => {
        const text = JSON.stringify(payload);
        const parsed = JSON.parse(text) as Record<string, unknown>;
        expect(tokensOfPayload(kind, text)).toBe(stepTokens(kind, parsed));
        expect(tokensOfPayload(kind, parsed)).toBe(stepTokens(kind, parsed));
        const name = parsed['toolName'];
        expect(toolNameOfPayload(text)).toBe(typeof name === 'string' ? name : null);
      }),
    );
  });

  it('reads an unreadable payload, or one that is not a JSON object, as none: 0 tokens, no tool name', () => {
    for (const text of ['{"promptTokens":5,', '[{"promptTokens":5}]', '5', 'null', '"x"', '']) {
      expect(payloadRecordOf(text)).toBeNull();
      expect(tokensOfPayload('llm', text)).toBe(0);
      expect(toolNameOfPayload(text)).toBeNull();
    }
    expect(tokensOfPayload('llm', '{"promptTokens":5,"completionTokens":7}')).toBe(12);
    // only an llm step counts tokens
    expect(tokensOfPayload('tool', '{"promptTokens":5,"completionTokens":7}')).toBe(0);
  });
});
