// `/metrics` per server and tool on a real SQLite file, read back with a real text-format parser:
// calls by outcome and cause, and a Prometheus histogram of the answered calls' durations whose
// buckets are cumulative, whose `_count` is the answered calls, and that a cancel never enters.
import { describe, expect, it } from 'vitest';
import { readMetrics } from '../src/app/readMetrics.js';
import { renderMetricsView } from '../src/views/metricsView.js';
import { histogramsOf, parsePrometheus, valueOf } from './prometheusParser.js';
import { seedRun } from './seedRun.js';
import { request, started, STORES, T0, useSecurityHarness } from './securityHarness.js';

useSecurityHarness();

const [, openSqlite] = STORES[1]!;
const HISTOGRAM = 'runledger_tool_call_answered_duration_seconds';

describe('/metrics per server and tool on SQLite', () => {
  it('counts calls by tool, outcome and cause and writes a cumulative histogram of the answered calls only', async () => {
    const store = await openSqlite();
    await seedRun(store, {
      configuration: 'a',
      createdAt: T0,
      calls: [
        { server: 'srv', tool: 'get', outcome: 'ok', durationMs: 3 },
        { server: 'srv', tool: 'get', outcome: 'ok', durationMs: 40 },
        { server: 'srv', tool: 'get', outcome: 'ok', durationMs: 700 },
        { server: 'srv', tool: 'get', outcome: 'failed', cause: 'server_error', durationMs: 80 },
        // no answer: not in the histogram
        { server: 'srv', tool: 'get', outcome: 'failed', cause: 'mcp_transport_failure', durationMs: 30_000 },
        { server: 'srv', tool: 'get', outcome: 'cancelled', durationMs: 9_000 },
        { server: 'srv', tool: 'put', outcome: 'cancelled', durationMs: 50 },
        { server: 'srv', tool: 'put', outcome: 'ok', durationMs: 400_000 },
      ],
    });
    const app = await started(store);
    const reply = await request(app, '/metrics');
    expect(reply.status).toBe(200);
    const samples = parsePrometheus(reply.body);
    const calls = (tool: string, outcome: string) => valueOf(samples, 'runledger_tool_calls_by_tool', { server: 'srv', tool, outcome });
    expect([calls('mcp_srv_get', 'ok'), calls('mcp_srv_get', 'failed'), calls('mcp_srv_get', 'cancelled')]).toEqual([3, 2, 1]);
    expect([calls('mcp_srv_put', 'ok'), calls('mcp_srv_put', 'failed'), calls('mcp_srv_put', 'cancelled')]).toEqual([1, 0, 1]);
    const failures = samples.filter((s) => s.family === 'runledger_tool_call_failures_by_tool');
    expect(failures.map((s) => [s.labels['tool'], s.labels['error_type'], s.value]).sort()).toEqual([
      ['mcp_srv_get', 'mcp_transport_failure', 1],
      ['mcp_srv_get', 'server_error', 1],
    ]);
    // a cancel shows only as outcome="cancelled": never with an error label, never in a failure series
    for (const sample of samples) {
      if (sample.labels['outcome'] === 'cancelled') expect(sample.labels['error_type']).toBeUndefined();
    }
    const histograms = histogramsOf(reply.body, HISTOGRAM);
    expect(histograms.map((h) => h.labels['tool']).sort()).toEqual(['mcp_srv_get', 'mcp_srv_put']);
    for (const h of histograms) {
      const counts = h.buckets.map(([, n]) => n);
      for (let i = 1; i < counts.length; i++) expect(counts[i]).toBeGreaterThanOrEqual(counts[i - 1]!);
      expect(h.buckets.at(-1)).toEqual(['+Inf', h.count]);
    }
    const get = histograms.find((h) => h.labels['tool'] === 'mcp_srv_get')!;
    // answered: the 3 ok and the server error; the timeout and the cancel are no answer
    expect(get.count).toBe(4);
    expect(get.sum).toBeCloseTo(0.003 + 0.04 + 0.7 + 0.08, 9);
    const le = (h: typeof get, bound: string) => h.buckets.find(([b]) => b === bound)?.[1];
    expect([le(get, '0.005'), le(get, '0.05'), le(get, '0.1'), le(get, '0.5'), le(get, '1'), le(get, '300')]).toEqual([1, 2, 3, 3, 4, 4]);
    const put = histograms.find((h) => h.labels['tool'] === 'mcp_srv_put')!;
    expect(put.count).toBe(1);
    expect([le(put, '300'), le(put, '+Inf')]).toEqual([0, 1]);
    expect(valueOf(samples, 'runledger_metrics_tools_folded', { server: 'srv' })).toBe(0);
  });

  it('names at most the tool limit per server and folds the rest, calls and histogram, into tool="other"', async () => {
    const store = await openSqlite();
    const tools = ['a', 'b', 'c', 'd', 'other'];
    await seedRun(store, {
      configuration: 'many',
      createdAt: T0,
      calls: tools.flatMap((tool, i) =>
        Array.from({ length: 5 - i }, (_, k) => ({
          server: 's',
          tool,
          outcome: k === 0 && i > 0 ? ('cancelled' as const) : ('ok' as const),
          durationMs: 20,
        })),
      ),
    });
    const text = renderMetricsView(await readMetrics(store, 'all', T0 + 3_600_000, 50, 2));
    const samples = parsePrometheus(text);
    const named = new Set(samples.filter((s) => s.family === 'runledger_tool_calls_by_tool').map((s) => s.labels['tool']));
    expect([...named].sort()).toEqual(['mcp_s_a', 'mcp_s_b', 'other']);
    const ok = (tool: string) => valueOf(samples, 'runledger_tool_calls_by_tool', { server: 's', tool, outcome: 'ok' });
    const cancelled = (tool: string) => valueOf(samples, 'runledger_tool_calls_by_tool', { server: 's', tool, outcome: 'cancelled' });
    // c (3 calls), d (2) and the tool named other (1) are folded: 2 + 1 + 0 ok, 1 + 1 + 1 cancelled
    expect([ok('other'), cancelled('other')]).toEqual([3, 3]);
    expect(valueOf(samples, 'runledger_metrics_tools_folded', { server: 's' })).toBe(3);
    const other = histogramsOf(text, HISTOGRAM).find((h) => h.labels['tool'] === 'other')!;
    expect(other.count).toBe(3);
    await store.close();
  });
});
