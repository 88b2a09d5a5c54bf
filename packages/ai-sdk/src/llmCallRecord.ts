import type { LanguageModelMiddleware } from 'ai';
import type { RecordLlmCallOptions, RunStepToolCall } from '@runledger/trace';

type WrapGenerate = NonNullable<LanguageModelMiddleware['wrapGenerate']>;
type WrapStream = NonNullable<LanguageModelMiddleware['wrapStream']>;
/** The result of a model's `doGenerate`. */
export type GenerateResult = Awaited<ReturnType<WrapGenerate>>;
/** The result of a model's `doStream`. */
export type StreamResult = Awaited<ReturnType<WrapStream>>;
/** One part of a model's stream. */
export type StreamPart = StreamResult['stream'] extends ReadableStream<infer Part> ? Part : never;
/** The call options of one LLM call. */
export type CallParams = Parameters<WrapGenerate>[0]['params'];
type Usage = GenerateResult['usage'];

/** The finish reason recorded for a call the caller aborted (its signal) before it ended. */
export const ABORTED = 'aborted';
/** The finish reason recorded for a call that ended with an error. */
export const ERRORED = 'error';

/** What one LLM call has produced so far; filled from a generate result or stream parts. */
export class LlmCallRecord {
  readonly #text: string[] = [];
  readonly #reasoning: string[] = [];
  readonly #toolCalls: RunStepToolCall[] = [];
  #usage: Usage | undefined;
  #finishReason: string | undefined;
  #modelId: string;
  readonly #provider: string | undefined;

  /** `provider` is the AI SDK model's provider id (e.g. `openai.chat`), kept on the `llm` step. */
  constructor(modelId: string, provider?: string) {
    this.#modelId = modelId;
    this.#provider = provider === '' ? undefined : provider;
  }

  /** The finish reason received so far (the generate result's, or the stream's `finish` part), if any. */
  get finishReason(): string | undefined {
    return this.#finishReason;
  }

  /** The ids of the tool calls requested so far. */
  get toolCallIds(): string[] {
    return this.#toolCalls.map((call) => call.id as string);
  }

  /** Takes the whole answer of a `doGenerate` call. */
  addGenerateResult(result: GenerateResult): void {
    for (const part of result.content) {
      if (part.type === 'text') this.#text.push(part.text);
      else if (part.type === 'reasoning') this.#reasoning.push(part.text);
      else if (part.type === 'tool-call') this.#addToolCall(part.toolCallId, part.toolName, part.input);
    }
    this.#usage = result.usage;
    this.#finishReason = result.finishReason.unified;
    if (result.response?.modelId !== undefined) this.#modelId = result.response.modelId;
  }

  /** Takes one part of a stream. */
  addStreamPart(part: StreamPart): void {
    switch (part.type) {
      case 'text-delta':
        this.#text.push(part.delta);
        break;
      case 'reasoning-delta':
        this.#reasoning.push(part.delta);
        break;
      case 'tool-call':
        this.#addToolCall(part.toolCallId, part.toolName, part.input);
        break;
      case 'response-metadata':
        if (part.modelId !== undefined) this.#modelId = part.modelId;
        break;
      case 'finish':
        this.#usage = part.usage;
        this.#finishReason = part.finishReason.unified;
        break;
      case 'error':
        this.#finishReason = ERRORED;
        break;
      default:
        break;
    }
  }

  /** The options of the `llm` step; `finishReason` overrides the one received (an abort, an error). */
  toOptions(round: number, durationMs: number, finishReason?: string): RecordLlmCallOptions {
    const reason = finishReason ?? this.#finishReason;
    const promptTokens = this.#usage?.inputTokens.total;
    const completionTokens = this.#usage?.outputTokens.total;
    return {
      round,
      durationMs,
      model: this.#modelId,
      ...(this.#provider !== undefined && { provider: this.#provider }),
      ...(this.#text.length > 0 && { content: this.#text.join('') }),
      ...(this.#reasoning.length > 0 && { thinking: this.#reasoning.join('') }),
      ...(reason !== undefined && { finishReason: reason }),
      ...(promptTokens !== undefined && { promptTokens }),
      ...(completionTokens !== undefined && { completionTokens }),
      requestedToolCalls: [...this.#toolCalls],
    };
  }

  #addToolCall(id: string, name: string, input: string): void {
    this.#toolCalls.push({ id, name, arguments: parseArguments(input) });
  }
}

/** A tool call's JSON input as an object; anything else is kept as `{ input: <text> }`. */
export function parseArguments(input: string): Readonly<Record<string, unknown>> {
  if (input.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(input);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // not JSON: kept as text below
  }
  return { input };
}
