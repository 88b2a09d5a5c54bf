import type { Attributes, Histogram, Meter, MeterProvider } from '@opentelemetry/api';
import { PrivacyLevel, RunStepKind } from '@runledger/trace';
import {
  METRIC_MCP_CLIENT_OPERATION_DURATION,
  ATTR_MCP_METHOD_NAME,
  MCP_METHOD_NAME_VALUE_TOOLS_CALL,
} from '@opentelemetry/semantic-conventions/incubating';
import { Attr, SCOPE_NAME } from './attributes.js';
import { planStepAt, type StepFields } from './mapping.js';
import { SCOPE_VERSION } from './scopeVersion.js';

/** The duration histogram of every ended tool call (runledger's name; the conventions have none for a tool's execution). */
export const EXECUTE_TOOL_DURATION = 'gen_ai.execute_tool.duration';

/** The bucket boundaries (s) the MCP conventions advise for `mcp.client.operation.duration`, used for both. */
const DURATION_BUCKETS_S = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/**
 * The span attributes a tool call's metrics carry: few values each (tool, server, outcome, cause),
 * never the call id or the step's sequence.
 */
const METRIC_ATTRIBUTES = [Attr.OPERATION, Attr.TOOL_NAME, Attr.TOOL_TYPE, Attr.TOOL_SERVER, Attr.TOOL_OUTCOME, Attr.ERROR_TYPE] as const;

/**
 * Records each ended tool call (a `tool` step) into two duration histograms, in seconds, with the
 * attributes of its `execute_tool` span (docs/otel.md, "Metrics"): `gen_ai.execute_tool.duration`
 * for every tool call, `mcp.client.operation.duration` (`mcp.method.name = tools/call`) for a call
 * of an MCP server's tool. The outcome is an attribute on both; `error.type` is there only when
 * the call failed, so a cancel is never an error.
 */
export class ToolCallMetrics {
  readonly #tool: Histogram;
  readonly #mcp: Histogram;

  constructor(meter: Meter) {
    const advice = { explicitBucketBoundaries: DURATION_BUCKETS_S };
    this.#tool = meter.createHistogram(EXECUTE_TOOL_DURATION, {
      unit: 's',
      description: 'Duration of an ended tool call, by tool, server, outcome and (failed calls only) error.type.',
      advice,
    });
    this.#mcp = meter.createHistogram(METRIC_MCP_CLIENT_OPERATION_DURATION, {
      unit: 's',
      description: 'Duration of an ended MCP tools/call, by tool, server, outcome and (failed calls only) error.type.',
      advice,
    });
  }

  /** A meter of this package's scope from a provider. */
  static of(provider: MeterProvider): ToolCallMetrics {
    return new ToolCallMetrics(provider.getMeter(SCOPE_NAME, SCOPE_VERSION));
  }

  /**
   * Records a step when it ends a tool call (a `tool` step with a readable payload) and says
   * whether it did; any other step is left alone.
   */
  record(step: StepFields): boolean {
    if (step.kind !== RunStepKind.TOOL || step.payload === null || !(step.durationMs >= 0)) return false;
    const plan = planStepAt(0, step, PrivacyLevel.METADATA);
    if (plan.type !== 'span') return false;
    const attributes: Attributes = {};
    for (const key of METRIC_ATTRIBUTES) {
      const value = plan.attributes[key];
      if (value !== undefined) attributes[key] = value;
    }
    const seconds = step.durationMs / 1000;
    this.#tool.record(seconds, attributes);
    if (attributes[Attr.TOOL_SERVER] !== undefined) {
      this.#mcp.record(seconds, { ...attributes, [ATTR_MCP_METHOD_NAME]: MCP_METHOD_NAME_VALUE_TOOLS_CALL });
    }
    return true;
  }
}
