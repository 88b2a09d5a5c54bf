import { ToolArtifact, WriteTarget } from '@runledger/core';
import { describe, expect, it } from 'vitest';
import { applyPrivacy, redactText } from './applyPrivacy.js';
import { PRIVACY_LEVELS } from './PrivacyLevel.js';
import { RunStep } from '../step/RunStep.js';

const toolPayload = RunStep.of({
  kind: 'tool',
  round: 1,
  durationMs: 2,
  toolName: 'mcp_crm_update',
  toolServer: 'crm',
  toolArguments: { email: 'jane.doe@example.com', password: 'hunter2', note: 'token=abc123def456' },
  toolResult: 'Updated contact jane.doe@example.com with key sk-proj-ABCDEFGHIJKLMNOPQRST',
  toolOutcome: 'ok',
  toolArtifacts: [ToolArtifact.text('log', 'Authorization: Bearer abcdefghijklmnop')],
  toolWriteTarget: WriteTarget.changed('contact', 'c-9'),
}).toPayload() as unknown as Record<string, unknown>;

const llmPayload = RunStep.of({
  kind: 'llm',
  round: 0,
  durationMs: 1,
  model: 'gpt',
  content: 'answer',
  thinking: 'hmm',
  promptTokens: 10,
  completionTokens: 5,
  costUsd: 0.2,
  requestedToolCalls: [{ name: 'mcp_crm_update', arguments: { id: 1 } }],
  raw: { id: 'r' },
}).toPayload() as unknown as Record<string, unknown>;

describe('applyPrivacy', () => {
  it('keeps the outcome, tool name, server and token counts at every level', () => {
    for (const level of PRIVACY_LEVELS) {
      expect(applyPrivacy(toolPayload, level)).toMatchObject({
        kind: 'tool',
        toolName: 'mcp_crm_update',
        toolServer: 'crm',
        toolIsError: false,
        toolOutcome: 'ok',
      });
      expect(applyPrivacy(llmPayload, level)).toMatchObject({ promptTokens: 10, completionTokens: 5 });
    }
  });

  it('metadata (the default) drops content keys for counts and lengths in the same place', () => {
    const tool = applyPrivacy(toolPayload, 'metadata');
    expect(tool).toEqual({
      kind: 'tool',
      round: 1,
      durationMs: 2,
      toolName: 'mcp_crm_update',
      toolServer: 'crm',
      toolArgumentCount: 3,
      toolResultLength: (toolPayload['toolResult'] as string).length,
      toolIsError: false,
      toolOutcome: 'ok',
      toolArtifactCount: 1,
      toolWriteTarget: { resource: 'contact', id: 'c-9', kind: 'changed' },
    });
    expect(Object.keys(tool).indexOf('toolArgumentCount')).toBe(5);
    const llm = applyPrivacy(llmPayload, 'metadata');
    expect(llm).toEqual({
      kind: 'llm',
      round: 0,
      durationMs: 1,
      model: 'gpt',
      contentLength: 6,
      thinkingLength: 3,
      promptTokens: 10,
      completionTokens: 5,
      costUsd: 0.2,
      requestedToolCallCount: 1,
      requestedToolNames: ['mcp_crm_update'],
      rawLength: 10,
    });
    expect(JSON.stringify(tool)).not.toMatch(/jane|hunter2|sk-proj/);
  });

  it('none keeps only the identity of the step', () => {
    expect(applyPrivacy(toolPayload, 'none')).toEqual({
      kind: 'tool',
      round: 1,
      durationMs: 2,
      toolName: 'mcp_crm_update',
      toolServer: 'crm',
      toolIsError: false,
      toolOutcome: 'ok',
    });
    expect(applyPrivacy(llmPayload, 'none')).toEqual({ kind: 'llm', round: 0, durationMs: 1, promptTokens: 10, completionTokens: 5 });
  });

  it('redacted masks secrets and e-mail addresses everywhere in content and caps long strings', () => {
    const out = applyPrivacy(toolPayload, 'redacted');
    const text = JSON.stringify(out);
    expect(text).not.toMatch(/jane\.doe|hunter2|abc123def456|sk-proj-|abcdefghijklmnop/);
    expect(out['toolArguments']).toEqual({ email: '[email]', password: '[secret]', note: 'token=[secret]' });
    expect(out['toolResult']).toBe('Updated contact [email] with key [secret]');
    expect(out['toolWriteTarget']).toEqual({ resource: 'contact', id: 'c-9', kind: 'changed' });
    const long = applyPrivacy({ kind: 'request', round: 0, durationMs: 0, content: 'é'.repeat(50) }, 'redacted', { maxStringLength: 10 });
    expect(long['content']).toBe(`${'é'.repeat(10)}… [40 more characters cut]`);
  });

  it('full keeps everything', () => {
    expect(applyPrivacy(toolPayload, 'full')).toEqual(toolPayload);
  });

  it('masks the common secret shapes and leaves hashes and UUIDs alone', () => {
    const samples = [
      'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
      'xoxb-1234567890-abcdefghij',
      'AKIAABCDEFGHIJKLMNOP',
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcdefghijk',
      '-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----',
      'aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5hJ7kL9',
    ];
    for (const sample of samples) expect(redactText(`x ${sample} y`)).toBe('x [secret] y');
    const safe = 'commit 3f786850e387550fdab836ed7e6dc881de23001b run 0b4e7a0e-5fe1-4b9a-a0c3-0c3e0ab1b6f1';
    expect(redactText(safe)).toBe(safe);
    expect(() => applyPrivacy({}, 'secret' as 'full')).toThrow(/applyPrivacy level must be one of/);
  });
});
