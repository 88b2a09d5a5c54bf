// Overhead of a tool call through the AI SDK integration (the `execute` of mcpToolSet's tool, as
// the AI SDK calls it) against the same call through McpTool directly, recorded on the same run
// the way docs/mcp.md's hand-written loop records it (recordToolStart, execute, recordToolResult).
// Both sides: the same in-memory fixture server (official MCP server SDK), the same tool and
// arguments, one run of an in-memory store. The bare McpTool.execute (nothing recorded) is shown
// beside for information.
//
// As in packages/mcp/bench/overhead.bench.mjs: PROCESSES fresh worker processes (this script
// again, with RUNLEDGER_BENCH_WORKER=1), ROUNDS interleaved rounds each, a full GC before each
// batch; the verdict is the median over the processes.
import { loadavg } from 'node:os';
import { InMemoryTransport } from '@modelcontextprotocol/client';
import { McpServerRegistry, parseServerConfig } from '@runledger/mcp';
import { InMemoryRunStore, startRun } from '@runledger/trace';
import { fmt, inFreshProcesses, median, percentile, table, verdict } from '../../../bench/lib.mjs';
import { mcpToolSet } from '../dist/index.js';
import { createFixtureServer } from '../../mcp/src/testing/fixture-server.mjs';

const PROCESSES = 5;
const ROUNDS = 200;
const CALLS_PER_ROUND = 20;
const ARGS = { text: 'hello, benchmark' };
const TOOL = 'mcp_bench_echo';

const runs = await inFreshProcesses(import.meta.url, PROCESSES, measure);
if (runs !== null) report(runs);

/** One process: ROUNDS rounds, one batch per side each (the order rotating); wall time per call per batch. */
async function measure() {
  if (typeof globalThis.gc !== 'function') throw new Error('run with --expose-gc: each batch starts after a full GC');
  const collect = globalThis.gc;
  const [config] = parseServerConfig({ servers: [{ id: 'bench', transport: { type: 'stdio', command: 'unused' } }] });
  const registry = McpServerRegistry.create([config], {
    transportFactory: () => {
      const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
      void createFixtureServer().connect(serverEnd);
      return clientEnd;
    },
  });
  const tools = await registry.tools();
  const tool = registry.tool(TOOL);
  const store = InMemoryRunStore.create();
  const run = await startRun(store, { configuration: 'bench', heartbeatMs: 0, spoolDir: false });
  const execute = mcpToolSet(tools, { run })[TOOL].execute;
  let id = 0;

  const sides = {
    // docs/mcp.md's loop: the start recorded before the call, the result after it
    direct: async () => {
      const start = await run.trace.recordToolStart({ toolName: tool.name, toolServer: tool.server, toolArguments: ARGS, round: 1 });
      const started = performance.now();
      const result = await tool.execute(ARGS, { signal: run.signal });
      await run.trace.recordToolResult({
        toolCallId: start.toolCallId,
        toolName: tool.name,
        toolServer: tool.server,
        toolArguments: ARGS,
        result,
        round: 1,
        durationMs: performance.now() - started,
      });
      return result.outcome === 'ok';
    },
    // the AI SDK integration: the tool's execute as generateText calls it
    integration: async () => (await execute(ARGS, { toolCallId: `call_${id++}`, messages: [], abortSignal: run.signal })) === ARGS.text,
    bare: async () => (await tool.execute(ARGS, { signal: run.signal })).outcome === 'ok',
  };
  const names = Object.keys(sides);
  async function batch(name) {
    collect();
    const start = performance.now();
    for (let i = 0; i < CALLS_PER_ROUND; i++) {
      if (!(await sides[name]())) throw new Error(`the ${name} echo call did not end ok`);
    }
    return (performance.now() - start) / CALLS_PER_ROUND;
  }
  for (let i = 0; i < 5; i++) for (const name of names) await batch(name);
  const wall = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(round + k) % names.length];
      wall[name].push(await batch(name));
    }
  }
  await run.complete();
  await registry.close();
  return wall;
}

function report(runs) {
  const rows = runs.map((wall, index) => {
    const direct = median(wall.direct);
    const integration = median(wall.integration);
    const bare = median(wall.bare);
    return {
      index,
      direct,
      integration,
      bare,
      ratio: integration / direct,
      perRound: median(wall.integration.map((t, i) => t / wall.direct[i])),
      bareRatio: integration / bare,
    };
  });
  const ratios = rows.map((r) => r.ratio);
  const ratio = median(ratios);
  const all = (name) => runs.flatMap((r) => r[name]);
  console.log(`## @runledger/ai-sdk — a tool call through the AI SDK integration vs through McpTool directly (same run)

The same in-memory fixture server (official MCP server SDK), tool \`echo\`, one run of an
\`InMemoryRunStore\` for both sides. *Direct*: the hand-written loop of docs/mcp.md —
\`recordToolStart\`, \`McpTool.execute\` with the run's signal, \`recordToolResult\`. *Integration*:
the \`execute\` of \`mcpToolSet\`'s tool, called as \`generateText\` calls it (the AI SDK's
\`toolCallId\`, \`messages\`, \`abortSignal\`): the same two records, the round lookup, the content
handed back. *Bare*: \`McpTool.execute\` alone, nothing recorded (for information). In each of
${PROCESSES} fresh processes: ${ROUNDS} rounds of ${CALLS_PER_ROUND} sequential calls per side, the
order rotating, a full GC before each batch. Wall time per call, median over a process's batches;
the verdict is the median over the processes. Load average at the end: ${fmt(loadavg()[0], 1)}.

${table(
  [
    'process',
    'direct (recorded) ms/call',
    'integration ms/call',
    'bare McpTool ms/call',
    'integration / direct',
    'median of per-round ratios',
    'integration / bare',
  ],
  rows.map((r) => [String(r.index + 1), fmt(r.direct), fmt(r.integration), fmt(r.bare), fmt(r.ratio), fmt(r.perRound), fmt(r.bareRatio)]),
)}

All processes' batches together: direct ${fmt(median(all('direct')))} ms/call (p95 ${fmt(percentile(all('direct'), 95))}),
integration ${fmt(median(all('integration')))} ms/call (p95 ${fmt(percentile(all('integration'), 95))}), bare
${fmt(median(all('bare')))} ms/call. Ratio integration / direct over the processes: median ${fmt(ratio)},
lowest ${fmt(Math.min(...ratios))}, highest ${fmt(Math.max(...ratios))}.

- ${verdict(ratio <= 1.1, 'median ratio integration / direct McpTool call in the same run ≤ 1.10 (wall time per call)')} (measured ${fmt(ratio)})`);
}
