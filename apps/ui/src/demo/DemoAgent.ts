import { performance } from 'node:perf_hooks';
import type { ToolResult } from '@runledger/core';
import type { McpTool } from '@runledger/mcp';
import type { RunTrace } from '@runledger/trace';

/**
 * A scripted stand-in for an agent loop: it calls real MCP tools with the run's signal and
 * records every step through the run's trace, as a real loop would.
 *
 * @internal
 */
export class DemoAgent {
  readonly #trace: RunTrace;
  readonly #signal: AbortSignal;
  #round = 0;

  constructor(trace: RunTrace, signal: AbortSignal) {
    this.#trace = trace;
    this.#signal = signal;
  }

  get round(): number {
    return this.#round;
  }

  /** Records the run's incoming request. */
  async request(content: string): Promise<void> {
    await this.#trace.recordRequest({ content, round: 0 });
  }

  /** Records a (simulated) LLM call that opens the next round. */
  async think(answer: string, options: { readonly promptTokens: number; readonly completionTokens: number; readonly tools?: readonly string[] }): Promise<void> {
    this.#round += 1;
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 5 + (options.completionTokens % 17)));
    await this.#trace.recordLlmCall({
      round: this.#round,
      durationMs: Math.round(performance.now() - started),
      model: 'demo-model-1',
      content: answer,
      finishReason: options.tools === undefined || options.tools.length === 0 ? 'stop' : 'tool_calls',
      promptTokens: options.promptTokens,
      completionTokens: options.completionTokens,
      requestedToolCalls: (options.tools ?? []).map((name, index) => ({ id: `call_${this.#round}_${index}`, name, arguments: {} })),
    });
  }

  /**
   * Calls one tool with the run's signal: records its start (so readers of the store see the
   * call on the wire), sends it, and records the outcome it ended with under the same call id.
   */
  async call(tool: McpTool, args: Readonly<Record<string, unknown>>, options: { readonly writes?: boolean } = {}): Promise<ToolResult> {
    const start = await this.#trace.recordToolStart({
      toolName: tool.name,
      toolServer: tool.server,
      toolArguments: args,
      round: this.#round,
      writes: options.writes ?? false,
    });
    const started = performance.now();
    const result = await tool.execute(args, { signal: this.#signal });
    await this.#trace.recordToolResult({
      toolCallId: start.toolCallId!,
      toolName: tool.name,
      toolServer: tool.server,
      toolArguments: args,
      result,
      round: this.#round,
      durationMs: Math.round(performance.now() - started),
      writes: options.writes ?? false,
    });
    return result;
  }
}
