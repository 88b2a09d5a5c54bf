import type { Tracer, TracerProvider } from '@opentelemetry/api';

/**
 * Turns on OpenTelemetry spans for the registry's tool calls (`tracing` of
 * {@link McpServerRegistryOptions}). Give exactly one of `tracer` and `tracerProvider`.
 *
 * @remarks
 * Each {@link McpTool.execute} then makes one CLIENT span named `tools/call <remote tool>`, as
 * the OpenTelemetry semantic conventions for MCP (development status) describe it, with
 * `gen_ai.tool.name` = the tool's local name ({@link McpTool.name}, as a run records it) and
 * `runledger.tool.outcome` = `ok` | `failed` | `cancelled`. A failed call has status ERROR and
 * `error.type` = its failure cause; a cancelled call is never ERROR (status UNSET). The span is a
 * child of the context active when `execute` is called. When the call was recorded as started on
 * a run that `@runledger/otel`'s live export (`otelRunStore`) writes, no span of its own is made:
 * the MCP attributes go on that run's `execute_tool` span for the call, so each call is one span
 * (docs/mcp.md). Each server listing of
 * {@link McpServerRegistry.tools} makes a `tools/list` span. No argument, answer or error text is
 * recorded. Needs the peer dependency `@opentelemetry/api`, which is loaded only when
 * this option is given. See docs/mcp.md, "Tracing MCP calls with OpenTelemetry".
 *
 * @public
 */
export interface McpTracingOptions {
  /** The tracer to make the spans with. */
  readonly tracer?: Tracer;
  /** A provider to get the tracer `@runledger/mcp` from, when no `tracer` is given. */
  readonly tracerProvider?: TracerProvider;
  /**
   * Also send the trace context to the server: the configured propagator (W3C `traceparent`,
   * `tracestate` by default) writes it into the `params._meta` of each `tools/call`, so that an
   * instrumented server makes its span a child of the call's span. Default: false.
   */
  readonly propagateContext?: boolean;
}

/**
 * The problems of a `tracing` option, each naming the field and the rule; none when it is right.
 *
 * @internal
 */
export function tracingOptionProblems(value: unknown): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return ['options.tracing must be an object with a tracer or a tracerProvider'];
  }
  const { tracer, tracerProvider, propagateContext } = value as Record<string, unknown>;
  const problems: string[] = [];
  if ((tracer === undefined) === (tracerProvider === undefined)) {
    problems.push('options.tracing must have exactly one of tracer and tracerProvider');
  }
  if (tracer !== undefined && !hasMethod(tracer, 'startSpan')) {
    problems.push('options.tracing.tracer must be an OpenTelemetry Tracer (an object with startSpan)');
  }
  if (tracerProvider !== undefined && !hasMethod(tracerProvider, 'getTracer')) {
    problems.push('options.tracing.tracerProvider must be an OpenTelemetry TracerProvider (an object with getTracer)');
  }
  if (propagateContext !== undefined && typeof propagateContext !== 'boolean') {
    problems.push('options.tracing.propagateContext must be a boolean');
  }
  return problems;
}

function hasMethod(value: unknown, name: string): boolean {
  return typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>)[name] === 'function';
}
