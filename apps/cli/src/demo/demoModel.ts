import type { LanguageModelMiddleware } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';

type GenerateResult = Awaited<ReturnType<NonNullable<LanguageModelMiddleware['wrapGenerate']>>>;

/** One scripted answer of the demo's model: its text, its token usage and the tool calls it asks for. @internal */
export interface DemoTurn {
  readonly answer: string;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly calls?: readonly { readonly tool: string; readonly input: Readonly<Record<string, unknown>> }[];
}

/** The demo's model: the AI SDK's mock language model, answering from a queue of turns. @internal */
export interface DemoModel {
  readonly model: MockLanguageModelV3;
  /** Queues the next answers. */
  script(turns: readonly DemoTurn[]): void;
}

/** The model id the demo's LLM steps carry. @internal */
export const DEMO_MODEL_ID = 'demo-model-1';

/**
 * Makes the demo's scripted model (`MockLanguageModelV3` from `ai/test`, shipped with the `ai`
 * package): each call takes the next queued turn after a short think (5–21 ms, cut short when the
 * call's signal is aborted) and names its tool calls `call_<n>_<index>`.
 *
 * @internal
 */
export function demoModel(): DemoModel {
  const queue: DemoTurn[] = [];
  let calls = 0;
  const model = new MockLanguageModelV3({
    provider: 'runledger-demo',
    modelId: DEMO_MODEL_ID,
    doGenerate: async (options) => {
      const turn = queue.shift();
      if (turn === undefined) throw new Error('the demo model has no scripted answer left');
      calls += 1;
      await think(5 + (turn.completionTokens % 17), options.abortSignal);
      const toolCalls = turn.calls ?? [];
      const result: GenerateResult = {
        content: [
          { type: 'text', text: turn.answer },
          ...toolCalls.map((call, index) => ({
            type: 'tool-call' as const,
            toolCallId: `call_${calls}_${index}`,
            toolName: call.tool,
            input: JSON.stringify(call.input),
          })),
        ],
        finishReason: toolCalls.length > 0 ? { unified: 'tool-calls', raw: 'tool_calls' } : { unified: 'stop', raw: 'stop' },
        usage: {
          inputTokens: { total: turn.promptTokens, noCache: turn.promptTokens, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: turn.completionTokens, text: turn.completionTokens, reasoning: undefined },
        },
        warnings: [],
      };
      return result;
    },
  });
  return { model, script: (turns) => void queue.push(...turns) };
}

function think(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
