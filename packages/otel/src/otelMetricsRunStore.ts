import { metrics, type MeterProvider } from '@opentelemetry/api';
import type { AppendStepInput, RunStore } from '@runledger/trace';
import { reportOnce } from './reportOnce.js';
import { ToolCallMetrics } from './toolCallMetrics.js';

/**
 * Options of {@link otelMetricsRunStore}.
 *
 * @public
 */
export interface OtelMetricsRunStoreOptions {
  /** Where the metrics go; default the global provider (`metrics.getMeterProvider()` of `@opentelemetry/api`). */
  readonly meterProvider?: MeterProvider;
  /** Told when recording a metric threw (the run goes on); default: one line on stderr, the first time. */
  readonly onError?: (error: unknown) => void;
}

/**
 * Wraps a run store so that every tool call recorded into it is also recorded, live, into the
 * duration histograms `gen_ai.execute_tool.duration` and `mcp.client.operation.duration` (unit
 * `s`) of a `MeterProvider` (docs/otel.md, "Metrics").
 *
 * @remarks
 * Every call goes to `store` and its answer is returned as it came; once the store has accepted a
 * `tool` step (a call that ended), its duration is recorded with the attributes of its
 * `execute_tool` span: `gen_ai.operation.name`, `gen_ai.tool.name`, `gen_ai.tool.type`,
 * `runledger.tool.server`, `runledger.tool.outcome` (`ok`, `failed`, `cancelled`) and, on a failed
 * call only, `error.type` (its cause) — a cancel is never an error. `mcp.client.operation.duration`
 * (with `mcp.method.name = tools/call`) holds the calls of an MCP server's tools. Every other
 * member, the optional ones included, is the store's own, so it composes with
 * {@link otelRunStore} either way round. A meter that throws is reported to `onError` and never
 * reaches the run.
 *
 * @throws TypeError when `meterProvider` has no `getMeter` function.
 * @public
 */
export function otelMetricsRunStore(store: RunStore, options: OtelMetricsRunStoreOptions = {}): RunStore {
  const provider = options.meterProvider ?? metrics.getMeterProvider();
  if (typeof (provider as Partial<MeterProvider> | null)?.getMeter !== 'function') {
    throw new TypeError('OtelMetricsRunStoreOptions.meterProvider must be an OpenTelemetry MeterProvider (an object with getMeter())');
  }
  const onError =
    options.onError ?? reportOnce((message) => `runledger otel: recording a metric failed (${message}); the runs are recorded as before`);
  let recorder: ToolCallMetrics | null = null;
  const appendStep = (runId: string, step: AppendStepInput): Promise<number> =>
    store.appendStep(runId, step).then((sequence) => {
      try {
        recorder ??= ToolCallMetrics.of(provider);
        recorder.record(step);
      } catch (error) {
        try {
          onError(error);
        } catch {
          // the listener's own failure stays away from the run too
        }
      }
      return sequence;
    });
  return new Proxy(store, {
    get(target, key) {
      if (key === 'appendStep') return appendStep;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
