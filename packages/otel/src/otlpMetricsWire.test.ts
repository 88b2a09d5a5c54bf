// The tool call histograms over the real wire: otelMetricsRunStore records into a MeterProvider
// whose reader exports with the official OTLP/HTTP protobuf metrics exporter to a receiver on
// 127.0.0.1 that decodes each body with the official OTLP protobuf definitions.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sendLiveSampleMetrics } from './testing/liveSampleMetrics.js';
import { type OtlpReceiver, startOtlpReceiver } from './testing/otlpReceiver.js';

let receiver: OtlpReceiver;

beforeEach(async () => {
  receiver = await startOtlpReceiver();
});

afterEach(async () => {
  await receiver.close();
});

describe('tool call metrics over OTLP/HTTP protobuf', () => {
  it('sends both histograms in seconds, the outcome on every point and error.type on failed calls only', async () => {
    await sendLiveSampleMetrics(`${receiver.url}/v1/metrics`, { 'x-tenant': 'acme' });

    expect(receiver.requests.length).toBeGreaterThan(0);
    for (const request of receiver.requests) {
      expect(request.path).toBe('/v1/metrics');
      expect(request.headers['content-type']).toBe('application/x-protobuf');
      expect(request.headers['x-tenant']).toBe('acme');
    }
    // cumulative: each export (the flush, then the shutdown's) carries every call so far; read the last
    const points = receiver.requests.at(-1)!.points;
    const tool = points.filter((p) => p.metric === 'gen_ai.execute_tool.duration');
    const mcp = points.filter((p) => p.metric === 'mcp.client.operation.duration');
    for (const p of [...tool, ...mcp]) {
      expect(p.unit).toBe('s');
      expect(p.temporality).toBe(2); // cumulative
      expect(p.scope).toBe('@runledger/otel');
      // the bucket boundaries the MCP conventions advise, as the receiver got them
      expect(p.explicitBounds).toEqual([0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]);
      expect(p.bucketCounts).toHaveLength(p.explicitBounds.length + 1);
      expect(p.bucketCounts.reduce((a, b) => a + b, 0)).toBe(p.count);
      const outcome = p.attributes['runledger.tool.outcome'];
      expect(['ok', 'failed', 'cancelled']).toContain(outcome);
      // a cancel is never an error: error.type only on failed calls, and on every one of them
      expect(p.attributes['error.type'] !== undefined, JSON.stringify(p.attributes)).toBe(outcome === 'failed');
    }
    // the sample runs end six tool calls: 1 ok, 3 failed (one of them a function tool's), 2 cancelled
    const count = (list: typeof tool, outcome: string) =>
      list.filter((p) => p.attributes['runledger.tool.outcome'] === outcome).reduce((n, p) => n + p.count, 0);
    expect([count(tool, 'ok'), count(tool, 'failed'), count(tool, 'cancelled')]).toEqual([1, 3, 2]);
    // the MCP histogram: the MCP servers' calls only (not the function tool), as tools/call
    expect([count(mcp, 'ok'), count(mcp, 'failed'), count(mcp, 'cancelled')]).toEqual([1, 2, 2]);
    expect(
      mcp.every((p) => p.attributes['mcp.method.name'] === 'tools/call' && typeof p.attributes['runledger.tool.server'] === 'string'),
    ).toBe(true);
    const cancelled = tool.find((p) => p.attributes['runledger.tool.outcome'] === 'cancelled')!;
    expect(cancelled.sum).toBeCloseTo(0.65025, 6);
    expect(tool.find((p) => p.attributes['error.type'] === 'mcp_timeout')?.sum).toBeCloseTo(3, 6);
  });
});
