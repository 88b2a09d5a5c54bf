// The hand-off of a started call's `execute_tool` span from live export (@runledger/otel) to the
// MCP instrumentation (@runledger/mcp): the one place its key and shape are spelled.

/**
 * The key of the process-wide hand-off map on `globalThis`: from `<server>\n<tool name>` to the
 * calls of that tool started (`tool_start` stored) and not yet claimed, oldest first. A registry
 * symbol, so that two copies of the packages (two `node_modules` folders) meet in one map; every
 * release keeps the key and the shape.
 *
 * @internal
 */
export const TOOL_SPAN_HANDOFF = Symbol.for('@runledger/otel.execute_tool-handoff.v1');

/**
 * Opens the call's `execute_tool` span (a child of its run's span) and returns it; undefined: the
 * call has ended. `toolCallId` is the id the run recorded the call under: an MCP call that names it
 * claims only its own call's span, never another run's.
 *
 * @internal
 */
export type OpenToolSpan<S = unknown> = (() => S | undefined) & { readonly toolCallId?: string };

type Handoff = Map<string, OpenToolSpan[]>;

/** The hand-off map; another copy of the package may have made it (so its reads check the shape). */
function handoff(): Handoff {
  const holder = globalThis as { [TOOL_SPAN_HANDOFF]?: Handoff };
  return (holder[TOOL_SPAN_HANDOFF] ??= new Map());
}

const keyOf = (server: string, toolName: string): string => `${server}\n${toolName}`;

/**
 * Offers a started call's span to the MCP instrumentation.
 *
 * @internal
 */
export function offerToolSpan(server: string, toolName: string, open: OpenToolSpan): void {
  const calls = handoff();
  const key = keyOf(server, toolName);
  const queue = calls.get(key);
  if (queue === undefined) calls.set(key, [open]);
  else queue.push(open);
}

/**
 * Takes back an offer nobody claimed (its call ended, or its run did).
 *
 * @internal
 */
export function withdrawToolSpan(server: string, toolName: string, open: OpenToolSpan): void {
  const calls = handoff();
  const key = keyOf(server, toolName);
  const queue = calls.get(key);
  if (queue === undefined) return;
  const at = queue.indexOf(open);
  if (at >= 0) queue.splice(at, 1);
  if (queue.length === 0) calls.delete(key);
}

/**
 * Claims the offered span of a call: the offer recorded under `toolCallId` when the caller names
 * it (never another call's), else the oldest offer of the tool; undefined: none. Reads the map
 * defensively: another copy of the package may have written it.
 *
 * @internal
 */
export function claimToolSpan(server: string, toolName: string, toolCallId: string | undefined): unknown {
  const calls = (globalThis as { [TOOL_SPAN_HANDOFF]?: unknown })[TOOL_SPAN_HANDOFF];
  if (!(calls instanceof Map)) return undefined;
  const key = keyOf(server, toolName);
  const queue: unknown = calls.get(key);
  if (!Array.isArray(queue)) return undefined;
  while (queue.length > 0) {
    const at =
      toolCallId === undefined
        ? 0
        : queue.findIndex((open: unknown) => (open as { toolCallId?: unknown } | null)?.toolCallId === toolCallId);
    if (at < 0) return undefined;
    const [open] = queue.splice(at, 1) as unknown[];
    if (queue.length === 0) calls.delete(key);
    const span: unknown = typeof open === 'function' ? (open as () => unknown)() : undefined;
    if (span !== undefined) return span;
  }
  return undefined;
}
