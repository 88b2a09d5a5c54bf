import { ToolArtifact, ToolOutcome } from '@runledger/core';
import { describe, expect, it } from 'vitest';
import { toolResultFromAnswer } from './toolResultFromAnswer.js';

describe('toolResultFromAnswer', () => {
  it('joins text blocks and keeps structuredContent as a run-only artifact', () => {
    const result = toolResultFromAnswer({
      content: [
        { type: 'text', text: 'a' },
        { type: 'text', text: 'b' },
      ],
      isError: false,
      structuredContent: [{ id: 1 }, { id: 2 }],
    });
    expect(result.outcome).toBe(ToolOutcome.OK);
    expect(result.content).toBe('a\nb');
    expect(result.artifacts).toEqual([ToolArtifact.table('Structured content', [{ id: 1 }, { id: 2 }])]);
  });

  it('keeps a structuredContent that is not an object as JSON text', () => {
    expect(toolResultFromAnswer({ content: [], isError: false, structuredContent: [1, 2] }).artifacts).toEqual([
      ToolArtifact.text('Structured content', '[1,2]'),
    ]);
  });

  it('names at most five non-text blocks and counts the rest', () => {
    const blocks = [
      { type: 'image', mimeType: 'image/png' },
      { type: 'audio', mimeType: 'audio/wav' },
      { type: 'resource_link', uri: 'file:///a.txt' },
      { type: 'resource', resource: { uri: 'mem://x' } },
      { type: 'weird' },
      { type: 'image' },
      { type: 'image' },
    ];
    expect(toolResultFromAnswer({ content: blocks, isError: false, structuredContent: undefined }).content).toBe(
      '[7 non-text blocks not shown: image image/png, audio audio/wav, resource_link file:///a.txt, resource mem://x, weird and 2 more]',
    );
  });

  it('an isError answer is failed, fail-closed, even with structuredContent', () => {
    const result = toolResultFromAnswer({ content: [{ type: 'text', text: 'bad' }], isError: true, structuredContent: { a: 1 } });
    expect(result.outcome).toBe(ToolOutcome.FAILED);
    expect(result.content).toBe('bad');
    expect(result.artifacts).toEqual([]);
    expect(toolResultFromAnswer({ content: [], isError: true, structuredContent: undefined }).content).toBe(
      'The tool reported an error without a message.',
    );
  });

  it('reads the answer loosely: content that is not an array is none, only isError true is an error', () => {
    const noContent = toolResultFromAnswer({ content: 'not blocks', isError: 'yes', structuredContent: undefined });
    expect(noContent.outcome).toBe(ToolOutcome.OK);
    expect(noContent.content).toBe('');
    expect(toolResultFromAnswer({}).outcome).toBe(ToolOutcome.OK);
    expect(toolResultFromAnswer({ isError: true }).content).toBe('The tool reported an error without a message.');
  });

  it("an isError answer's cause: the SDK's refusal of the arguments, SDK 1.x's tool not found, else the server's error", () => {
    const causeOf = (text: string) => toolResultFromAnswer({ content: [{ type: 'text', text }], isError: true }).failureCause;
    expect(causeOf('MCP error -32602: Input validation error: a: expected number')).toBe('invalid_arguments');
    expect(causeOf('MCP error -32602: Tool lookup not found')).toBe('tool_not_found');
    expect(causeOf('MCP error -32602: Tool lookup disabled')).toBe('tool_not_found');
    expect(causeOf('Tool lookup not found')).toBe('server_error');
    expect(causeOf('the database is down')).toBe('server_error');
  });

  it('keeps the text of a single text block as it is', () => {
    const text = 'one block\nwith lines';
    expect(toolResultFromAnswer({ content: [{ type: 'text', text }], isError: false }).content).toBe(text);
    expect(toolResultFromAnswer({ content: [{ type: 'text', text: 42 }], isError: false }).content).toBe(
      '[1 non-text block not shown: text]',
    );
  });
});
