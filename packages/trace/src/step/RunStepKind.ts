/**
 * What a run step records: the incoming request, an LLM call, a tool call, the start of a tool
 * call (sent, no answer yet), the context budget, sources dropped from the context, or the
 * assembled messages.
 *
 * @remarks
 * `tool_start` marks a call put on the wire; the `tool` step that ends it repeats its
 * `toolCallId`. Readers meeting a kind they do not know keep it as a plain row.
 *
 * @public
 */
export const RunStepKind = {
  REQUEST: 'request',
  LLM: 'llm',
  TOOL: 'tool',
  TOOL_START: 'tool_start',
  CONTEXT: 'context',
  DROPPED: 'dropped',
  ASSEMBLED: 'assembled',
} as const;

/**
 * One of the step kind strings of {@link (RunStepKind:variable)}.
 *
 * @public
 */
export type RunStepKind = (typeof RunStepKind)[keyof typeof RunStepKind];

/**
 * Every step kind.
 *
 * @public
 */
export const RUN_STEP_KINDS: readonly RunStepKind[] = Object.freeze(Object.values(RunStepKind));

/**
 * Tells whether a value is one of the step kind strings.
 *
 * @public
 */
export function isRunStepKind(value: unknown): value is RunStepKind {
  return typeof value === 'string' && (RUN_STEP_KINDS as readonly string[]).includes(value);
}
