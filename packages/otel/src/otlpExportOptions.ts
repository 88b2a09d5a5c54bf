/** What both exports of stored runs (traces and metrics) take alike: where to send, which runs, how long a request may take. */
export interface OtlpExportCommonOptions {
  readonly endpoint: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly runId?: string;
  readonly runIds?: readonly string[];
  readonly since?: number;
  readonly timeoutMs?: number;
}

/** The common options, checked: the signal's URL, the runs (ids, or a time, or neither: all) and the deadline. */
export interface CheckedOtlpExportOptions {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly runIds?: readonly string[];
  readonly since?: number;
  readonly timeoutMs: number;
}

/** The longest `timeoutMs`: the longest delay a Node timer keeps (2^31 - 1 ms; a longer one fires at once). */
const MAX_TIMEOUT_MS = 2_147_483_647;

/** The signal's URL of an endpoint (docs/otel.md): `signalPath` added when it has no path. */
function signalUrl(endpoint: unknown, name: string, signalPath: string): string {
  let url: URL | null = null;
  try {
    if (typeof endpoint === 'string') url = new URL(endpoint);
  } catch {
    // refused below
  }
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new TypeError(`${name}.endpoint must be an http(s) URL, got ${JSON.stringify(endpoint)}`);
  }
  if (url.pathname === '/' || url.pathname === '') url.pathname = signalPath;
  return url.href;
}

/**
 * Checks the options both exports share, each error naming the option as `<name>.<option>`.
 *
 * @throws TypeError from `checkedOtlpExportOptions` for an endpoint that is not an http(s) URL,
 * more than one of `runId`, `runIds` and `since`, or a bad value.
 */
export function checkedOtlpExportOptions(
  options: OtlpExportCommonOptions,
  name: string,
  signalPath: '/v1/traces' | '/v1/metrics',
): CheckedOtlpExportOptions {
  const url = signalUrl(options.endpoint, name, signalPath);
  const chosen = (['runId', 'runIds', 'since'] as const).filter((key) => options[key] !== undefined);
  if (chosen.length > 1) throw new TypeError(`${name}: give at most one of runId, runIds and since, got ${chosen.join(' and ')}`);
  if (options.runId !== undefined && (typeof options.runId !== 'string' || options.runId === '')) {
    throw new TypeError(`${name}.runId must be a non-empty string, got ${JSON.stringify(options.runId)}`);
  }
  if (
    options.runIds !== undefined &&
    (!Array.isArray(options.runIds) || options.runIds.some((id) => typeof id !== 'string' || id === ''))
  ) {
    throw new TypeError(`${name}.runIds must be an array of non-empty strings`);
  }
  if (options.since !== undefined && !Number.isFinite(options.since)) {
    throw new TypeError(`${name}.since must be a time in ms since the epoch, got ${String(options.since)}`);
  }
  const timeoutMs = options.timeoutMs ?? 10_000;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS)
    throw new TypeError(`${name}.timeoutMs must be an integer from 1 to ${MAX_TIMEOUT_MS} (ms), got ${String(timeoutMs)}`);
  for (const [key, value] of Object.entries(options.headers ?? {})) {
    if (typeof value !== 'string') throw new TypeError(`${name}.headers["${key}"] must be a string, got ${typeof value}`);
  }
  const runIds = options.runId !== undefined ? [options.runId] : options.runIds;
  return {
    url,
    headers: { ...options.headers },
    timeoutMs,
    ...(runIds === undefined ? {} : { runIds }),
    ...(options.since === undefined ? {} : { since: options.since }),
  };
}
