// The bundled demo MCP servers, one per process: `node demo-server.js <docs|flaky|slow>`.
// Written with the official MCP server SDK and spoken to over stdio, like any real server.
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

type Kind = 'docs' | 'flaky' | 'slow';

function text(value: string) {
  return { content: [{ type: 'text' as const, text: value }] };
}

/** Waits `ms`, or rejects as soon as the client cancels the request. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new Error('cancelled by the client'));
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Error('cancelled by the client'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function build(kind: Kind): McpServer {
  const server = new McpServer({ name: `runledger-demo-${kind}`, version: '1.0.0' }, { capabilities: { tools: {} } });
  if (kind === 'docs') {
    server.registerTool(
      'search',
      { description: 'Searches the product documentation.', inputSchema: z.object({ query: z.string() }) },
      async ({ query }) => text(`3 pages match "${query}": install.md, cancel.md, outcomes.md`),
    );
    server.registerTool(
      'read_page',
      { description: 'Reads one documentation page.', inputSchema: z.object({ page: z.string() }) },
      async ({ page }) => text(`# ${page}\nEvery tool call ends ok, failed or cancelled.`),
    );
  } else if (kind === 'flaky') {
    // Deterministic flakiness: every third call of this process fails with isError.
    let calls = 0;
    server.registerTool(
      'fetch_metrics',
      {
        description: 'Fetches service metrics from a monitoring backend that fails every third call.',
        inputSchema: z.object({ service: z.string(), delayMs: z.number().int().min(0).max(120_000).optional() }),
      },
      async ({ service, delayMs }, ctx) => {
        calls += 1;
        const call = calls;
        if (delayMs !== undefined && delayMs > 0) await sleep(delayMs, ctx.mcpReq.signal);
        if (call % 3 === 0) {
          return { ...text(`metrics backend for ${service} answered 503 (call ${call})`), isError: true };
        }
        return text(`${service}: p95 182 ms, error rate 0.4 % (call ${call})`);
      },
    );
  } else {
    let exports = 0;
    server.registerTool(
      'export_report',
      {
        description: 'Exports a report to the archive: a long write that honours cancellation.',
        inputSchema: z.object({ report: z.string(), seconds: z.number().min(0).max(600).optional() }),
      },
      async ({ report, seconds }, ctx) => {
        await sleep((seconds ?? 30) * 1000, ctx.mcpReq.signal);
        exports += 1;
        return text(`exported ${report} as archive record report-${exports}`);
      },
    );
    server.registerTool('status', { description: 'Says whether the archive is reachable.', inputSchema: z.object({}) }, async () =>
      text('archive reachable'),
    );
  }
  return server;
}

const kind = process.argv[2];
if (kind !== 'docs' && kind !== 'flaky' && kind !== 'slow') {
  process.stderr.write('usage: demo-server <docs|flaky|slow>\n');
  process.exit(2);
}
const server = build(kind);
await server.connect(new StdioServerTransport());
