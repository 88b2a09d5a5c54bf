import type { Attributes, AttributeValue, Histogram, Meter, MeterProvider } from '@opentelemetry/api';
import { ToolOutcome } from '@runledger/core';
import { RunStepKind, stepOutcome } from '@runledger/trace';
import {
  METRIC_MCP_CLIENT_OPERATION_DURATION,
  ATTR_MCP_METHOD_NAME,
  MCP_METHOD_NAME_VALUE_TOOLS_CALL,
} from '@opentelemetry/semantic-conventions/incubating';
import { Attr, Operation, SCOPE_NAME, ToolType } from './attributes.js';
import { errorTypeOf, type StepFields, str } from './mapping.js';
import { SCOPE_VERSION } from './scopeVersion.js';

/** The duration histogram of every ended tool call (runledger's name; the conventions have none for a tool's execution). */
export const EXECUTE_TOOL_DURATION = 'gen_ai.execute_tool.duration';

/** The bucket boundaries (s) the MCP conventions advise for `mcp.client.operation.duration`, used for both. */
const DURATION_BUCKETS_S = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/**
 * How many attribute sets are kept for reuse: the SDK's default cardinality limit of an
 * instrument (past it the SDK folds new sets into one overflow point anyway); a set past it is
 * built for its one call.
 */
const MAX_KEPT = 2000;

/** The attributes of one kind of call on each histogram; `mcp` null: not an MCP server's tool. */
interface CallAttributes {
  readonly tool: Attributes;
  readonly mcp: Attributes | null;
}

/** A frozen attribute object with its keys in the order the SDK sorts them in before hashing them (cheapest on sorted input). */
function sortedAttributes(entries: [string, AttributeValue][]): Attributes {
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const attributes: Attributes = {};
  for (const [key, value] of entries) attributes[key] = value;
  return Object.freeze(attributes);
}

/**
 * The attributes of an ended call (those of its `execute_tool` span that have few values: never
 * the call id or the sequence): the operation, the tool's name and type, its server, the outcome
 * when the payload states one and `error.type` on a failed call only. `mcp` adds
 * `mcp.method.name = tools/call` for a call of an MCP server's tool.
 */
function callAttributes(
  name: string | undefined,
  server: string | undefined,
  outcome: ToolOutcome | '',
  errorType: string,
): CallAttributes {
  const entries: [string, AttributeValue][] = [
    [Attr.OPERATION, Operation.EXECUTE_TOOL],
    [Attr.TOOL_TYPE, server === undefined ? ToolType.FUNCTION : ToolType.EXTENSION],
  ];
  if (name !== undefined) entries.push([Attr.TOOL_NAME, name]);
  if (server !== undefined) entries.push([Attr.TOOL_SERVER, server]);
  if (outcome !== '') entries.push([Attr.TOOL_OUTCOME, outcome]);
  if (outcome === ToolOutcome.FAILED) entries.push([Attr.ERROR_TYPE, errorType]);
  const tool = sortedAttributes([...entries]);
  const mcp = server === undefined ? null : sortedAttributes([...entries, [ATTR_MCP_METHOD_NAME, MCP_METHOD_NAME_VALUE_TOOLS_CALL]]);
  return { tool, mcp };
}

/**
 * Records each ended tool call (a `tool` step) into two duration histograms, in seconds, with the
 * attributes of its `execute_tool` span (docs/otel.md, "Metrics"): `gen_ai.execute_tool.duration`
 * for every tool call, `mcp.client.operation.duration` (`mcp.method.name = tools/call`) for a call
 * of an MCP server's tool. The outcome is an attribute on both; `error.type` is there only when
 * the call failed, so a cancel is never an error.
 *
 * @remarks
 * The attributes are read from the four payload fields they depend on (none of them content, so
 * the privacy level never changes them) and one frozen object per (outcome or error type, server,
 * tool) is kept and handed to the SDK for every call of that kind: nothing is built per call.
 */
export class ToolCallMetrics {
  readonly #tool: Histogram;
  readonly #mcp: Histogram;
  /** Outcome (or, for a failed call, its error type: a closed vocabulary apart from the outcomes) → server → tool ('' when absent) → attributes. */
  readonly #kept = new Map<string, Map<string, Map<string, CallAttributes>>>();
  #keptCount = 0;

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
    const attributes = this.#attributesOf(step.payload);
    const seconds = step.durationMs / 1000;
    this.#tool.record(seconds, attributes.tool);
    if (attributes.mcp !== null) this.#mcp.record(seconds, attributes.mcp);
    return true;
  }

  /** The attributes of a `tool` step's payload: the kept object of its kind of call. */
  #attributesOf(payload: Readonly<Record<string, unknown>>): CallAttributes {
    const name = str(payload['toolName']);
    const server = str(payload['toolServer']);
    const outcome = stepOutcome(payload);
    const errorType = outcome === ToolOutcome.FAILED ? errorTypeOf(payload) : '';
    const first = errorType === '' ? outcome : errorType;
    const kept = this.#kept
      .get(first)
      ?.get(server ?? '')
      ?.get(name ?? '');
    if (kept !== undefined) return kept;
    const attributes = callAttributes(name, server, outcome, errorType);
    if (this.#keptCount < MAX_KEPT) {
      let byServer = this.#kept.get(first);
      if (byServer === undefined) this.#kept.set(first, (byServer = new Map()));
      let byName = byServer.get(server ?? '');
      if (byName === undefined) byServer.set(server ?? '', (byName = new Map()));
      byName.set(name ?? '', attributes);
      this.#keptCount++;
    }
    return attributes;
  }
}
