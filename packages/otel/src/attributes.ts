import { ATTR_ERROR_TYPE, ERROR_TYPE_VALUE_OTHER } from '@opentelemetry/semantic-conventions';
import {
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
} from '@opentelemetry/semantic-conventions/incubating';

/**
 * The attribute, event and operation names of the mapping (docs/otel.md): the semantic
 * conventions' names (`@opentelemetry/semantic-conventions` 1.45.0, pinned) where they exist,
 * `runledger.*` where they do not.
 */
export const Attr = {
  ERROR_TYPE: ATTR_ERROR_TYPE,
  OPERATION: ATTR_GEN_AI_OPERATION_NAME,
  AGENT_NAME: ATTR_GEN_AI_AGENT_NAME,
  PROVIDER: ATTR_GEN_AI_PROVIDER_NAME,
  MODEL: ATTR_GEN_AI_REQUEST_MODEL,
  INPUT_TOKENS: ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  OUTPUT_TOKENS: ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  FINISH_REASONS: ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  INPUT_MESSAGES: ATTR_GEN_AI_INPUT_MESSAGES,
  OUTPUT_MESSAGES: ATTR_GEN_AI_OUTPUT_MESSAGES,
  TOOL_NAME: ATTR_GEN_AI_TOOL_NAME,
  TOOL_TYPE: ATTR_GEN_AI_TOOL_TYPE,
  TOOL_CALL_ID: ATTR_GEN_AI_TOOL_CALL_ID,
  TOOL_ARGUMENTS: ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  TOOL_RESULT: ATTR_GEN_AI_TOOL_CALL_RESULT,
  RUN_ID: 'runledger.run.id',
  RUN_STATUS: 'runledger.run.status',
  RUN_ACTOR: 'runledger.run.actor',
  RUN_OK: 'runledger.run.tool_calls.ok',
  RUN_FAILED: 'runledger.run.tool_calls.failed',
  RUN_CANCELLED: 'runledger.run.tool_calls.cancelled',
  RUN_UNSTORED: 'runledger.run.unstored_steps',
  RUN_REASON: 'runledger.run.termination_reason',
  CANCEL_FROM: 'runledger.cancel.from',
  CANCEL_BY: 'runledger.cancel.by',
  CANCEL_REASON: 'runledger.cancel.reason',
  SEQUENCE: 'runledger.step.sequence',
  STEP_KIND: 'runledger.step.kind',
  ROUND: 'runledger.round',
  COST_USD: 'runledger.llm.cost_usd',
  REQUESTED_TOOLS: 'runledger.llm.requested_tools',
  TOOL_SERVER: 'runledger.tool.server',
  TOOL_OUTCOME: 'runledger.tool.outcome',
  TOOL_WRITES: 'runledger.tool.writes',
  CONTENT_LENGTH: 'runledger.content_length',
  TOKEN_BUDGET: 'runledger.context.token_budget',
  TOKENS_USED: 'runledger.context.tokens_used',
  DROPPED_SOURCES: 'runledger.context.dropped_sources',
  MESSAGE_COUNT: 'runledger.context.message_count',
} as const;

/** `error.type` when a failure's cause was not recorded. */
export const OTHER_ERROR = ERROR_TYPE_VALUE_OTHER;

/**
 * The `gen_ai.tool.type` values (the conventions' examples; 1.45.0 has no constants for them): a
 * tool of an MCP server (a step with `toolServer`) is an `extension`, called by the agent on an
 * external server; one without a server is a `function` the application runs itself.
 */
export const ToolType = {
  EXTENSION: 'extension',
  FUNCTION: 'function',
} as const;

/** The `gen_ai.operation.name` values. */
export const Operation = {
  INVOKE_AGENT: GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
  CHAT: GEN_AI_OPERATION_NAME_VALUE_CHAT,
  EXECUTE_TOOL: GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
} as const;

/** The span event names. */
export const EventName = {
  REQUEST: 'runledger.request',
  BUDGET: 'runledger.context.budget',
  DROPPED: 'runledger.context.dropped',
  ASSEMBLED: 'runledger.context.assembled',
  INTERRUPTED_CALL: 'runledger.tool.interrupted',
  STEP: 'runledger.step',
  UNREADABLE: 'runledger.step.unreadable',
  RUN_PREFIX: 'runledger.run.',
} as const;

/** The instrumentation scope of every span. */
export const SCOPE_NAME = '@runledger/otel';
