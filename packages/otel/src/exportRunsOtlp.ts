import { isPrivacyLevel, PrivacyLevel, type RunStore } from '@runledger/trace';
import { DeadlineOtlpExporter } from './DeadlineOtlpExporter.js';
import { exportRuns } from './exportRuns.js';

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

/** The longest `timeoutMs`: the longest delay a Node timer keeps (2^31 - 1 ms; a longer one fires at once). */
const MAX_TIMEOUT_MS = 2_147_483_647;

/** The traces URL of an endpoint (docs/otel.md): `/v1/traces` added when it has no path. */
function tracesUrl(endpoint: unknown): string {
  let url: URL | null = null;
  try {
    if (typeof endpoint === 'string') url = new URL(endpoint);
  } catch {
    // refused below
  }
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new TypeError(`ExportRunsOtlpOptions.endpoint must be an http(s) URL, got ${JSON.stringify(endpoint)}`);
  }
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/v1/traces';
  return url.href;
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
  const url = tracesUrl(options.endpoint);
  const chosen = (['runId', 'runIds', 'since'] as const).filter((key) => options[key] !== undefined);
  if (chosen.length > 1)
    throw new TypeError(`ExportRunsOtlpOptions: give at most one of runId, runIds and since, got ${chosen.join(' and ')}`);
  if (options.runId !== undefined && (typeof options.runId !== 'string' || options.runId === '')) {
    throw new TypeError(`ExportRunsOtlpOptions.runId must be a non-empty string, got ${JSON.stringify(options.runId)}`);
  }
  if (
    options.runIds !== undefined &&
    (!Array.isArray(options.runIds) || options.runIds.some((id) => typeof id !== 'string' || id === ''))
  ) {
    throw new TypeError('ExportRunsOtlpOptions.runIds must be an array of non-empty strings');
  }
  if (options.since !== undefined && !Number.isFinite(options.since)) {
    throw new TypeError(`ExportRunsOtlpOptions.since must be a time in ms since the epoch, got ${String(options.since)}`);
  }
  const privacy = options.privacy ?? PrivacyLevel.METADATA;
  if (!isPrivacyLevel(privacy)) {
    throw new TypeError(
      `ExportRunsOtlpOptions.privacy must be one of "none", "metadata", "redacted", "full", got ${JSON.stringify(privacy)}`,
    );
  }
  const timeoutMs = options.timeoutMs ?? 10_000;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS)
    throw new TypeError(`ExportRunsOtlpOptions.timeoutMs must be an integer from 1 to ${MAX_TIMEOUT_MS} (ms), got ${String(timeoutMs)}`);
  for (const [key, value] of Object.entries(options.headers ?? {})) {
    if (typeof value !== 'string') throw new TypeError(`ExportRunsOtlpOptions.headers["${key}"] must be a string, got ${typeof value}`);
  }
  const exporter = new DeadlineOtlpExporter({ url, headers: { ...options.headers }, timeoutMs });
  try {
    const counts = await exportRuns(store, exporter, {
      ...(options.runId !== undefined ? { runIds: [options.runId] } : options.runIds !== undefined ? { runIds: options.runIds } : {}),
      ...(options.since === undefined ? {} : { since: options.since }),
      privacy,
      serviceName: options.serviceName ?? 'runledger',
      ...(options.onProgress === undefined ? {} : { onRun: options.onProgress }),
    });
    return { url, ...counts };
  } finally {
    await exporter.shutdown();
  }
}
