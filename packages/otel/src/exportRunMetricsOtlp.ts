import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import type { ResourceMetrics } from '@opentelemetry/sdk-metrics';
import type { RunStore } from '@runledger/trace';
import { DeadlineOtlpExporter, type OtlpSignalExporter } from './DeadlineOtlpExporter.js';
import { exportRunMetrics } from './exportRunMetrics.js';
import { checkedOtlpExportOptions } from './otlpExportOptions.js';

/**
 * Options of {@link exportRunMetricsOtlp}. Give at most one of `runId`, `runIds` and `since`; none
 * exports the calls of every run.
 *
 * @public
 */
export interface ExportRunMetricsOtlpOptions {
  /**
   * The OTLP/HTTP endpoint: a URL without a path (`http://127.0.0.1:4318`) gets `/v1/metrics`;
   * one with a path is used as it is.
   */
  readonly endpoint: string;
  /** HTTP headers of every request (e.g. `authorization`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Export the calls of this run only. */
  readonly runId?: string;
  /** Export the calls of these runs. */
  readonly runIds?: readonly string[];
  /** Export the calls of the runs created at or after this time (ms since the epoch). */
  readonly since?: number;
  /** The `service.name` of the metrics' resource; default `runledger`. */
  readonly serviceName?: string;
  /**
   * The least call time between two points sent, in ms (0 to 2 147 483 647); default 60 000: one
   * point per minute of the range at most, as a scrape every minute would have seen the totals,
   * and the last. 0 sends a point after every run that ended a call.
   */
  readonly pointEveryMs?: number;
  /**
   * How long one request may take, in ms, from its start to its complete answer, the exporter's
   * retries included (1 to 2 147 483 647); default 10 000. An endpoint still answering then fails
   * the export, its connection closed.
   */
  readonly timeoutMs?: number;
  /** Told after each run, exported or skipped. */
  readonly onProgress?: (progress: ExportRunMetricsOtlpProgress) => void;
}

/**
 * Where a metrics export stands after one run.
 *
 * @public
 */
export interface ExportRunMetricsOtlpProgress {
  /** The run just handled. */
  readonly runId: string;
  /** False when it was skipped (still running). */
  readonly exported: boolean;
  /** Its ended tool calls. */
  readonly calls: number;
  /** Runs handled so far, exported or skipped. */
  readonly runsSeen: number;
  /** Runs whose calls were read so far. */
  readonly runsExported: number;
  /** Runs still running, left out so far. */
  readonly runsSkipped: number;
  /** Ended tool calls counted so far. */
  readonly callsExported: number;
  /** Requests sent so far. */
  readonly requests: number;
}

/**
 * What {@link exportRunMetricsOtlp} did.
 *
 * @public
 */
export interface ExportRunMetricsOtlpResult {
  /** The URL the metrics were sent to. */
  readonly url: string;
  /** Runs selected. */
  readonly runsSeen: number;
  /** Finished runs whose calls were read (one without a tool call sends nothing). */
  readonly runsExported: number;
  /** Runs still running, left out. */
  readonly runsSkipped: number;
  /** Ended tool calls counted into the histograms. */
  readonly callsExported: number;
  /** Requests sent: one per run that ended a tool call. */
  readonly requests: number;
}

/**
 * Exports the tool calls of stored runs, from any store, as the OpenTelemetry duration histograms
 * of {@link otelMetricsRunStore} (`gen_ai.execute_tool.duration`, `mcp.client.operation.duration`)
 * through the official OTLP/HTTP (protobuf) metrics exporter: a backfill of a metrics backend.
 *
 * @remarks
 * The same instruments, unit (`s`), bucket boundaries and attributes as the live path; the outcome
 * is an attribute on every point and `error.type` is on failed calls only, so a cancel is never an
 * error. Temporality is cumulative: the selected finished runs are read oldest first (runs still
 * running are skipped), and after each run that ended a call the totals so far are sent, every
 * point's start time the creation time of the range's first finished run and its time the end of
 * the latest call sent, both within the range; so each series rises across the range as the live
 * path's would, and a repeated export sends the same points with the same times. Requests are
 * awaited one at a time; a refused one rejects naming the HTTP status (`the endpoint answered
 * HTTP 503 Service Unavailable (6 attempts)`), one without a complete answer within `timeoutMs`
 * rejects then; the runs before it were sent.
 *
 * @throws TypeError from `exportRunMetricsOtlp` for an endpoint that is not an http(s) URL, more
 * than one of `runId`, `runIds` and `since`, or a bad option value; Error when a run id is not in
 * the store, the endpoint refused a request, or a request had no complete answer within
 * `timeoutMs`.
 * @public
 */
export async function exportRunMetricsOtlp(store: RunStore, options: ExportRunMetricsOtlpOptions): Promise<ExportRunMetricsOtlpResult> {
  const checked = checkedOtlpExportOptions(options, 'ExportRunMetricsOtlpOptions', '/v1/metrics');
  const serviceName = options.serviceName ?? 'runledger';
  if (typeof serviceName !== 'string' || serviceName === '') {
    throw new TypeError(`ExportRunMetricsOtlpOptions.serviceName must be a non-empty string, got ${JSON.stringify(serviceName)}`);
  }
  const pointEveryMs = options.pointEveryMs ?? 60_000;
  if (typeof pointEveryMs !== 'number' || !Number.isInteger(pointEveryMs) || pointEveryMs < 0 || pointEveryMs > 2_147_483_647) {
    throw new TypeError(
      `ExportRunMetricsOtlpOptions.pointEveryMs must be a whole number of ms from 0 to 2147483647, got ${JSON.stringify(pointEveryMs)}`,
    );
  }
  const exporter = new DeadlineOtlpExporter<ResourceMetrics>({
    url: checked.url,
    headers: checked.headers,
    timeoutMs: checked.timeoutMs,
    create: (config) => new OTLPMetricExporter(config) as unknown as OtlpSignalExporter<ResourceMetrics>,
  });
  try {
    const counts = await exportRunMetrics(store, exporter, {
      ...(checked.runIds === undefined ? {} : { runIds: checked.runIds }),
      ...(checked.since === undefined ? {} : { since: checked.since }),
      serviceName,
      pointEveryMs,
      ...(options.onProgress === undefined ? {} : { onRun: options.onProgress }),
    });
    return { url: checked.url, ...counts };
  } finally {
    await exporter.shutdown();
  }
}
