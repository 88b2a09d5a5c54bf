// Resource bounds of McpTool over Streamable HTTP: calls that end without an answer (cancelled or
// timed out) against a server that never answers must release their sockets and memory.
import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { ToolOutcome } from '@runledger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpServerRegistry } from './McpServerRegistry.js';
import { parseServerConfig } from './parseServerConfig.js';
import type { McpServerConfig } from './McpServerConfig.js';
import type { McpTool } from './McpTool.js';
import {
  establishedConnectionsTo,
  type HttpFixture,
  newEventsFile,
  openDescriptorCount,
  readEvents,
  startHttpFixture,
  waitFor,
} from './testing/fixtures.js';

const CALLS = 1000;
const CONCURRENCY = 100;
const DEADLINE_MS = 200;
const MIB = 1024 * 1024;

function fullGc(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with --expose-gc (vitest.config.ts sets execArgv)');
  gc();
  gc();
}

async function settledHeap(): Promise<number> {
  // Let the closes of aborted streams run before measuring.
  await new Promise((resolve) => setImmediate(resolve));
  fullGc();
  return process.memoryUsage().heapUsed;
}

describe('McpTool over HTTP: calls without an answer release their resources', () => {
  let http: HttpFixture;
  let registry: McpServerRegistry;
  let hang: McpTool;
  let patientHang: McpTool;
  let events: string;

  beforeAll(async () => {
    events = newEventsFile();
    http = await startHttpFixture({ eventsFile: events });
    // Two sessions with the same server: one whose calls time out, one patient enough to be cancelled.
    registry = McpServerRegistry.create([
      http.config({ id: 'res', deadlineMs: DEADLINE_MS }),
      http.config({ id: 'patient', deadlineMs: 30_000 }),
    ]);
    // The deadline covers connecting, and a first listing compiles schemas: refresh until listed.
    for (let attempt = 0; attempt < 10 && registry.tool('mcp_res_hang') === undefined; attempt++)
      await registry.tools({ refresh: attempt > 0 });
    hang = registry.tool('mcp_res_hang')!;
    patientHang = registry.tool('mcp_patient_hang')!;
    expect(hang).toBeDefined();
    expect(patientHang).toBeDefined();
    // Warm up: the connection pool, the code paths, the first allocations.
    const warm = await Promise.all(Array.from({ length: 20 }, () => hang.execute({})));
    expect(warm.every((r) => r.outcome === ToolOutcome.FAILED)).toBe(true);
    const warmController = new AbortController();
    const warmCancelled = patientHang.execute({ tag: 'warm' }, { signal: warmController.signal });
    expect(await waitFor(() => readEvents(events).some((e) => e.tag === 'warm'))).toBe(true);
    warmController.abort();
    expect((await warmCancelled).outcome).toBe(ToolOutcome.CANCELLED);
  });
  afterAll(async () => {
    await registry.close();
    await http.stop();
  });

  it(`${CALLS} cancelled and ${CALLS} timed-out calls leave descriptors within 10 and the heap within 10 MiB of the start`, async () => {
    const fdsBefore = openDescriptorCount();
    const heapBefore = await settledHeap();
    // Counted in the raw text: parsing a file of a thousand lines on every poll costs more than the calls.
    const startedCount = () => readFileSync(events, 'utf8').split('"event":"started","tag":"c-').length - 1;

    // Cancelled in flight: each batch is aborted once the server has seen every call of it.
    for (let batch = 0; batch < CALLS / CONCURRENCY; batch++) {
      const controller = new AbortController();
      const calls = Array.from({ length: CONCURRENCY }, (_, i) =>
        patientHang.execute({ tag: `c-${batch}-${i}` }, { signal: controller.signal }),
      );
      // a busy machine (CI runs every package's tests at once on 2 cores) may take seconds per batch
      expect(
        await waitFor(() => startedCount() === (batch + 1) * CONCURRENCY, 30_000, 20),
        `batch ${batch}: ${startedCount()} calls started`,
      ).toBe(true);
      controller.abort();
      const results = await Promise.all(calls);
      expect(results.filter((r) => r.outcome !== ToolOutcome.CANCELLED).map((r) => `${r.outcome}: ${r.content}`)).toEqual([]);
    }
    // Timed out: the server never answers, each call fails at its deadline.
    for (let batch = 0; batch < CALLS / (2 * CONCURRENCY); batch++) {
      const results = await Promise.all(Array.from({ length: 2 * CONCURRENCY }, () => hang.execute({})));
      expect(
        results
          .filter((r) => r.outcome !== ToolOutcome.FAILED || !r.content.includes(`did not answer within ${DEADLINE_MS} ms`))
          .map((r) => `${r.outcome}: ${r.content}`),
      ).toEqual([]);
    }

    // An aborted POST's socket is destroyed at once, and each session keeps at most
    // MAX_IDLE_CONNECTIONS idle ones (HttpConnectionPool): the sockets of the last requests close as
    // they end. With fetch's pool, about one socket per call stayed open (for good with Node 20's).
    // A busy server answers the last cancellation notices (POSTs too) seconds late: their sockets
    // are busy, not leaked, so the wait is long. Leaked ones (one per call) never close.
    const fdsSettled = await waitFor(() => openDescriptorCount() <= fdsBefore + 10, 30_000, 50);
    const fdsAfter = openDescriptorCount();
    const heapAfter = await settledHeap();
    console.info(
      `descriptors ${fdsBefore} -> ${fdsAfter} (${fdsAfter - fdsBefore >= 0 ? '+' : ''}${fdsAfter - fdsBefore}); ` +
        `heap ${(heapBefore / MIB).toFixed(1)} -> ${(heapAfter / MIB).toFixed(1)} MiB`,
    );
    expect(fdsSettled, `descriptors ${fdsBefore} -> ${fdsAfter}, ${establishedConnectionsTo(http.port)} connections to the server`).toBe(
      true,
    );
    expect(heapAfter - heapBefore, `heap grew by ${((heapAfter - heapBefore) / MIB).toFixed(1)} MiB`).toBeLessThan(10 * MIB);

    // And the session still works: a call answers (on a busy machine — a fresh-clone CI run beside
    // other work reached a load of 15 — an answer may miss the 200 ms deadline several times, so up
    // to 20 tries; a broken session fails every one, and not by the deadline).
    const echo = async () => registry.tool('mcp_res_echo')!.execute({ text: 'still here' });
    let answer = await echo();
    for (let attempt = 1; attempt < 20 && answer.content.includes(`did not answer within ${DEADLINE_MS} ms`); attempt++)
      answer = await echo();
    expect(answer.outcome, answer.content).toBe(ToolOutcome.OK);
  }, 240_000);

  it('closing the registry closes every connection to the server at once, not after keep-alive', async () => {
    // A call in flight, and the idle connections of the calls before.
    const controller = new AbortController();
    const inFlight = patientHang.execute({ tag: 'at-close' }, { signal: controller.signal });
    expect(await waitFor(() => readEvents(events).some((e) => e.tag === 'at-close'))).toBe(true);
    expect(establishedConnectionsTo(http.port)).toBeGreaterThan(0);
    await registry.close();
    expect(
      await waitFor(() => establishedConnectionsTo(http.port) === 0, 1000, 10),
      `${establishedConnectionsTo(http.port)} still open`,
    ).toBe(true);
    // As McpServerRegistry.close documents: a call still in flight ends cancelled — over HTTP too,
    // and without the caller's signal (aborted only afterwards, to change nothing).
    const given = await inFlight;
    controller.abort();
    expect(given.outcome).toBe(ToolOutcome.CANCELLED);
    expect(given.failureCause).toBeNull();
  });
});

/**
 * A proxy in front of the HTTP fixture that passes everything on except cancellation notices:
 * those it reads and never answers, as a server that stalls them would.
 */
async function startNoticeStallingProxy(target: HttpFixture): Promise<{ readonly port: number; held(): number; close(): Promise<void> }> {
  let held = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (body.includes('"notifications/cancelled"')) {
        held++;
        res.on('close', () => held--);
        return;
      }
      const upstream = httpRequest(
        `http://127.0.0.1:${target.port}${req.url ?? '/'}`,
        { method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      res.on('close', () => upstream.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    held: () => held,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('McpTool over HTTP: a server that never answers cancellation notices', () => {
  it('does not keep a socket per notice: each waits at most the server deadline for its answer', async () => {
    const events = newEventsFile();
    const http = await startHttpFixture({ eventsFile: events });
    const proxy = await startNoticeStallingProxy(http);
    const deadlineMs = 2000;
    const [config] = parseServerConfig({
      servers: [{ id: 'stall', transport: { type: 'http', url: `http://127.0.0.1:${proxy.port}/mcp` }, deadlineMs }],
    });
    const registry = McpServerRegistry.create([config as McpServerConfig]);
    try {
      // The deadline covers connecting, and a first listing compiles schemas: refresh until listed.
      for (let attempt = 0; attempt < 10 && registry.tool('mcp_stall_hang') === undefined; attempt++)
        await registry.tools({ refresh: attempt > 0 });
      const hang = registry.tool('mcp_stall_hang')!;
      expect(hang).toBeDefined();
      const controller = new AbortController();
      const calls = Array.from({ length: 20 }, (_, i) => hang.execute({ tag: `stall-${i}` }, { signal: controller.signal }));
      expect(await waitFor(() => readEvents(events).filter((e) => String(e.tag).startsWith('stall-')).length === 20, 10_000)).toBe(true);
      controller.abort();
      // Cancelled, or timed out first on a busy machine: either way the SDK sends a notice.
      expect((await Promise.all(calls)).every((r) => r.outcome !== ToolOutcome.OK)).toBe(true);
      // The 20 notices reach the proxy, which holds them.
      expect(await waitFor(() => proxy.held() === 20, 5000)).toBe(true);
      // Within the deadline (and some slack) we give each up and close its socket.
      expect(await waitFor(() => proxy.held() === 0, deadlineMs + 5000, 20), `${proxy.held()} notices still held open`).toBe(true);
      expect(establishedConnectionsTo(proxy.port)).toBeLessThanOrEqual(10);
      // And the session still works.
      expect((await registry.tool('mcp_stall_echo')!.execute({ text: 'after' })).outcome).toBe(ToolOutcome.OK);
    } finally {
      await registry.close();
      await proxy.close();
      await http.stop();
    }
  });
});
