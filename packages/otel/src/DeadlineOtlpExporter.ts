import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Agent, ClientRequest, IncomingMessage } from 'node:http';
import { type ExportResult, ExportResultCode } from '@opentelemetry/core';

/** One of the official OTLP/HTTP exporters (traces: spans; metrics: a `ResourceMetrics`), as this wrapper uses it. */
export interface OtlpSignalExporter<T> {
  export(items: T, resultCallback: (result: ExportResult) => void): void;
  shutdown(): Promise<void>;
  forceFlush(): Promise<void>;
}

/**
 * Hands `items` to an exporter and settles when it reports.
 *
 * @throws Error from `sendAwaited` with the exporter's error when it reported a failure.
 */
export function sendAwaited<T>(exporter: Pick<OtlpSignalExporter<T>, 'export'>, items: T): Promise<void> {
  return new Promise((resolve, reject) => {
    exporter.export(items, (result) => {
      if (result.code === ExportResultCode.SUCCESS) resolve();
      else reject(result.error ?? new Error('the exporter reported a failure without an error'));
    });
  });
}

/** What the official exporters take from this wrapper (a part of their Node configuration). */
export interface OtlpSignalExporterConfig {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly timeoutMillis: number;
  readonly httpAgentOptions: (protocol: string) => Promise<Agent>;
}

/** Options of a {@link DeadlineOtlpExporter}. */
export interface DeadlineOtlpExporterOptions<T> {
  /** The signal's URL (with its path). */
  readonly url: string;
  /** Makes the official exporter of the signal from its configuration (URL, headers, timeout, agent). */
  readonly create: (config: OtlpSignalExporterConfig) => OtlpSignalExporter<T>;
  readonly headers: Readonly<Record<string, string>>;
  /** How long one request may take, its retries included, in ms (1 to 2^31 - 1). */
  readonly timeoutMs: number;
}

/** Node's own diagnostics channels of its HTTP client (documented, Node 20+). */
const REQUEST_START = 'http.client.request.start';
const RESPONSE = 'http.client.response.finish';

const plural = (n: number): string => (n === 1 ? '1 attempt' : `${n} attempts`);

/**
 * An official OTLP/HTTP (protobuf) exporter (of traces or of metrics) with an overall deadline per request and failures
 * said by their HTTP status.
 *
 * @remarks
 * The official exporter's timeout is the socket's idle time, so an endpoint that drips its answer
 * keeps a request open forever, and a retryable refusal (429, 502, 503, 504) ends as "Export failed
 * with retryable status". Here every request goes through an agent of this exporter's own, watched
 * on Node's HTTP client diagnostics channels: an export that has no complete answer `timeoutMs`
 * after it began fails then and its requests are destroyed (their sockets closed, any retry the
 * exporter still starts destroyed at once); a refusal names the last status the endpoint answered
 * and how many attempts the exporter made.
 */
export class DeadlineOtlpExporter<T> implements OtlpSignalExporter<T> {
  readonly #timeoutMs: number;
  readonly #exporter: OtlpSignalExporter<T>;
  #agent: Agent | null = null;
  readonly #open = new Set<ClientRequest>();
  #attempts = 0;
  #lastAnswer: string | null = null;
  /** Set from a deadline until the exporter reports the export it ended: its requests are destroyed. */
  #givenUp: Error | null = null;

  readonly #onRequest = (message: unknown): void => {
    const { request } = message as { request: ClientRequest & { agent?: unknown } };
    if (this.#agent === null || request.agent !== this.#agent) return;
    this.#attempts++;
    if (this.#givenUp !== null) {
      request.destroy(this.#givenUp);
      return;
    }
    this.#open.add(request);
    request.once('close', () => this.#open.delete(request));
  };

  readonly #onResponse = (message: unknown): void => {
    const { request, response } = message as { request: ClientRequest & { agent?: unknown }; response: IncomingMessage };
    if (this.#agent === null || request.agent !== this.#agent) return;
    this.#lastAnswer = `HTTP ${response.statusCode ?? '?'} ${response.statusMessage ?? ''}`.trimEnd();
  };

  constructor(options: DeadlineOtlpExporterOptions<T>) {
    this.#timeoutMs = options.timeoutMs;
    this.#exporter = options.create({
      url: options.url,
      headers: { ...options.headers },
      timeoutMillis: options.timeoutMs,
      // loaded when the first request goes, as the exporter advises (instrumentation may wrap the module)
      httpAgentOptions: async (protocol) => {
        const { Agent } = protocol === 'https:' ? await import('node:https') : await import('node:http');
        this.#agent ??= new Agent({ keepAlive: true });
        return this.#agent;
      },
    });
    subscribe(REQUEST_START, this.#onRequest);
    subscribe(RESPONSE, this.#onResponse);
  }

  export(items: T, resultCallback: (result: ExportResult) => void): void {
    const attemptsBefore = this.#attempts;
    this.#lastAnswer = null;
    let reported = false;
    const report = (result: ExportResult): void => {
      if (reported) return;
      reported = true;
      clearTimeout(timer);
      resultCallback(result);
    };
    const timer = setTimeout(() => {
      const last = this.#lastAnswer === null ? '' : `, last status ${this.#lastAnswer}`;
      const error = new Error(`no complete answer within ${this.#timeoutMs} ms (${plural(this.#attempts - attemptsBefore)}${last})`);
      this.#givenUp = error;
      report({ code: ExportResultCode.FAILED, error });
      for (const request of this.#open) request.destroy(error);
    }, this.#timeoutMs);
    this.#exporter.export(items, (result) => {
      this.#givenUp = null;
      if (result.code === ExportResultCode.SUCCESS) {
        report(result);
        return;
      }
      const attempts = plural(this.#attempts - attemptsBefore);
      const status = /^HTTP [3-5]\d\d\b/.exec(this.#lastAnswer ?? '') === null ? null : this.#lastAnswer;
      const error =
        status !== null
          ? new Error(`the endpoint answered ${status} (${attempts})`)
          : new Error(`${result.error?.message ?? 'the exporter reported a failure without an error'} (${attempts})`, {
              cause: result.error,
            });
      report({ code: ExportResultCode.FAILED, error });
    });
  }

  async shutdown(): Promise<void> {
    try {
      await this.#exporter.shutdown();
    } finally {
      unsubscribe(REQUEST_START, this.#onRequest);
      unsubscribe(RESPONSE, this.#onResponse);
      this.#agent?.destroy();
    }
  }

  forceFlush(): Promise<void> {
    return this.#exporter.forceFlush();
  }
}
