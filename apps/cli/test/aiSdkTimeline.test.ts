// Issue 16: a Vercel AI SDK loop (the SDK's mock model playing a script, @runledger/ai-sdk's tool
// set and middleware) against the demo MCP servers as child processes, recorded into a SQLite
// file; the app serves that file through a store of its own, as another process does, shows each
// call's outcome on the timeline, and its Cancel button stops the call on the wire.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mcpToolSet, recordingMiddleware } from '@runledger/ai-sdk';
import { SqliteRunStore } from '@runledger/store-sqlite';
import { RunCancelledError, startRun } from '@runledger/trace';
import { generateText, type LanguageModelMiddleware, stepCountIs, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunsServer } from '../src/app/startRunsServer.js';
import { type DemoServers, startDemoServers } from '../src/demo/DemoServers.js';
import { send, serve, textOf } from './httpHelpers.js';

type GenerateResult = Awaited<ReturnType<NonNullable<LanguageModelMiddleware['wrapGenerate']>>>;

let dir: string;
let writer: SqliteRunStore;
let reader: SqliteRunStore;
let servers: DemoServers;
let app: RunsServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'runledger-ai-sdk-'));
  writer = await SqliteRunStore.open({ path: join(dir, 'agent.db'), cancelPollMs: 20 });
  reader = await SqliteRunStore.open({ path: join(dir, 'agent.db') });
  servers = await startDemoServers();
  app = await serve(reader);
}, 60_000);
afterAll(async () => {
  await app?.close();
  await servers?.close();
  await reader?.close();
  await writer?.close();
  rmSync(dir, { recursive: true, force: true });
});

function asks(calls: readonly [string, Record<string, unknown>][], tokens: number): GenerateResult {
  return {
    content: calls.map(([toolName, input], index) => ({
      type: 'tool-call' as const,
      toolCallId: `c${tokens}_${index}`,
      toolName,
      input: JSON.stringify(input),
    })),
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage: {
      inputTokens: { total: tokens, noCache: tokens, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 10, text: 10, reasoning: undefined },
    },
    warnings: [],
  };
}

describe('a recorded AI SDK run in the app', () => {
  it('shows every LLM call and each tool call with its outcome — ok, failed, and the call the Cancel button stopped, cancelled', async () => {
    const model = new MockLanguageModelV3({
      modelId: 'scripted-agent-1',
      doGenerate: [
        asks([['mcp_docs_search', { query: 'metrics' }]], 100),
        // the flaky server fails every third call of its process: the third of these
        asks([['mcp_flaky_fetch_metrics', { service: 'api' }]], 200),
        asks([['mcp_flaky_fetch_metrics', { service: 'web' }]], 300),
        asks([['mcp_flaky_fetch_metrics', { service: 'billing' }]], 400),
        asks([['mcp_slow_export_report', { report: 'q4', seconds: 120 }]], 500),
      ],
    });
    const run = await startRun(writer, { configuration: 'ai-sdk-agent', heartbeatMs: 0, spoolDir: false });
    const loop = generateText({
      model: wrapLanguageModel({ model, middleware: recordingMiddleware(run) }),
      tools: mcpToolSet([...servers.tools.values()], { run, writes: (tool) => tool.name === 'mcp_slow_export_report' }),
      stopWhen: stepCountIs(10),
      abortSignal: run.signal,
      prompt: 'Sweep the metrics, then export.',
    }).then(
      () => null,
      (error: unknown) => error,
    );

    // the export is on the wire: the app lists it; the operator presses Cancel
    const onTheWire = async () => {
      const body = (await send(app, `/runs/${run.id}`)).body;
      return [...body.matchAll(/<tr [^>]*data-call-state="on_the_wire"[\s\S]*?<\/tr>/g)].map((m) => /tool: (\S+)/.exec(textOf(m[0]))?.[1]);
    };
    await expect.poll(onTheWire, { timeout: 15_000 }).toEqual(['mcp_slow_export_report']);
    const press = await send(app, `/runs/${run.id}/cancel`, { method: 'POST', headers: { origin: `http://127.0.0.1:${app.port}` } });
    expect(press.status).toBe(303);
    const error = await loop;
    expect(RunCancelledError.is(error)).toBe(true);
    const stored = await run.fail(error);
    expect(stored.status).toBe('cancelled');
    expect(model.doGenerateCalls).toHaveLength(5);

    const page = (await send(app, `/runs/${run.id}`)).body;
    const rows = [...page.matchAll(/<tr id="step-\d+"[^>]*data-outcome="(\w*)"[\s\S]*?<\/tr>/g)].map((m) => [m[1], textOf(m[0])] as const);
    const tools = rows.filter(([outcome]) => outcome !== '');
    expect(tools.map(([outcome, text]) => [outcome, /tool: (\S+)/.exec(text)?.[1]])).toEqual([
      ['ok', 'mcp_docs_search'],
      ['ok', 'mcp_flaky_fetch_metrics'],
      ['ok', 'mcp_flaky_fetch_metrics'],
      ['failed', 'mcp_flaky_fetch_metrics'],
      ['cancelled', 'mcp_slow_export_report'],
    ]);
    expect(tools.map(([, text]) => /(\w+) tool call (\d) /.exec(text)?.slice(1))).toEqual([
      ['docs', '1'],
      ['flaky', '2'],
      ['flaky', '3'],
      ['flaky', '4'],
      ['slow', '5'],
    ]);
    expect(tools[3]?.[1]).toContain('✕ failed');
    expect(tools[4]?.[1]).toContain('⊘ cancelled');
    const llm = rows.filter(([, text]) => / LLM call \d /.test(text)).map(([, text]) => /scripted-agent-1 LLM call (\d) /.exec(text)?.[1]);
    expect(llm).toEqual(['1', '2', '3', '4', '5']);
    expect(page).toContain('data-outcome="cancelled"');
    expect(page).not.toContain('data-call-state=');
    expect(textOf(page)).toContain('Run cancelled');
    // the operator's cancel is not the server's fault
    const health = await reader.serverHealth();
    expect(health.find((row) => row.server === 'slow')).toMatchObject({ ok: 0, failed: 0, cancelled: 1 });
    expect(health.find((row) => row.server === 'flaky')).toMatchObject({ ok: 2, failed: 1, cancelled: 0 });
  }, 60_000);
});
