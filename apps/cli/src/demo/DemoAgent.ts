import type { ToolResult } from '@runledger/core';
import { mcpToolSet, McpToolCallError, recordingMiddleware } from '@runledger/ai-sdk';
import type { McpTool } from '@runledger/mcp';
import type { RunTrace } from '@runledger/trace';
import { generateText, type LanguageModelMiddleware, stepCountIs, wrapLanguageModel } from 'ai';
import { type DemoModel, demoModel, type DemoTurn } from './demoModel.js';

/** The most LLM calls one scripted run may make. */
const MAX_STEPS = 50;

/**
 * The demo's agent: a Vercel AI SDK loop, as users write it with `@runledger/ai-sdk` — the AI
 * SDK's mock model plays a script, the SDK runs the tool calls it asks for through
 * `mcpToolSet` (real MCP servers, the run's signal), and `recordingMiddleware` records every LLM
 * call.
 *
 * @internal
 */
export class DemoAgent {
  readonly #trace: RunTrace;
  readonly #signal: AbortSignal;
  readonly #writes: (tool: McpTool) => boolean;
  readonly #scripted: DemoModel = demoModel();
  readonly #model: ReturnType<typeof wrapLanguageModel>;

  constructor(trace: RunTrace, signal: AbortSignal, options: { readonly writes?: (tool: McpTool) => boolean } = {}) {
    this.#trace = trace;
    this.#signal = signal;
    this.#writes = options.writes ?? (() => false);
    const middleware: LanguageModelMiddleware = recordingMiddleware({ trace, signal });
    this.#model = wrapLanguageModel({ model: this.#scripted.model, middleware });
  }

  /** Records the run's incoming request (round 0). */
  async request(content: string): Promise<void> {
    await this.#trace.recordRequest({ content, round: 0 });
  }

  /**
   * Plays scripted turns through `generateText`: one LLM call per turn, the tool calls of a turn
   * run by the AI SDK (in parallel), until a turn asks for none.
   *
   * @throws the run's abort reason (a `RunCancelledError`) from `DemoAgent.play` when the run is cancelled.
   */
  async play(prompt: string, tools: readonly McpTool[], turns: readonly DemoTurn[]): Promise<void> {
    this.#scripted.script(turns);
    await generateText({
      model: this.#model,
      tools: mcpToolSet(tools, { run: { trace: this.#trace, signal: this.#signal }, writes: this.#writes }),
      stopWhen: stepCountIs(MAX_STEPS),
      abortSignal: this.#signal,
      prompt,
    });
  }

  /** One LLM call of the recorded model, outside a loop (a run driven step by step). */
  async think(
    answer: string,
    options: { readonly promptTokens: number; readonly completionTokens: number; readonly tools?: readonly string[] },
  ): Promise<void> {
    this.#scripted.script([{ answer, ...options, calls: (options.tools ?? []).map((tool) => ({ tool, input: {} })) }]);
    await this.#model.doGenerate({ prompt: [{ role: 'user', content: [{ type: 'text', text: answer }] }], abortSignal: this.#signal });
  }

  /**
   * Calls one tool through its AI SDK tool of `mcpToolSet` (recorded there: start, then outcome)
   * and resolves to the result the MCP tool ended with.
   */
  async call(tool: McpTool, args: Readonly<Record<string, unknown>>, options: { readonly writes?: boolean } = {}): Promise<ToolResult> {
    let result: ToolResult | undefined;
    const watched: McpTool = {
      name: tool.name,
      server: tool.server,
      remoteName: tool.remoteName,
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema,
      requiresApproval: tool.requiresApproval,
      deadlineMs: tool.deadlineMs,
      execute: async (input, executeOptions) => (result = await tool.execute(input, executeOptions)),
    };
    const writes = options.writes ?? this.#writes(tool);
    const set = mcpToolSet([watched], { run: { trace: this.#trace, signal: this.#signal }, writes: () => writes });
    try {
      await set[tool.name]!.execute!(args, { toolCallId: crypto.randomUUID(), messages: [], abortSignal: this.#signal });
    } catch (error) {
      if (!McpToolCallError.is(error)) throw error;
    }
    return result as ToolResult;
  }
}
