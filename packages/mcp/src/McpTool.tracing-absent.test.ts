// @opentelemetry/api is a peer dependency, loaded lazily: with tracing off it is never imported, and
// with tracing on but the package missing, tools() says so. Here the package "is missing": every
// import of it fails, and counts.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ToolOutcome } from '@runledger/core';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { McpConfigError } from './McpConfigError.js';
import { McpServerRegistry } from './McpServerRegistry.js';
import { FIXTURE_SERVER_PATH, newEventsFile, readEvents, stdioFixtureConfig, toolsOnceConnected } from './testing/fixtures.js';

// Test files share a module graph (vitest.base.mjs, isolate: false): a fresh one for this file, so
// no module imported below has loaded the real package on an earlier file's behalf; and after it,
// the real package and fresh modules again for the files that follow.
vi.hoisted(() => vi.resetModules());
afterAll(() => {
  vi.doUnmock('@opentelemetry/api');
  vi.resetModules();
});
const imports = vi.hoisted(() => ({ count: 0 }));
vi.mock('@opentelemetry/api', () => {
  imports.count++;
  throw new Error("Cannot find package '@opentelemetry/api'");
});

describe('without @opentelemetry/api', () => {
  let registry: McpServerRegistry | undefined;
  afterEach(async () => {
    await registry?.close();
  });

  it('tracing off: calls work, nothing imports the package and no _meta is sent', async () => {
    const events = newEventsFile();
    registry = McpServerRegistry.create([stdioFixtureConfig({ eventsFile: events })]);
    const tools = await toolsOnceConnected(registry);
    const meta = tools.find((t) => t.name === 'mcp_fixture_meta');
    expect((await meta?.execute({ tag: 'absent' }))?.outcome).toBe(ToolOutcome.OK);
    expect(readEvents(events).find((e) => e.tool === 'meta' && e.tag === 'absent')?.meta).toBeNull();
    expect(imports.count).toBe(0);
  });

  it('tracing on: tools() refuses with a clear error naming the package', async () => {
    const tracer = { startSpan: () => undefined };
    registry = McpServerRegistry.create([stdioFixtureConfig()], { tracing: { tracer: tracer as never } });
    const listing = registry.tools();
    await expect(listing).rejects.toThrow(McpConfigError);
    await expect(listing).rejects.toThrow(
      /options\.tracing needs the package @opentelemetry\/api \(a peer dependency of @runledger\/mcp\)/,
    );
    expect(imports.count).toBeGreaterThan(0);
  });
});

describe('the built package without @opentelemetry/*', () => {
  it('works with tracing off and refuses tracing on by name (dist has no static OpenTelemetry import)', async () => {
    const child = fileURLToPath(new URL('./testing/no-otel-child.mjs', import.meta.url));
    const dist = fileURLToPath(new URL('../dist/index.js', import.meta.url));
    expect(existsSync(dist), 'the built package (pnpm build) is needed for this test').toBe(true);
    const { stdout } = await promisify(execFile)(process.execPath, [child, FIXTURE_SERVER_PATH], { timeout: 15_000 });
    const seen = JSON.parse(stdout) as { outcome: string; content: string; refusal?: { name: string; message: string } };
    expect(seen).toMatchObject({ outcome: 'ok', content: 'no otel', refusal: { name: 'McpConfigError' } });
    expect(seen.refusal?.message).toContain("Cannot find package '@opentelemetry/api' (refused by deny-otel-hooks.mjs)");
  });
});
