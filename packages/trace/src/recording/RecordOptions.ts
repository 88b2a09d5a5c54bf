// The options of RunTrace's record calls (RunTrace.ts): one interface per call, each extending the
// fields every call takes.
import type { ToolArtifact, ToolResult, WriteTarget } from '@runledger/core';
import type { RunStepMessage, RunStepToolCall } from '../step/RunStep.js';
import type { ToolApproval } from '../step/ToolApproval.js';

/**
 * Fields every record call takes.
 *
 * @public
 */
export interface RecordStepOptions {
  /** The agent loop's round, from 0; default 0. */
  readonly round?: number;
  /** How long the step took, in ms; default 0. */
  readonly durationMs?: number;
}

/**
 * The incoming request of a run.
 *
 * @public
 */
export interface RecordRequestOptions extends RecordStepOptions {
  readonly content: string;
}

/**
 * One LLM call.
 *
 * @public
 */
export interface RecordLlmCallOptions extends RecordStepOptions {
  readonly model?: string;
  /** Who serves the model: the AI SDK's `model.provider` (e.g. `openai.chat`), or your client's provider name. */
  readonly provider?: string;
  /** The answer text. */
  readonly content?: string;
  readonly thinking?: string;
  readonly finishReason?: string;
  readonly promptTokens?: number;
  readonly completionTokens?: number;
  readonly costUsd?: number;
  readonly requestedToolCalls?: readonly RunStepToolCall[];
  /** The provider's raw answer (JSON-serialisable). */
  readonly raw?: unknown;
}

/**
 * The context budget of a round.
 *
 * @public
 */
export interface RecordContextBudgetOptions extends RecordStepOptions {
  readonly tokenBudget: number;
  readonly tokensUsed: number;
}

/**
 * Sources dropped from the context of a round.
 *
 * @public
 */
export interface RecordDroppedSourcesOptions extends RecordStepOptions {
  /** The ids or names of the dropped sources. */
  readonly sources: readonly string[];
}

/**
 * The messages assembled for an LLM call.
 *
 * @public
 */
export interface RecordAssembledMessagesOptions extends RecordStepOptions {
  readonly messages: readonly RunStepMessage[];
}

/**
 * The fields both tool record calls take.
 *
 * @public
 */
export interface RecordToolCallOptions extends RecordStepOptions {
  /** The tool's name, e.g. `mcp_github_search`. */
  readonly toolName: string;
  /** The MCP server; default read from a `mcp_<server>_<tool>` name, else none. */
  readonly toolServer?: string | null;
  readonly toolArguments?: Readonly<Record<string, unknown>>;
  /** True when the tool is declared as writing: its step fails closed if it cannot be recorded. */
  readonly writes?: boolean;
  /**
   * The `toolCallId` of the call's `tool_start` step ({@link RunTrace.recordToolStart}), so the
   * timeline shows this step in place of the call on the wire.
   */
  readonly toolCallId?: string;
  /** Who decided the call, when it needed approval; a refused call must be recorded `failed`. */
  readonly toolApproval?: ToolApproval | null;
}

/**
 * The start of a tool call: it is about to go on the wire.
 *
 * @public
 */
export interface RecordToolStartOptions {
  /** The agent loop's round, from 0; default 0. */
  readonly round?: number;
  /** The tool's name, e.g. `mcp_github_search`. */
  readonly toolName: string;
  /** The MCP server; default read from a `mcp_<server>_<tool>` name, else none. */
  readonly toolServer?: string | null;
  readonly toolArguments?: Readonly<Record<string, unknown>>;
  /** True when the tool is declared as writing: the start then fails closed like the call's step. */
  readonly writes?: boolean;
  /** The id pairing the start with the call's step; default a fresh UUID. */
  readonly toolCallId?: string;
}

/**
 * A tool call with its typed result.
 *
 * @public
 */
export interface RecordToolResultOptions extends RecordToolCallOptions {
  readonly result: ToolResult;
}

/**
 * A tool call known only by its text and a boolean (true → `failed`, false → `ok`).
 *
 * @public
 */
export interface RecordToolExecutionOptions extends RecordToolCallOptions {
  readonly toolResult: string;
  readonly isError: boolean;
  /** Run-only artifacts of a call that ended ok. */
  readonly artifacts?: readonly ToolArtifact[];
  /** The record a writing tool wrote, for a call that ended ok. */
  readonly writeTarget?: WriteTarget | null;
}
