// What a team on AI SDK 7 writes, checked by types-ai7/tsconfig.json, where `ai` is ai 7 (the devDependency
// `ai7`): the package's sources and this file must type-check there as they do against ai 6.
import { generateText, isStepCount, type LanguageModel, streamText, wrapLanguageModel } from 'ai';
import type { McpTool } from '@runledger/mcp';
import { type AiSdkRun, mcpToolSet, recordingMiddleware, recordingToolCallRepair } from '../src/index.js';

export async function ai7Loop(model: LanguageModel, tools: readonly McpTool[], run: AiSdkRun & { readonly id: string }) {
  const toolSet = mcpToolSet(tools, { run, approve: ({ tool }) => ({ approved: tool.server !== 'prod', by: 'ops' }) });
  const result = await generateText({
    model: wrapLanguageModel({ model: model as Parameters<typeof wrapLanguageModel>[0]['model'], middleware: recordingMiddleware(run) }),
    tools: toolSet,
    toolApproval: {
      mcp_fixture_echo: 'approved',
      mcp_github_merge: (_input, { toolContext }) =>
        (toolContext as { runId: string }).runId === run.id ? 'approved' : { type: 'denied', reason: 'another run' },
    },
    timeout: { toolMs: 30_000 },
    stopWhen: isStepCount(10),
    abortSignal: run.signal,
    repairToolCall: recordingToolCallRepair(run, async () => null),
    prompt: 'Echo it.',
  });
  const stream = streamText({
    model: wrapLanguageModel({ model: model as Parameters<typeof wrapLanguageModel>[0]['model'], middleware: recordingMiddleware(run) }),
    tools: toolSet,
    abortSignal: run.signal,
    prompt: 'Echo it.',
  });
  return [result.text, await stream.text] as const;
}
