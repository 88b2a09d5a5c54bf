// Overhead of McpTool.execute against the bare MCP client's callTool, on the same in-memory
// fixture server (the official server SDK), with the same tool and arguments.
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { median, percentile, fmt, table, verdict } from '../../../bench/lib.mjs';
import { McpServerRegistry, parseServerConfig } from '../dist/index.js';
import { createFixtureServer } from '../src/testing/fixture-server.mjs';

const ROUNDS = 120;
const CALLS_PER_ROUND = 40;
const collect = typeof globalThis.gc === 'function' ? globalThis.gc : () => {};
const ARGS = { text: 'hello, benchmark' };

function linkedServer() {
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  void createFixtureServer().connect(serverEnd);
  return clientEnd;
}

const bare = new Client({ name: 'bench', version: '1' });
await bare.connect(linkedServer());
await bare.listTools();

const [config] = parseServerConfig({ servers: [{ id: 'bench', transport: { type: 'stdio', command: 'unused' } }] });
const registry = McpServerRegistry.create([config], { transportFactory: () => linkedServer() });
await registry.tools();
const tool = registry.tool('mcp_bench_echo');

const cpuMs = (usage) => (usage.user + usage.system) / 1000;

async function bareBatch() {
  collect();
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < CALLS_PER_ROUND; i++) await bare.callTool({ name: 'echo', arguments: ARGS });
  return { wall: (performance.now() - start) / CALLS_PER_ROUND, cpu: cpuMs(process.cpuUsage(cpu)) / CALLS_PER_ROUND };
}
async function toolBatch() {
  collect();
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < CALLS_PER_ROUND; i++) {
    const result = await tool.execute(ARGS);
    if (result.outcome !== 'ok') throw new Error(`unexpected outcome ${result.outcome}: ${result.content}`);
  }
  return { wall: (performance.now() - start) / CALLS_PER_ROUND, cpu: cpuMs(process.cpuUsage(cpu)) / CALLS_PER_ROUND };
}

// Warm up both paths, then interleave the rounds so drift hits both alike.
for (let i = 0; i < 5; i++) {
  await bareBatch();
  await toolBatch();
}
const bareTimes = [];
const toolTimes = [];
const ratios = [];
const bareCpu = [];
const toolCpu = [];
const cpuRatios = [];
for (let round = 0; round < ROUNDS; round++) {
  const first = round % 2 === 0;
  const a = first ? await bareBatch() : await toolBatch();
  const b = first ? await toolBatch() : await bareBatch();
  const bareRun = first ? a : b;
  const toolRun = first ? b : a;
  bareTimes.push(bareRun.wall);
  toolTimes.push(toolRun.wall);
  ratios.push(toolRun.wall / bareRun.wall);
  bareCpu.push(bareRun.cpu);
  toolCpu.push(toolRun.cpu);
  cpuRatios.push(toolRun.cpu / bareRun.cpu);
}
await registry.close();
await bare.close();

const ratio = median(toolTimes) / median(bareTimes);
const roundRatio = median(ratios);
const cpuRatio = median(toolCpu) / median(bareCpu);
const load = (await import('node:os')).loadavg()[0];
console.log(`## @runledger/mcp — McpTool.execute overhead vs bare callTool (in memory)

Same in-memory fixture server (official MCP server SDK), tool \`echo\` (with an output schema and
structuredContent), ${ROUNDS} interleaved rounds of ${CALLS_PER_ROUND} sequential calls per side, a
full GC before each batch (when run with --expose-gc) so that neither side pays for the other's
garbage. McpTool adds: the abort wiring, outcome classification, the ToolResult with its
structured-content artifact, and \`withBoundedChannels()\`. Wall time is per call; CPU time is this
process's user+system time per call (less disturbed by other processes on a shared machine; load
average at the end of the run: ${fmt(load, 1)}).

${table(
  ['path', 'median wall ms/call', 'p95 wall ms/call', 'median CPU ms/call'],
  [
    ['bare client.callTool', fmt(median(bareTimes)), fmt(percentile(bareTimes, 95)), fmt(median(bareCpu))],
    ['McpTool.execute', fmt(median(toolTimes)), fmt(percentile(toolTimes, 95)), fmt(median(toolCpu))],
    ['ratio', fmt(ratio), `${fmt(roundRatio)} (median of per-round ratios)`, fmt(cpuRatio)],
  ],
)}

- ${verdict(ratio <= 1.1, 'median ratio McpTool.execute / bare callTool ≤ 1.10 (wall time)')} (measured ${fmt(ratio)})
- ${verdict(cpuRatio <= 1.1, 'median ratio McpTool.execute / bare callTool ≤ 1.10 (CPU time)')} (measured ${fmt(cpuRatio)})`);
