// `/metrics` of `runledger serve` on each store the app runs on (in memory, a SQLite file,
// PostgreSQL): the figures of a seeded ledger read back with a real text-format parser, the app's
// access policy, and a cancel that is never an error.
import { startRun } from '@runledger/trace';
import { describe, expect, it } from 'vitest';
import { parsePrometheus, valueOf } from './prometheusParser.js';
import { seedRun } from './seedRun.js';
import { describeSecurityHeaders, request, started, STORES, T0, TOKEN, useSecurityHarness } from './securityHarness.js';

useSecurityHarness();

describe.each(STORES)('/metrics on %s', (_name, open) => {
  it('reports calls by outcome and cause, answered calls, quantiles, flaky, calls on the wire and runs by status', async () => {
    const store = await open();
    // flaky: 4 ok, 6 server errors, 3 cancels (never in its failure rate), 2 invalid arguments (not charged)
    await seedRun(store, {
      configuration: 'a',
      createdAt: T0,
      calls: [
        ...Array.from({ length: 4 }, () => ({ server: 'flaky"srv\\', tool: 'get', outcome: 'ok' as const, durationMs: 100 })),
        ...Array.from({ length: 6 }, () => ({
          server: 'flaky"srv\\',
          tool: 'get',
          outcome: 'failed' as const,
          cause: 'server_error',
          durationMs: 100,
        })),
        ...Array.from({ length: 3 }, () => ({ server: 'flaky"srv\\', tool: 'get', outcome: 'cancelled' as const, durationMs: 9_000 })),
        ...Array.from({ length: 2 }, () => ({
          server: 'flaky"srv\\',
          tool: 'put',
          outcome: 'failed' as const,
          cause: 'invalid_arguments',
        })),
      ],
    });
    await seedRun(store, {
      configuration: 'b',
      createdAt: T0 + 1000,
      finish: 'cancelled',
      calls: [
        ...Array.from({ length: 10 }, () => ({ server: 'steady', tool: 'read', outcome: 'ok' as const, durationMs: 2000 })),
        { server: 'steady', tool: 'read', outcome: 'cancelled' as const },
      ],
    });
    const live = await startRun(store, { configuration: 'live', heartbeatMs: 0, spoolDir: false });
    await live.trace.recordToolStart({ toolName: 'mcp_steady_read', toolServer: 'steady', toolArguments: {}, round: 1 });
    try {
      const app = await started(store);
      const reply = await request(app, '/metrics');
      expect(reply.status).toBe(200);
      expect(reply.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
      const samples = parsePrometheus(reply.body);
      const flaky = 'flaky"srv\\';
      const calls = (server: string, outcome: string) => valueOf(samples, 'runledger_tool_calls', { server, outcome });
      expect([calls(flaky, 'ok'), calls(flaky, 'failed'), calls(flaky, 'cancelled')]).toEqual([4, 8, 3]);
      expect([calls('steady', 'ok'), calls('steady', 'failed'), calls('steady', 'cancelled')]).toEqual([10, 0, 1]);
      const failures = (server: string, error_type: string) => valueOf(samples, 'runledger_tool_call_failures', { server, error_type });
      expect(failures(flaky, 'server_error')).toBe(6);
      expect(failures(flaky, 'invalid_arguments')).toBe(2);
      expect(samples.find((s) => s.labels['error_type'] === 'invalid_arguments')?.labels['charged']).toBe('false');
      expect(samples.find((s) => s.labels['error_type'] === 'server_error')?.labels['charged']).toBe('true');
      expect(samples.filter((s) => s.family === 'runledger_tool_call_failures' && s.labels['server'] === 'steady')).toEqual([]);
      // invalid_arguments is an error answer: answered with the 10 ok and server errors
      expect(valueOf(samples, 'runledger_tool_calls_answered', { server: flaky })).toBe(12);
      expect(valueOf(samples, 'runledger_server_failure_rate', { server: flaky })).toBeCloseTo(0.6, 10);
      expect(valueOf(samples, 'runledger_server_failure_rate', { server: 'steady' })).toBe(0);
      expect(valueOf(samples, 'runledger_server_flaky', { server: flaky })).toBe(1);
      expect(valueOf(samples, 'runledger_server_flaky', { server: 'steady' })).toBe(0);
      // the cancels' 9 s are no answer: the quantiles are over the answered 100 ms
      const p95 = valueOf(samples, 'runledger_tool_call_duration_seconds', { server: flaky, quantile: '0.95' })!;
      expect(p95).toBeGreaterThan(0.09);
      expect(p95).toBeLessThan(0.11);
      expect(valueOf(samples, 'runledger_tool_call_duration_seconds', { server: 'steady', quantile: '0.5' })).toBeCloseTo(2, 1);
      expect(valueOf(samples, 'runledger_tool_calls_open', { server: 'steady' })).toBe(1);
      expect(valueOf(samples, 'runledger_runs', { status: 'running' })).toBe(1);
      expect(valueOf(samples, 'runledger_runs', { status: 'completed' })).toBe(1);
      expect(valueOf(samples, 'runledger_runs', { status: 'cancelled' })).toBe(1);
      expect(valueOf(samples, 'runledger_runs', { status: 'failed' })).toBe(0);
      expect(valueOf(samples, 'runledger_metrics_servers_folded', {})).toBe(0);
      // a cancel is an outcome, never an error
      for (const sample of samples) {
        if (sample.labels['outcome'] === 'cancelled') expect(sample.labels['error_type'], JSON.stringify(sample)).toBeUndefined();
      }
      // the window: the seeded calls are long before the last 24 hours of now
      const day = parsePrometheus((await request(app, '/metrics?window=24h')).body);
      expect(day.filter((s) => s.family === 'runledger_tool_calls' && s.value !== 0)).toEqual([]);
      expect(valueOf(day, 'runledger_tool_calls_open', { server: 'steady' })).toBe(1);
      expect(day.some((s) => s.labels['server'] === 'other')).toBe(false);
      expect(valueOf(day, 'runledger_runs', { status: 'completed' })).toBe(1);
    } finally {
      await live.fail(new Error('test over'));
    }
  });
});

describe('/metrics under the access policy', () => {
  it('needs the token as every page does, and answers with it as a Bearer header or cookie', async () => {
    const [, open] = STORES[1]!;
    const store = await open();
    await seedRun(store, { configuration: 'a', createdAt: T0, calls: [{ server: 's', tool: 't', outcome: 'ok' }] });
    const app = await started(store, { token: TOKEN });
    const bare = await request(app, '/metrics');
    expect(bare.status).toBe(401);
    expect(bare.body).not.toContain('runledger_');
    expect((await request(app, '/metrics', { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    const bearer = await request(app, '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(bearer.status).toBe(200);
    expect(valueOf(parsePrometheus(bearer.body), 'runledger_tool_calls', { server: 's', outcome: 'ok' })).toBe(1);
    const cookie = await request(app, '/metrics', { headers: { cookie: `runledger_token=${TOKEN}` } });
    expect(cookie.status).toBe(200);
  });

  it('answers only to a loopback Host without a token, refuses other methods and names a bad window', async () => {
    const [, open] = STORES[0]!;
    const app = await started(await open());
    const rebound = await request(app, '/metrics', { headers: { host: 'evil.example:80' } });
    expect(rebound.status).toBe(403);
    expect(rebound.body).not.toContain('runledger_');
    const post = await request(app, '/metrics', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers['allow']).toBe('GET, HEAD');
    const bad = await request(app, '/metrics?window=1y');
    expect(bad.status).toBe(400);
    expect(bad.body).toContain('window must be one of 24h, 7d, all, got "1y"');
  });
});

describeSecurityHeaders([200, 400, 401, 403, 405]);
