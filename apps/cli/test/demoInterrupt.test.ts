// A Ctrl+C while `runledger demo` has a call on the wire is our own stop, never a server's fault:
// the run under way and its call in flight end `cancelled`, not `failed` (issue 30, item 10). The
// demo servers run in process groups of their own (@runledger/mcp), so the Ctrl+C reaches the CLI
// alone; here stand-in tools wait for the run's signal, as a real call on the wire does, and fail
// after a while as a server killed by the same Ctrl+C would have made them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolFailureCause, ToolOutcome, ToolResult } from '@runledger/core';
import type { McpServerRegistry, McpTool } from '@runledger/mcp';
import { SqliteRunStore } from '@runledger/store-sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import type { DemoServers } from '../src/demo/DemoServers.js';
import { runDemo } from '../src/demo/runDemo.js';

const dir = mkdtempSync(join(tmpdir(), 'runledger-demo-interrupt-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TOOL_NAMES = ['mcp_docs_search', 'mcp_docs_read_page', 'mcp_flaky_fetch_metrics', 'mcp_slow_status', 'mcp_slow_export_report'];

/** Demo servers whose every call stays on the wire until the caller's signal aborts it. */
function waitingServers(onCall: () => void): DemoServers {
  const tool = (name: string): McpTool => ({
    name,
    server: name.split('_')[1]!,
    remoteName: name.split('_').slice(2).join('_'),
    title: undefined,
    description: `stand-in for ${name}`,
    inputSchema: { type: 'object', properties: {}, additionalProperties: true },
    requiresApproval: false,
    deadlineMs: 30_000,
    execute: (_args, options) =>
      new Promise<ToolResult>((resolve) => {
        const failed = setTimeout(
          () => resolve(ToolResult.failure('the server process died (SIGINT)', ToolFailureCause.TRANSPORT_FAILURE)),
          1500,
        );
        options?.signal?.addEventListener(
          'abort',
          () => {
            clearTimeout(failed);
            resolve(ToolResult.cancelled('the call was cancelled by the caller'));
          },
          { once: true },
        );
        onCall();
      }),
  });
  const tools = new Map(TOOL_NAMES.map((name) => [name, tool(name)]));
  return {
    registry: undefined as unknown as McpServerRegistry,
    tools,
    tool: (name) => tools.get(name)!,
    close: async () => undefined,
  };
}

describe('runledger demo stopped by Ctrl+C while a call is on the wire', () => {
  it('ends the run under way and its call cancelled, then stops', async () => {
    const dbPath = join(dir, 'demo.db');
    const controller = new AbortController();
    const servers = waitingServers(() => controller.abort());
    await expect(runDemo({ dbPath, signal: controller.signal, servers })).rejects.toThrow();
    const store = await SqliteRunStore.open({ path: dbPath });
    try {
      const { runs } = await store.listRuns();
      expect(runs).toHaveLength(1);
      const run = runs[0]!;
      expect(run.status).toBe('cancelled');
      // the Ctrl+C is kept as where the cancel came from (issue 40 item 2)
      expect(run.cancelRequest).toMatchObject({ from: 'signal', reason: 'the demo was stopped (Ctrl+C)' });
      expect(run.outcomeCounts).toMatchObject({ failed: 0, cancelled: 1 });
      const calls = (await store.readSteps(run.id)).filter((step) => step.kind === 'tool');
      expect(calls.map((step) => step.toolOutcome)).toEqual([ToolOutcome.CANCELLED]);
    } finally {
      await store.close();
    }
  });
});
