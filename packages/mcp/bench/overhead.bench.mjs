// measures: packages/core/src
// Overhead of McpTool.execute against the bare MCP client's callTool, on the same in-memory
// fixture server (the official server SDK), with the same tool and arguments.
//
// The measurement runs in PROCESSES fresh worker processes (this script again, with
// RUNLEDGER_BENCH_WORKER=1), ROUNDS rounds each: one process's JIT decisions move its ratio by
// a few hundredths either way (with 120 rounds a process measured anywhere from 1.01 to 1.19; with
// 400, from 1.02 to 1.06), so the verdict is the median over processes and every process's own
// ratio is printed. Eleven processes, not five: on 2026-12-07 four runs of the same code in six
// processes each gave medians of 1.072, 1.074, 1.108 and 1.131 (one process from 0.90 to 1.24).
// An odd count, so that the median (bench/lib.mjs: nearest rank) is the middle process, not the
// lower of the two middle ones.
import { loadavg } from 'node:os';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { fmt, inFreshProcesses, median, percentile, table, verdict } from '../../../bench/lib.mjs';
import { McpServerRegistry, parseServerConfig } from '../dist/index.js';
import { createFixtureServer } from '../src/testing/fixture-server.mjs';

const PROCESSES = 11;
const ROUNDS = 400;
const CALLS_PER_ROUND = 40;
const ARGS = { text: 'hello, benchmark' };

const runs = await inFreshProcesses(import.meta.url, PROCESSES, measure);
if (runs !== null) report(runs);

/** One process: ROUNDS interleaved rounds, one batch per side each; wall time per call per batch, CPU time per side. */
async function measure() {
  if (typeof globalThis.gc !== 'function') throw new Error('run with --expose-gc: each batch starts after a full GC');
  const collect = globalThis.gc;
  const linkedServer = () => {
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
    void createFixtureServer().connect(serverEnd);
    return clientEnd;
  };
  const bare = new Client({ name: 'bench', version: '1' });
  await bare.connect(linkedServer());
  await bare.listTools();
  const [config] = parseServerConfig({ servers: [{ id: 'bench', transport: { type: 'stdio', command: 'unused' } }] });
  const registry = McpServerRegistry.create([config], { transportFactory: () => linkedServer() });
  await registry.tools();
  const tool = registry.tool('mcp_bench_echo');

  const cpuMs = (usage) => (usage.user + usage.system) / 1000;
  // A full GC before each batch, so that neither side pays for the other's garbage. Both sides
  // do the same per call: one await of the call's own promise and one check of its answer.
  async function batch({ call, answered }) {
    collect();
    const cpu = process.cpuUsage();
    const start = performance.now();
    for (let i = 0; i < CALLS_PER_ROUND; i++) {
      if (!answered(await call())) throw new Error('the echo call did not end ok');
    }
    return { wall: (performance.now() - start) / CALLS_PER_ROUND, cpu: cpuMs(process.cpuUsage(cpu)) };
  }
  const bareSide = { call: () => bare.callTool({ name: 'echo', arguments: ARGS }), answered: (answer) => answer.isError !== true };
  const toolSide = { call: () => tool.execute(ARGS), answered: (result) => result.outcome === 'ok' };

  // Warm up both paths, then interleave the rounds (alternating which side goes first) so drift
  // hits both alike.
  for (let i = 0; i < 5; i++) {
    await batch(bareSide);
    await batch(toolSide);
  }
  const bareWall = [];
  const toolWall = [];
  let bareCpu = 0;
  let toolCpu = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const bareFirst = round % 2 === 0;
    const first = await batch(bareFirst ? bareSide : toolSide);
    const second = await batch(bareFirst ? toolSide : bareSide);
    const [bareRun, toolRun] = bareFirst ? [first, second] : [second, first];
    bareWall.push(bareRun.wall);
    toolWall.push(toolRun.wall);
    bareCpu += bareRun.cpu;
    toolCpu += toolRun.cpu;
  }
  await registry.close();
  await bare.close();
  const calls = ROUNDS * CALLS_PER_ROUND;
  return { bareWall, toolWall, bareCpuPerCall: bareCpu / calls, toolCpuPerCall: toolCpu / calls };
}

function report(runs) {
  const rows = runs.map((run, index) => {
    const bare = median(run.bareWall);
    const tool = median(run.toolWall);
    const perRound = median(run.toolWall.map((t, i) => t / run.bareWall[i]));
    return { index, bare, tool, ratio: tool / bare, perRound, cpuRatio: run.toolCpuPerCall / run.bareCpuPerCall, run };
  });
  const ratios = rows.map((r) => r.ratio);
  const cpuRatios = rows.map((r) => r.cpuRatio);
  const ratio = median(ratios);
  const cpuRatio = median(cpuRatios);
  const allBare = runs.flatMap((r) => r.bareWall);
  const allTool = runs.flatMap((r) => r.toolWall);
  console.log(`## @runledger/mcp — McpTool.execute overhead vs bare callTool (in memory)

Same in-memory fixture server (official MCP server SDK), tool \`echo\` (with an output schema and
structuredContent). In each of ${PROCESSES} fresh processes: ${ROUNDS} interleaved rounds of
${CALLS_PER_ROUND} sequential calls per side, a full GC before each batch so that neither side pays
for the other's garbage. McpTool adds: outcome classification, the ToolResult with its
structured-content artifact, and \`withBoundedChannels()\`. Wall time is per call (median over a
process's batches). The verdict is the median over the processes, since one process's JIT
decisions move its ratio by a few hundredths either way. The CPU ratio (user+system time of the
process per call, over all of a side's batches) is shown for information only: it also counts the
GC's helper threads and background compiles, whichever batch they fall in. Load average at the
end: ${fmt(loadavg()[0], 1)}.

${table(
  ['process', 'bare callTool median ms/call', 'McpTool.execute median ms/call', 'wall ratio', 'median of per-round ratios', 'CPU ratio'],
  rows.map((r) => [String(r.index + 1), fmt(r.bare), fmt(r.tool), fmt(r.ratio), fmt(r.perRound), fmt(r.cpuRatio)]),
)}

All processes' batches together: bare ${fmt(median(allBare))} ms/call (p95 ${fmt(percentile(allBare, 95))}),
McpTool ${fmt(median(allTool))} ms/call (p95 ${fmt(percentile(allTool, 95))}). Wall ratio over the processes:
median ${fmt(ratio)}, lowest ${fmt(Math.min(...ratios))}, highest ${fmt(Math.max(...ratios))}. CPU ratio over the processes: median
${fmt(cpuRatio)}, lowest ${fmt(Math.min(...cpuRatios))}, highest ${fmt(Math.max(...cpuRatios))}.

- ${verdict(ratio <= 1.1, 'median ratio McpTool.execute / bare callTool ≤ 1.10 (wall time)')} (measured ${fmt(ratio)})`);
}
