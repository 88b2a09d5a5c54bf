import type { HrTime } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, type MetricData, MetricReader, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { RunStore } from '@runledger/trace';
import { type OtlpSignalExporter, sendAwaited } from './DeadlineOtlpExporter.js';
import { hrTimeOf } from './hrTimeOf.js';
import { readStepRecords, type RunSelection, selectRuns } from './storedRuns.js';
import { ToolCallMetrics } from './toolCallMetrics.js';

/** Which runs' calls to export, and how. */
export interface ExportRunMetricsSelection extends RunSelection {
  readonly serviceName: string;
  /** The least call time between two points sent (ms); 0 sends one after every run that ended a call. */
  readonly pointEveryMs: number;
  readonly onRun?: (run: { readonly runId: string; readonly exported: boolean; readonly calls: number } & ExportRunMetricsCounts) => void;
}

/** What a metrics export did. */
export interface ExportRunMetricsCounts {
  readonly runsSeen: number;
  readonly runsExported: number;
  readonly runsSkipped: number;
  /** Ended tool calls recorded into the histograms and sent. */
  readonly callsExported: number;
  /** Requests sent: one point in time each, at least `pointEveryMs` of call time apart, and the last. */
  readonly requests: number;
}

/** A reader that collects when asked and never on its own: the export decides when a point is cut. */
class CollectOnDemandReader extends MetricReader {
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

/** The collected metrics with every point's window set to `start`..`end` (the stored calls' times, not now). */
function retimed(metrics: ResourceMetrics, start: HrTime, end: HrTime): ResourceMetrics {
  return {
    resource: metrics.resource,
    scopeMetrics: metrics.scopeMetrics.map((scope) => ({
      scope: scope.scope,
      metrics: scope.metrics.map(
        (metric) =>
          ({ ...metric, dataPoints: metric.dataPoints.map((point) => ({ ...point, startTime: start, endTime: end })) }) as MetricData,
      ),
    })),
  };
}

/**
 * Exports the tool calls of finished stored runs as the histograms of the live path
 * ({@link ToolCallMetrics}: the same instruments, attributes and bucket boundaries), cumulative,
 * through a metrics exporter.
 *
 * @remarks
 * The selected runs go oldest first (by creation time, then id); runs still running are skipped.
 * Each run's `tool` steps are recorded into one cumulative aggregation; after a run whose last call
 * ended at least `pointEveryMs` after the point sent before (or after the range's start), and after
 * the last run, the totals so far are collected and sent (one request, awaited): a point in time as
 * a scrape at that moment would have seen it, not one per run (a month of 100,000 runs is about
 * 43,000 requests at one a minute, at most). Every point's start time is the creation time of the
 * first finished run of the range, its time the end (the step's time) of the latest call in it, so
 * each series grows monotonically across the range and a repeated export sends the same points.
 *
 * @throws Error from `exportRunMetrics` when a run id is not in the store, a collection failed, or
 * the exporter failed (the runs before it were sent).
 */
export async function exportRunMetrics(
  store: RunStore,
  exporter: Pick<OtlpSignalExporter<ResourceMetrics>, 'export'>,
  selection: ExportRunMetricsSelection,
): Promise<ExportRunMetricsCounts> {
  const runs: { readonly id: string; readonly createdAt: number; readonly running: boolean }[] = [];
  for await (const run of selectRuns(store, selection))
    runs.push({ id: run.id, createdAt: run.createdAt, running: run.status === 'running' });
  runs.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

  const reader = new CollectOnDemandReader();
  const provider = new MeterProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: selection.serviceName }),
    readers: [reader],
  });
  const recorder = ToolCallMetrics.of(provider);
  let runsSeen = 0;
  let runsExported = 0;
  let runsSkipped = 0;
  let callsExported = 0;
  let requests = 0;
  let start: HrTime | null = null;
  let lastEnd = Number.NEGATIVE_INFINITY;
  let sentAt = Number.NEGATIVE_INFINITY;
  let unsent = false;
  /** Collects the totals so far and sends them as one point in time, `at` (ms). */
  const send = async (at: number) => {
    const { resourceMetrics, errors } = await reader.collect();
    if (errors.length > 0) throw new Error(`collecting the histograms failed: ${String(errors[0])}`, { cause: errors[0] });
    await sendAwaited(exporter, retimed(resourceMetrics, start!, hrTimeOf(at)));
    requests++;
    unsent = false;
  };
  try {
    for (const run of runs) {
      runsSeen++;
      if (run.running) {
        runsSkipped++;
        selection.onRun?.({ runId: run.id, exported: false, calls: 0, runsSeen, runsExported, runsSkipped, callsExported, requests });
        continue;
      }
      if (start === null) {
        start = hrTimeOf(run.createdAt);
        sentAt = run.createdAt;
      }
      let calls = 0;
      let end = lastEnd;
      for await (const step of readStepRecords(store, run.id)) {
        if (!recorder.record(step)) continue;
        calls++;
        end = Math.max(end, step.createdAt);
      }
      if (calls > 0) {
        callsExported += calls;
        lastEnd = end;
        unsent = true;
        if (end - sentAt >= selection.pointEveryMs) {
          await send(end);
          sentAt = end;
        }
      }
      runsExported++;
      selection.onRun?.({ runId: run.id, exported: true, calls, runsSeen, runsExported, runsSkipped, callsExported, requests });
    }
    if (unsent) await send(lastEnd);
  } finally {
    await provider.shutdown();
  }
  return { runsSeen, runsExported, runsSkipped, callsExported, requests };
}
