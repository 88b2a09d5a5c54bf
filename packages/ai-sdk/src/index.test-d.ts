import type { ActiveRun } from '@runledger/trace';
import type { generateText, LanguageModelMiddleware, ToolSet, wrapLanguageModel } from 'ai';
import { describe, expectTypeOf, it } from 'vitest';
import { type AiSdkRun, type McpToolCallError, mcpToolSet, recordingMiddleware, recordingToolCallRepair } from './index.js';

describe('the surface fits the AI SDK it peers with', () => {
  it('takes an ActiveRun and gives the AI SDK its own types', () => {
    expectTypeOf<ActiveRun>().toExtend<AiSdkRun>();
    expectTypeOf(mcpToolSet).returns.toEqualTypeOf<ToolSet>();
    expectTypeOf(recordingMiddleware).returns.toEqualTypeOf<LanguageModelMiddleware>();
    expectTypeOf(mcpToolSet).returns.toExtend<NonNullable<Parameters<typeof generateText>[0]['tools']>>();
    expectTypeOf(recordingMiddleware).returns.toExtend<Parameters<typeof wrapLanguageModel>[0]['middleware']>();
    expectTypeOf(recordingToolCallRepair).returns.toExtend<
      NonNullable<Parameters<typeof generateText>[0]['experimental_repairToolCall']>
    >();
    expectTypeOf<McpToolCallError['outcome']>().toEqualTypeOf<'failed' | 'cancelled'>();
  });
});
