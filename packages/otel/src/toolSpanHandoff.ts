import type { Span } from '@opentelemetry/api';

/**
 * Where live export offers the `execute_tool` span of each call on the wire to the MCP
 * instrumentation of `@runledger/mcp` (McpCallTracing.ts), so that a call traced by both is one
 * span: a process-wide map under a `Symbol.for` key, from `<server>\n<tool name>` to the calls of
 * that tool started (`tool_start` stored) and not yet claimed, oldest first. Each entry opens the
 * call's span (a child of the run's span) and returns it, or undefined when the call has ended. The
 * two packages share no import: this key and shape are the whole contract, kept the same on both
 * sides.
 */
export const TOOL_SPAN_HANDOFF = Symbol.for('@runledger/otel.execute_tool-handoff.v1');

/**
 * Opens the call's `execute_tool` span for the MCP instrumentation; undefined: the call is gone.
 * `toolCallId` is the id the run recorded the call under: an MCP call that names it
 * (`McpExecuteOptions.toolCallId`) claims only its own call's span, never another run's.
 */
export type OpenToolSpan = (() => Span | undefined) & { readonly toolCallId?: string };

type Handoff = Map<string, OpenToolSpan[]>;

function handoff(): Handoff {
  const holder = globalThis as { [TOOL_SPAN_HANDOFF]?: Handoff };
  return (holder[TOOL_SPAN_HANDOFF] ??= new Map());
}

const keyOf = (server: string, toolName: string): string => `${server}\n${toolName}`;

/** Offers a started call's span to the MCP instrumentation. */
export function offerToolSpan(server: string, toolName: string, open: OpenToolSpan): void {
  const calls = handoff();
  const key = keyOf(server, toolName);
  const queue = calls.get(key);
  if (queue === undefined) calls.set(key, [open]);
  else queue.push(open);
}

/** Takes back an offer nobody claimed (its call ended, or its run did). */
export function withdrawToolSpan(server: string, toolName: string, open: OpenToolSpan): void {
  const calls = handoff();
  const key = keyOf(server, toolName);
  const queue = calls.get(key);
  if (queue === undefined) return;
  const at = queue.indexOf(open);
  if (at >= 0) queue.splice(at, 1);
  if (queue.length === 0) calls.delete(key);
}
