// `runledger export otlp` and `runledger demo --otlp` against a real OTLP/HTTP receiver on
// 127.0.0.1 (decoding with the official OTLP protobuf definitions), from a real SQLite file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SqliteRunStore } from '@runledger/store-sqlite';
import { type RunStore, startRun } from '@runledger/trace';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_RUN_COUNT } from '../src/demo/runDemo.js';
import { CLI_COMMANDS } from '../src/cli/cliCommands.js';
import { programUsage } from '../src/cli/usage.js';
import { exportOtlp } from '../src/commands/exportOtlp.js';
import { cli, runBin } from './cliHelpers.js';

// The receiver and the sample runs of @runledger/otel's own tests (its src/testing, which the
// package does not ship), loaded by URL: they sit outside this package's TypeScript root.
interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly name: string;
  readonly attributes: Record<string, unknown>;
  readonly status: { readonly code: number };
}
interface ReceivedHistogramPoint {
  readonly metric: string;
  readonly temporality: number;
  readonly attributes: Record<string, unknown>;
  readonly count: number;
  readonly sum: number;
  readonly explicitBounds: readonly number[];
  readonly startTimeUnixNano: bigint;
  readonly timeUnixNano: bigint;
}
interface OtlpReceiver {
  readonly url: string;
  readonly requests: { readonly path: string; readonly headers: Record<string, string | string[] | undefined> }[];
  spans(): ReceivedSpan[];
  points(): ReceivedHistogramPoint[];
  failNext(count: number, status: number): void;
  close(): Promise<void>;
}
interface SampleRuns {
  readonly completed: string;
  readonly cancelled: string;
  readonly failed: string;
}
const testing = (file: string) => pathToFileURL(fileURLToPath(new URL(`../../../packages/otel/src/testing/${file}`, import.meta.url))).href;
const { startOtlpReceiver } = (await import(testing('otlpReceiver.ts'))) as { startOtlpReceiver(): Promise<OtlpReceiver> };
const { recordSampleRuns, steppingClock } = (await import(testing('sampleRuns.ts'))) as {
  recordSampleRuns(store: RunStore, clock: () => number): Promise<SampleRuns>;
  steppingClock(): () => number;
};
interface FaultyEndpoint {
  readonly url: string;
  readonly requests: number;
  readonly openConnections: number;
  close(): Promise<void>;
}
const { startFaultyEndpoint } = (await import(testing('faultyEndpoint.ts'))) as {
  startFaultyEndpoint(fault: { drip: 'status-line' | 'body' } | { status: number; retryAfter?: string }): Promise<FaultyEndpoint>;
};

let dir: string;
let db: string;
let runs: SampleRuns;
let runningId: string;
let receiver: OtlpReceiver;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'runledger-export-otlp-'));
  db = join(dir, 'runs.db');
  const store = await SqliteRunStore.open({ path: db });
  try {
    runs = await recordSampleRuns(store, steppingClock());
    runningId = (await startRun(store, { configuration: 'still-running', heartbeatMs: 0, spoolDir: false })).id;
  } finally {
    await store.close();
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeEach(async () => {
  receiver = await startOtlpReceiver();
});
afterEach(() => receiver.close());

const hex = (runId: string) => runId.replaceAll('-', '');

describe('runledger export otlp', () => {
  it('sends every finished run of a SQLite file as a trace, a progress line per run on stderr; the same ids when repeated', async () => {
    const result = await cli(
      ['export', 'otlp', '--endpoint', receiver.url, '--db', db, '--headers', 'x-tenant=acme,authorization=Bearer%20t0k'],
      dir,
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`exported 3 runs (11 spans) from SQLite ${db} to ${receiver.url}/v1/traces; 1 still running, skipped\n`);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(4);
    expect(
      lines.filter((l) => /^runledger export otlp: \[\d\] run [0-9a-f-]{36}: \d+ spans sent \(\d runs?, \d+ spans so far\)$/.test(l)),
    ).toHaveLength(3);
    // the first run sent is one run, the others more (issue 40 item 6: never "1 runs")
    expect(lines.filter((l) => l.includes(' spans sent (1 run, '))).toHaveLength(1);
    expect(lines.filter((l) => / spans sent \([23] runs, /.test(l))).toHaveLength(2);
    expect(lines).toContain(
      `runledger export otlp: [${lines.findIndex((l) => l.includes(runningId)) + 1}] run ${runningId}: skipped, still running`,
    );
    expect(receiver.requests.every((r) => r.headers['x-tenant'] === 'acme' && r.headers['authorization'] === 'Bearer t0k')).toBe(true);
    const spans = receiver.spans();
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([runs.completed, runs.cancelled, runs.failed].map(hex)));
    const tools = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'execute_tool');
    expect(tools.map((s) => [s.attributes['runledger.tool.outcome'], s.status.code]).sort()).toEqual([
      ['cancelled', 0],
      ['cancelled', 0],
      ['failed', 2],
      ['failed', 2],
      ['failed', 2],
      ['ok', 0], // success leaves the status UNSET (GenAI conventions)
    ]);
    // metadata: no argument or result text left the process
    expect(JSON.stringify(spans.map((s) => s.attributes))).not.toContain('ada@example.com');

    receiver.requests.length = 0;
    const again = await cli(['export', 'otlp', '--endpoint', receiver.url, '--db', db], dir);
    expect(again.code).toBe(0);
    expect(
      receiver
        .spans()
        .map((s) => [s.traceId, s.spanId])
        .sort(),
    ).toEqual(spans.map((s) => [s.traceId, s.spanId]).sort());
  });

  it('exports one run with --run, the runs since a time with --since, and prints --json in its frozen shape', async () => {
    const one = await cli(['export', 'otlp', '--endpoint', receiver.url, '--db', db, '--run', runs.failed, '--json'], dir);
    expect(one.code).toBe(0);
    expect(exportOtlp.jsonOutput.parse(JSON.parse(one.stdout))).toEqual({
      url: `${receiver.url}/v1/traces`,
      runsSeen: 1,
      runsExported: 1,
      runsSkipped: 0,
      spansExported: 2,
    });
    expect(new Set(receiver.spans().map((s) => s.traceId))).toEqual(new Set([hex(runs.failed)]));
    // in words: one run is "1 run", never "1 runs"; none is "0 runs (0 spans)"
    const oneText = await cli(['export', 'otlp', '--endpoint', receiver.url, '--db', db, '--run', runs.failed], dir);
    expect(oneText.stdout).toBe(`exported 1 run (2 spans) from SQLite ${db} to ${receiver.url}/v1/traces\n`);
    expect(oneText.stderr).toMatch(/: 2 spans sent \(1 run, 2 spans so far\)\n$/);
    const noneText = await cli(['export', 'otlp', '--endpoint', receiver.url, '--db', db, '--since', '2999-01-01'], dir);
    expect(noneText.stdout).toBe(`exported 0 runs (0 spans) from SQLite ${db} to ${receiver.url}/v1/traces\n`);
    const none = await cli(['export', 'otlp', '--endpoint', receiver.url, '--db', db, '--since', '2999-01-01', '--json'], dir);
    expect(JSON.parse(none.stdout)).toMatchObject({ runsSeen: 0, runsExported: 0 });
    const recent = await cli(['export', 'otlp', '--endpoint', receiver.url, '--db', db, '--since', '5m', '--json'], dir);
    expect(JSON.parse(recent.stdout)).toMatchObject({ runsSeen: 1, runsSkipped: 1 }); // the sample runs are from 2025
  });

  it('takes a unique prefix of the run id as --run (the short id the app shows); a too short one exits 1 naming the rule', async () => {
    const one = await cli(
      ['export', 'otlp', '--endpoint', receiver.url, '--db', db, '--run', runs.failed.slice(0, 8).toUpperCase(), '--json'],
      dir,
    );
    expect(one.stderr).not.toContain('there is no run');
    expect(one.code).toBe(0);
    expect(JSON.parse(one.stdout)).toMatchObject({ runsSeen: 1, runsExported: 1 });
    expect(new Set(receiver.spans().map((s) => s.traceId))).toEqual(new Set([hex(runs.failed)]));
    const short = await cli(['export', 'otlp', '--endpoint', receiver.url, '--db', db, '--run', runs.failed.slice(0, 7)], dir);
    expect(short.code).toBe(1);
    expect(short.stderr).toContain('give the full id or a prefix of at least 8 characters');
  });

  it('says what is wrong: a bad endpoint or flags (exit 2), an unknown run or a refusing endpoint (exit 1)', async () => {
    const bad = await cli(['export', 'otlp', '--endpoint', 'localhost:4318', '--db', db], dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      'runledger export otlp: --endpoint must be an http(s) URL such as http://127.0.0.1:4318, got "localhost:4318"\n',
    );
    const both = await cli(['export', 'otlp', '--endpoint', receiver.url, '--db', db, '--run', runs.failed, '--since', '1h'], dir);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('runledger export otlp: give either --run or --since, not both');
    const missing = await cli(['export', 'otlp', '--db', db], dir);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--endpoint <url> (the OTLP/HTTP endpoint, e.g. http://127.0.0.1:4318) is required');
    const unknown = await cli(
      ['export', 'otlp', '--endpoint', receiver.url, '--db', db, '--run', '00000000-0000-4000-8000-000000000000'],
      dir,
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(`runledger export otlp: there is no run "00000000-0000-4000-8000-000000000000" in SQLite ${db}\n`);
    receiver.failNext(1, 400);
    const refused = await cli(['export', 'otlp', '--endpoint', receiver.url, '--db', db, '--run', runs.failed], dir);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`runledger export otlp: the spans could not be sent to ${receiver.url}: `);
  });

  it('works from the real binary', async () => {
    const result = await runBin(['export', 'otlp', '--endpoint', `${receiver.url}/v1/traces`, '--db', db, '--run', runs.cancelled], dir);
    expect(result.stderr).toMatch(/^runledger export otlp: \[1\] run [0-9a-f-]{36}: 2 spans sent/);
    expect(result.code).toBe(0);
    expect(
      receiver
        .spans()
        .map((s) => s.name)
        .sort(),
    ).toEqual(['execute_tool mcp_slow_export', 'invoke_agent report-agent']);
  });
});

describe('runledger export otlp --metrics', () => {
  const count = (points: ReceivedHistogramPoint[], metric: string, outcome: string, key: 'count' | 'sum') =>
    points.filter((p) => p.metric === metric && p.attributes['runledger.tool.outcome'] === outcome).reduce((n, p) => n + p[key], 0);

  it('sends the stored calls of a SQLite file as the live histograms to /v1/metrics, not the traces; a progress line per run', async () => {
    const result = await cli(['export', 'otlp', '--metrics', '--endpoint', receiver.url, '--db', db, '--headers', 'x-tenant=acme'], dir);
    expect(result.stderr.split('\n').filter((l) => / tool calls? counted \(\d runs?, \d tool calls? so far\)$/.test(l))).toHaveLength(3);
    expect(result.stderr).toContain(`run ${runningId}: skipped, still running`);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      `exported the metrics of 3 runs (6 tool calls) from SQLite ${db} to ${receiver.url}/v1/metrics; 1 still running, skipped\n`,
    );
    expect(receiver.spans()).toEqual([]);
    expect(receiver.requests.every((r) => r.path === '/v1/metrics' && r.headers['x-tenant'] === 'acme')).toBe(true);
    // cumulative: the last request holds every call of the range
    const points = (receiver.requests.at(-1) as unknown as { points: ReceivedHistogramPoint[] }).points;
    const tool = 'gen_ai.execute_tool.duration';
    expect(['ok', 'failed', 'cancelled'].map((o) => count(points, tool, o, 'count'))).toEqual([1, 3, 2]);
    expect(['ok', 'failed', 'cancelled'].map((o) => count(points, 'mcp.client.operation.duration', o, 'count'))).toEqual([1, 2, 2]);
    expect(count(points, tool, 'cancelled', 'sum')).toBeCloseTo(0.65025, 9);
    expect(count(points, tool, 'failed', 'sum')).toBeCloseTo(3.0383, 9);
    for (const p of points) {
      expect(p.temporality).toBe(2);
      expect(p.explicitBounds).toEqual([0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]);
      // a cancel is never an error: error.type on failed calls only
      expect('error.type' in p.attributes).toBe(p.attributes['runledger.tool.outcome'] === 'failed');
    }
    // every point within the stored range (the sample runs are from 2025-12-01), none at the time of the export
    const store = await SqliteRunStore.open({ path: db });
    try {
      const first = (await store.getRun(runs.completed))!.createdAt;
      const last = (await store.getRun(runs.failed))!.finishedAt!;
      for (const p of receiver.points()) {
        expect(p.startTimeUnixNano).toBe(BigInt(first) * 1_000_000n);
        expect(p.timeUnixNano >= p.startTimeUnixNano && p.timeUnixNano <= BigInt(last) * 1_000_000n).toBe(true);
      }
    } finally {
      await store.close();
    }
  });

  it('takes --run, --since and --json (spansExported 0, callsExported the calls)', async () => {
    const one = await cli(
      ['export', 'otlp', '--metrics', '--endpoint', receiver.url, '--db', db, '--run', runs.cancelled.slice(0, 8), '--json'],
      dir,
    );
    expect(one.code).toBe(0);
    expect(exportOtlp.jsonOutput.parse(JSON.parse(one.stdout))).toEqual({
      url: `${receiver.url}/v1/metrics`,
      runsSeen: 1,
      runsExported: 1,
      runsSkipped: 0,
      spansExported: 0,
      callsExported: 1,
    });
    const cancelled = receiver.points();
    expect(cancelled.map((p) => [p.metric, p.attributes['runledger.tool.outcome'], 'error.type' in p.attributes]).sort()).toEqual([
      ['gen_ai.execute_tool.duration', 'cancelled', false],
      ['mcp.client.operation.duration', 'cancelled', false],
    ]);
    const none = await cli(['export', 'otlp', '--metrics', '--endpoint', receiver.url, '--db', db, '--since', '2999-01-01', '--json'], dir);
    expect(JSON.parse(none.stdout)).toEqual({
      url: `${receiver.url}/v1/metrics`,
      runsSeen: 0,
      runsExported: 0,
      runsSkipped: 0,
      spansExported: 0,
      callsExported: 0,
    });
    // the traces' --json has no callsExported
    const traces = await cli(['export', 'otlp', '--endpoint', receiver.url, '--db', db, '--run', runs.cancelled, '--json'], dir);
    expect(JSON.parse(traces.stdout)).not.toHaveProperty('callsExported');
  });

  it('sends a point per --point-every ms of call time: by default (60000) the sample range is one request, with 0 one per run', async () => {
    const byDefault = await cli(['export', 'otlp', '--metrics', '--endpoint', receiver.url, '--db', db], dir);
    expect(byDefault.code).toBe(0);
    expect(receiver.requests).toHaveLength(1);
    const everyRun = await cli(['export', 'otlp', '--metrics', '--point-every', '0', '--endpoint', receiver.url, '--db', db], dir);
    expect(everyRun.code).toBe(0);
    expect(receiver.requests).toHaveLength(1 + 3);
    // cumulative either way: the last request of each export holds every call of the range
    const last = (i: number) => (receiver.requests[i] as unknown as { points: ReceivedHistogramPoint[] }).points;
    const tool = 'gen_ai.execute_tool.duration';
    expect(['ok', 'failed', 'cancelled'].map((o) => count(last(3), tool, o, 'count'))).toEqual(
      ['ok', 'failed', 'cancelled'].map((o) => count(last(0), tool, o, 'count')),
    );
    const traces = await cli(['export', 'otlp', '--point-every', '0', '--endpoint', receiver.url, '--db', db], dir);
    expect(traces.code).toBe(2);
    expect(traces.stderr).toContain('runledger export otlp: --point-every goes with --metrics only (traces are sent a run at a time)');
    const bad = await cli(['export', 'otlp', '--metrics', '--point-every', '-5', '--endpoint', receiver.url, '--db', db], dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('runledger export otlp: --point-every must be an integer from 0 to 2147483647, got "-5"');
    expect(receiver.requests).toHaveLength(4);
  });

  it('refuses --privacy with --metrics (exit 2, naming both flags and the rule); a refusing endpoint exits 1 naming the metrics', async () => {
    const both = await cli(['export', 'otlp', '--metrics', '--privacy', 'full', '--endpoint', receiver.url, '--db', db], dir);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain(
      'runledger export otlp: --privacy does not go with --metrics (the histograms carry no step text, only tool, server, outcome and error.type)',
    );
    expect(receiver.requests).toHaveLength(0);
    receiver.failNext(1, 400);
    const refused = await cli(['export', 'otlp', '--metrics', '--endpoint', receiver.url, '--db', db, '--run', runs.failed], dir);
    expect(refused.code).toBe(1);
    // the run's calls were counted; the one point in time of the range (sent at its end) was refused
    expect(refused.stderr).toBe(
      `runledger export otlp: [1] run ${runs.failed}: 1 tool call counted (1 run, 1 tool call so far)\n` +
        `runledger export otlp: the metrics could not be sent to ${receiver.url}: the endpoint answered HTTP 400 Bad Request (1 attempt)\n`,
    );
    expect(programUsage(CLI_COMMANDS)).toContain('[--metrics [--point-every <ms>] | --privacy <level>]');
  });

  it('works from the real binary', async () => {
    const result = await runBin(
      ['export', 'otlp', '--metrics', '--endpoint', `${receiver.url}/v1/metrics`, '--db', db, '--run', runs.failed],
      dir,
    );
    expect(result.stderr).toMatch(/^runledger export otlp: \[1\] run [0-9a-f-]{36}: 1 tool call counted \(1 run, 1 tool call so far\)\n$/);
    expect(result.code).toBe(0);
    expect(receiver.points().map((p) => p.attributes['error.type'])).toEqual(['server_error', 'server_error']);
  });
});

describe('runledger export otlp against an endpoint that answers badly', () => {
  let faulty: FaultyEndpoint | null = null;
  afterEach(async () => {
    await faulty?.close();
    faulty = null;
  });

  it('gives a request up after --timeout when the endpoint drips its answer forever (exit 1, its socket closed)', async () => {
    faulty = await startFaultyEndpoint({ drip: 'status-line' });
    const started = performance.now();
    const result = await cli(['export', 'otlp', '--endpoint', faulty.url, '--db', db, '--run', runs.failed, '--timeout', '500'], dir);
    const ms = performance.now() - started;
    expect(result.stderr).toBe(
      `runledger export otlp: the spans could not be sent to ${faulty.url}: no complete answer within 500 ms (1 attempt)\n`,
    );
    expect(result.code).toBe(1);
    expect(ms).toBeLessThan(2000);
    expect(faulty.requests).toBe(1);
    for (let i = 0; i < 100 && faulty.openConnections > 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(faulty.openConnections).toBe(0);
  });

  it.each([
    [503, 'Service Unavailable'],
    [429, 'Too Many Requests'],
  ] as const)('names the status of a retryable refusal (HTTP %i), after the retries', async (status, text) => {
    faulty = await startFaultyEndpoint({ status, retryAfter: '0' });
    const result = await cli(['export', 'otlp', '--endpoint', faulty.url, '--db', db, '--run', runs.failed], dir);
    expect(result.code).toBe(1);
    expect(faulty.requests).toBeGreaterThan(1);
    expect(result.stderr).toBe(
      `runledger export otlp: the spans could not be sent to ${faulty.url}: the endpoint answered HTTP ${status} ${text} (${faulty.requests} attempts)\n`,
    );
  });

  it('--timeout is an integer of ms from 1 to 3600000 (exit 2 naming the flag), default 10000', async () => {
    for (const bad of ['0', '3600001', '1.5', 'soon']) {
      const result = await cli(['export', 'otlp', '--endpoint', receiver.url, '--db', db, '--timeout', bad], dir);
      expect(result.code, bad).toBe(2);
      expect(result.stderr).toContain(`runledger export otlp: --timeout must be an integer from 1 to 3600000, got "${bad}"`);
    }
    expect(programUsage(CLI_COMMANDS)).toMatch(/--timeout <ms>/);
  });
});

describe('runledger demo --otlp', () => {
  it('sends the demo’s runs to the endpoint after recording them', async () => {
    const file = join(dir, 'demo.db');
    const result = await cli(['demo', '--no-serve', '--no-history', '--db', file, '--otlp', receiver.url], dir);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`as OpenTelemetry traces`);
    expect(result.stdout).toContain(`sent the ${DEMO_RUN_COUNT} demo runs`);
    const store = await SqliteRunStore.open({ path: file });
    try {
      const ids = (await store.listRuns({ limit: 200 })).runs.map((run) => hex(run.id));
      expect(new Set(receiver.spans().map((s) => s.traceId))).toEqual(new Set(ids));
    } finally {
      await store.close();
    }
    const cancelled = receiver.spans().filter((s) => s.attributes['runledger.tool.outcome'] === 'cancelled');
    expect(cancelled.length).toBeGreaterThan(0);
    expect(cancelled.every((s) => s.status.code === 0)).toBe(true);
  });

  it('refuses a bad --otlp URL before recording anything', async () => {
    const result = await cli(['demo', '--no-serve', '--db', join(dir, 'never.db'), '--otlp', 'not a url'], dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--otlp must be an http(s) URL');
  });
});
