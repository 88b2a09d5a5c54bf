// A real OTLP/HTTP receiver for tests: listens on 127.0.0.1, decodes each request body with the
// official OTLP protobuf definitions (opentelemetry-proto, as compiled by protobufjs into the
// generated root that @opentelemetry/otlp-transformer shipped up to 0.216, installed here under the
// alias `otlp-proto-root`; later releases encode by hand and ship no decoder), and keeps the spans
// (`/v1/traces`) and the histogram points (`/v1/metrics`).
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';

interface ProtoType {
  decode(buffer: Uint8Array): unknown;
  toObject(message: unknown, options: Record<string, unknown>): Record<string, unknown>;
}
const root = createRequire(import.meta.url)('otlp-proto-root/build/src/generated/root.js') as {
  opentelemetry: {
    proto: {
      collector: {
        trace: { v1: { ExportTraceServiceRequest: ProtoType } };
        metrics: { v1: { ExportMetricsServiceRequest: ProtoType } };
      };
    };
  };
};
const Request = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
const MetricsRequest = root.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;

/** An attribute value as decoded: string, boolean, number (int64 as number), or a list of them. */
export type ReceivedValue = string | boolean | number | ReceivedValue[] | null;

export interface ReceivedEvent {
  readonly name: string;
  readonly timeUnixNano: bigint;
  readonly attributes: Record<string, ReceivedValue>;
}

/** One span as it came over the wire. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** '' for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  /** The OTLP enum: 1 internal, 2 server, 3 client. */
  readonly kind: number;
  readonly startTimeUnixNano: bigint;
  readonly endTimeUnixNano: bigint;
  readonly attributes: Record<string, ReceivedValue>;
  readonly events: readonly ReceivedEvent[];
  /** The OTLP status code: 0 unset, 1 ok, 2 error. */
  readonly status: { readonly code: number; readonly message: string };
  readonly scope: string;
  readonly resource: Record<string, ReceivedValue>;
}

/** One data point of a histogram metric as it came over the wire. */
export interface ReceivedHistogramPoint {
  readonly metric: string;
  readonly unit: string;
  /** The OTLP enum: 1 delta, 2 cumulative. */
  readonly temporality: number;
  readonly scope: string;
  readonly attributes: Record<string, ReceivedValue>;
  readonly count: number;
  readonly sum: number;
  /** Per bucket (not cumulative), one more than `explicitBounds`. */
  readonly bucketCounts: readonly number[];
  readonly explicitBounds: readonly number[];
  /** The start of the point's window and its time, ns since the epoch. */
  readonly startTimeUnixNano: bigint;
  readonly timeUnixNano: bigint;
  readonly resource: Record<string, ReceivedValue>;
}

export interface ReceivedRequest {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The spans of a `/v1/traces` request. */
  readonly spans: readonly ReceivedSpan[];
  /** The histogram points of a `/v1/metrics` request. */
  readonly points: readonly ReceivedHistogramPoint[];
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>` (no path). */
  readonly url: string;
  readonly requests: ReceivedRequest[];
  /** Every span received so far, in arrival order. */
  spans(): ReceivedSpan[];
  /** Every histogram point received so far, in arrival order. */
  points(): ReceivedHistogramPoint[];
  /** Answers the next `count` requests with this HTTP status (then 200 again). */
  failNext(count: number, status: number): void;
  close(): Promise<void>;
}

const hex = (bytes: unknown): string => (bytes instanceof Uint8Array ? Buffer.from(bytes).toString('hex') : '');

function value(any: Record<string, unknown> | undefined): ReceivedValue {
  if (any === undefined || any === null) return null;
  if ('stringValue' in any) return any['stringValue'] as string;
  if ('boolValue' in any) return any['boolValue'] as boolean;
  if ('intValue' in any) return Number(any['intValue']);
  if ('doubleValue' in any) return any['doubleValue'] as number;
  if ('arrayValue' in any) return ((any['arrayValue'] as { values?: Record<string, unknown>[] }).values ?? []).map(value);
  return null;
}

function attributes(list: unknown): Record<string, ReceivedValue> {
  const out: Record<string, ReceivedValue> = {};
  for (const kv of (list as { key: string; value?: Record<string, unknown> }[] | undefined) ?? []) out[kv.key] = value(kv.value);
  return out;
}

/** Decodes one ExportTraceServiceRequest body into spans. */
export function decodeTraceRequest(body: Uint8Array): ReceivedSpan[] {
  const message = Request.toObject(Request.decode(body), { longs: String, bytes: Uint8Array, defaults: false, oneofs: false });
  const spans: ReceivedSpan[] = [];
  for (const rs of (message['resourceSpans'] as Record<string, unknown>[] | undefined) ?? []) {
    const resource = attributes((rs['resource'] as { attributes?: unknown } | undefined)?.attributes);
    for (const ss of (rs['scopeSpans'] as Record<string, unknown>[] | undefined) ?? []) {
      const scope = ((ss['scope'] as { name?: string } | undefined)?.name ?? '') as string;
      for (const s of (ss['spans'] as Record<string, unknown>[] | undefined) ?? []) {
        const status = (s['status'] as { code?: number; message?: string } | undefined) ?? {};
        spans.push({
          traceId: hex(s['traceId']),
          spanId: hex(s['spanId']),
          parentSpanId: hex(s['parentSpanId']),
          name: s['name'] as string,
          kind: (s['kind'] as number | undefined) ?? 0,
          startTimeUnixNano: BigInt((s['startTimeUnixNano'] as string | undefined) ?? '0'),
          endTimeUnixNano: BigInt((s['endTimeUnixNano'] as string | undefined) ?? '0'),
          attributes: attributes(s['attributes']),
          events: ((s['events'] as Record<string, unknown>[] | undefined) ?? []).map((e) => ({
            name: e['name'] as string,
            timeUnixNano: BigInt((e['timeUnixNano'] as string | undefined) ?? '0'),
            attributes: attributes(e['attributes']),
          })),
          status: { code: status.code ?? 0, message: status.message ?? '' },
          scope,
          resource,
        });
      }
    }
  }
  return spans;
}

const list = (value: unknown) => (value as Record<string, unknown>[] | undefined) ?? [];

/** Decodes one ExportMetricsServiceRequest body into its histograms' data points. */
export function decodeMetricsRequest(body: Uint8Array): ReceivedHistogramPoint[] {
  const message = MetricsRequest.toObject(MetricsRequest.decode(body), { longs: String, defaults: false, oneofs: false });
  const points: ReceivedHistogramPoint[] = [];
  for (const rm of list(message['resourceMetrics'])) {
    const resource = attributes((rm['resource'] as { attributes?: unknown } | undefined)?.attributes);
    for (const sm of list(rm['scopeMetrics'])) {
      const scope = ((sm['scope'] as { name?: string } | undefined)?.name ?? '') as string;
      for (const m of list(sm['metrics'])) {
        const histogram = m['histogram'] as { dataPoints?: unknown; aggregationTemporality?: number } | undefined;
        if (histogram === undefined) continue;
        for (const p of list(histogram.dataPoints)) {
          points.push({
            metric: m['name'] as string,
            unit: (m['unit'] as string | undefined) ?? '',
            temporality: histogram.aggregationTemporality ?? 0,
            scope,
            attributes: attributes(p['attributes']),
            count: Number(p['count'] ?? 0),
            sum: Number(p['sum'] ?? 0),
            bucketCounts: ((p['bucketCounts'] as string[] | undefined) ?? []).map(Number),
            explicitBounds: (p['explicitBounds'] as number[] | undefined) ?? [],
            startTimeUnixNano: BigInt((p['startTimeUnixNano'] as string | undefined) ?? '0'),
            timeUnixNano: BigInt((p['timeUnixNano'] as string | undefined) ?? '0'),
            resource,
          });
        }
      }
    }
  }
  return points;
}

/** Starts a receiver on 127.0.0.1 (a free port). */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const requests: ReceivedRequest[] = [];
  let failures = 0;
  let failStatus = 503;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (failures > 0) {
        failures--;
        res.writeHead(failStatus, { 'content-type': 'text/plain' }).end('refused by the test receiver');
        return;
      }
      try {
        const body = Buffer.concat(chunks);
        const metrics = (req.url ?? '').endsWith('/metrics');
        const spans = metrics ? [] : decodeTraceRequest(body);
        const points = metrics ? decodeMetricsRequest(body) : [];
        requests.push({ path: req.url ?? '', headers: req.headers, spans, points });
        // an empty Export(Trace|Metrics)ServiceResponse
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      } catch (error) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    spans: () => requests.flatMap((r) => r.spans),
    points: () => requests.flatMap((r) => r.points),
    failNext(count, status) {
      failures = count;
      failStatus = status;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
