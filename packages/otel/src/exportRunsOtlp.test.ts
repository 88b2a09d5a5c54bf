// exportRunsOtlp against endpoints that answer badly, over the real wire on 127.0.0.1: one that
// drips its answer forever (a deadline per request ends it, its socket released), and one that
// refuses with a retryable status (the error names the status, after the exporter's retries).
import { InMemoryRunStore, type RunStore } from '@runledger/trace';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exportRunsOtlp } from './exportRunsOtlp.js';
import { type EndpointFault, type FaultyEndpoint, startFaultyEndpoint } from './testing/faultyEndpoint.js';
import { recordSampleRuns, steppingClock } from './testing/sampleRuns.js';

let store: RunStore;
let endpoint: FaultyEndpoint | null = null;

beforeEach(async () => {
  const clock = steppingClock();
  store = InMemoryRunStore.create({ clock });
  await recordSampleRuns(store, clock);
});
afterEach(async () => {
  await endpoint?.close();
  endpoint = null;
});

async function start(fault: EndpointFault): Promise<FaultyEndpoint> {
  endpoint = await startFaultyEndpoint(fault);
  return endpoint;
}

/** The settled export and how long it took; a test-side cap of 4 s stands for "forever". */
async function timed(options: Parameters<typeof exportRunsOtlp>[1]): Promise<{ error: Error | null; ms: number }> {
  const started = performance.now();
  const outcome = await Promise.race([
    exportRunsOtlp(store, options).then(
      () => null,
      (error: unknown) => error as Error,
    ),
    new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 4000).unref()),
  ]);
  if (outcome === 'still running') throw new Error('exportRunsOtlp was still running after 4 s');
  return { error: outcome, ms: performance.now() - started };
}

const waitFor = async (check: () => boolean): Promise<void> => {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
};

describe('exportRunsOtlp: a deadline per request', () => {
  it.each(['status-line', 'body'] as const)(
    'an endpoint dripping its answer (%s) one byte per 100 ms is given up at timeoutMs, its socket closed',
    async (drip) => {
      const server = await start({ drip });
      const { error, ms } = await timed({ endpoint: server.url, timeoutMs: 500 });
      // the status line had come when the body drips: named, though the answer never completed
      expect(error?.message).toBe(`no complete answer within 500 ms (1 attempt${drip === 'body' ? ', last status HTTP 200 OK' : ''})`);
      expect(ms).toBeGreaterThanOrEqual(490);
      expect(ms).toBeLessThan(1500);
      expect(server.requests).toBe(1);
      await waitFor(() => server.openConnections === 0);
      expect(server.openConnections).toBe(0);
    },
  );

  it('refuses a timeoutMs that is not an integer from 1 to 2147483647 (what a timer takes), naming the option', async () => {
    for (const bad of [0, -1, 1.5, 2 ** 31, Number.NaN]) {
      await expect(exportRunsOtlp(store, { endpoint: 'http://127.0.0.1:9', timeoutMs: bad })).rejects.toThrow(
        `ExportRunsOtlpOptions.timeoutMs must be an integer from 1 to 2147483647 (ms), got ${String(bad)}`,
      );
    }
  });
});

describe('exportRunsOtlp: a refusing endpoint is named', () => {
  it.each([
    [503, 'Service Unavailable'],
    [429, 'Too Many Requests'],
  ] as const)('HTTP %i on every attempt: the error names the status and the attempts, after the retries', async (status, text) => {
    // Retry-After: 0 makes the exporter retry at once, as often as it does (5 retries)
    const server = await start({ status, retryAfter: '0' });
    const { error } = await timed({ endpoint: server.url, timeoutMs: 3000 });
    expect(server.requests).toBeGreaterThan(1);
    expect(error?.message).toBe(`the endpoint answered HTTP ${status} ${text} (${server.requests} attempts)`);
  });

  it('a status it does not retry is named too, after one attempt', async () => {
    const server = await start({ status: 400 });
    const { error } = await timed({ endpoint: server.url });
    expect(server.requests).toBe(1);
    expect(error?.message).toBe('the endpoint answered HTTP 400 Bad Request (1 attempt)');
  });

  it('retries within the deadline: a 503 without Retry-After ends after the backoffs that fit in timeoutMs', async () => {
    const server = await start({ status: 503 });
    const { error, ms } = await timed({ endpoint: server.url, timeoutMs: 1500 });
    expect(error?.message).toBe(`the endpoint answered HTTP 503 Service Unavailable (${server.requests} attempts)`);
    expect(server.requests).toBe(2); // at 0 and after ~1 s; the next backoff (~1.5 s) does not fit
    expect(ms).toBeLessThan(2500);
  });
});
