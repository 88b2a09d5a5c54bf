import { isPrivacyLevel, PrivacyLevel, type RunStore } from '@runledger/trace';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { DeadlineOtlpExporter } from './DeadlineOtlpExporter.js';
import { exportRuns } from './exportRuns.js';
import { checkedOtlpExportOptions } from './otlpExportOptions.js';

/**
 * Options of {@link exportRunsOtlp}. Give at most one of `runId`, `runIds` and `since`; none
 * exports every run.
 *
 * @public
 */
export interface ExportRunsOtlpOptions {
  /**
   * The OTLP/HTTP endpoint: a URL without a path (`http://127.0.0.1:4318`) gets `/v1/traces`;
   * one with a path is used as it is.
   */
  readonly endpoint: string;
  /** HTTP headers of every request (e.g. `authorization`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Export this run only. */
  readonly runId?: string;
  /** Export these runs, in this order. */
  readonly runIds?: readonly string[];
  /** Export the runs created at or after this time (ms since the epoch). */
  readonly since?: number;
  /** What of each step's content the spans carry; default `metadata`. */
  readonly privacy?: PrivacyLevel;
  /** The `service.name` of the spans' resource; default `runledger`. */
  readonly serviceName?: string;
  /**
   * How long one request may take, in ms, from its start to its complete answer, the exporter's
   * retries included (1 to 2 147 483 647); default 10 000. An endpoint still answering then fails
   * the export, its connection closed.
   */
  readonly timeoutMs?: number;
  /** Told after each run, exported or skipped. */
  readonly onProgress?: (progress: ExportRunsOtlpProgress) => void;
}

/**
 * Where an export stands after one run.
 *
 * @public
 */
export interface ExportRunsOtlpProgress {
  /** The run just handled. */
  readonly runId: string;
  /** False when it was skipped (still running). */
  readonly exported: boolean;
  /** Its spans. */
  readonly spans: number;
  readonly runsSeen: number;
  readonly runsExported: number;
  readonly runsSkipped: number;
  readonly spansExported: number;
}

/**
 * What {@link exportRunsOtlp} did.
 *
 * @public
 */
export interface ExportRunsOtlpResult {
  /** The URL the spans were sent to. */
  readonly url: string;
  readonly runsSeen: number;
  readonly runsExported: number;
  /** Runs still running, left out. */
  readonly runsSkipped: number;
  readonly spansExported: number;
}

/**
 * Exports stored runs from any store as OpenTelemetry traces through the official OTLP/HTTP
 * (protobuf) exporter, with the mapping of docs/otel.md.
 *
 * @remarks
 * Safe to repeat: the trace id is derived from the run id and each span id from the run id and
 * the step's sequence, so a run exported twice is the same trace with the same spans. Runs still
 * running are skipped. Runs go one at a time, each request awaited; a request the endpoint
 * refuses, after the official exporter's retries, rejects naming the status it answered (`the
 * endpoint answered HTTP 503 Service Unavailable (6 attempts)`), and one without a complete answer
 * within `timeoutMs` rejects then, its connection closed; the runs before it were sent.
 *
 * @throws TypeError from `exportRunsOtlp` for an endpoint that is not an http(s) URL, more than
 * one of `runId`, `runIds` and `since`, or a bad option value; Error when a run id is not in the
 * store, the endpoint refused a request, or a request had no complete answer within `timeoutMs`.
 * @public
 */
export async function exportRunsOtlp(store: RunStore, options: ExportRunsOtlpOptions): Promise<ExportRunsOtlpResult> {
  const checked = checkedOtlpExportOptions(options, 'ExportRunsOtlpOptions', '/v1/traces');
  const privacy = options.privacy ?? PrivacyLevel.METADATA;
  if (!isPrivacyLevel(privacy)) {
    throw new TypeError(
      `ExportRunsOtlpOptions.privacy must be one of "none", "metadata", "redacted", "full", got ${JSON.stringify(privacy)}`,
    );
  }
  const exporter = new DeadlineOtlpExporter<ReadableSpan[]>({
    url: checked.url,
    headers: checked.headers,
    timeoutMs: checked.timeoutMs,
    create: (config) => new OTLPTraceExporter(config),
  });
  try {
    const counts = await exportRuns(store, exporter, {
      ...(checked.runIds === undefined ? {} : { runIds: checked.runIds }),
      ...(checked.since === undefined ? {} : { since: checked.since }),
      privacy,
      serviceName: options.serviceName ?? 'runledger',
      ...(options.onProgress === undefined ? {} : { onRun: options.onProgress }),
    });
    return { url: checked.url, ...counts };
  } finally {
    await exporter.shutdown();
  }
}
