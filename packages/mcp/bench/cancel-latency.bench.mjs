// measures: packages/core/src
// Cancel latency over stdio: from abort() to the resolved ToolResult.cancelled of McpTool.execute,
// against the bare MCP client's own abort-to-rejection latency, in the same run, against the same
// kind of child process (the fixture server).
import { Client, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { fileURLToPath } from 'node:url';
import { median, percentile, fmt, table, verdict } from '../../../bench/lib.mjs';
import { McpServerRegistry, parseServerConfig } from '../dist/index.js';

const SAMPLES = 200;
const IN_FLIGHT_MS = 3;
const fixture = fileURLToPath(new URL('../src/testing/fixture-server.mjs', import.meta.url));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const bare = new Client({ name: 'bench', version: '1' });
await bare.connect(new StdioClientTransport({ command: process.execPath, args: [fixture], stderr: 'ignore' }));

const [config] = parseServerConfig({
  servers: [{ id: 'bench', transport: { type: 'stdio', command: process.execPath, args: [fixture] } }],
});
const registry = McpServerRegistry.create([config]);
await registry.tools();
const slow = registry.tool('mcp_bench_slow');

async function bareSample() {
  const controller = new AbortController();
  let settledAt = 0;
  const pending = bare.callTool({ name: 'slow', arguments: { ms: 10_000 } }, { signal: controller.signal }).then(
    () => {
      throw new Error('the bare call was answered instead of aborted');
    },
    () => {
      settledAt = performance.now();
    },
  );
  await sleep(IN_FLIGHT_MS);
  const abortedAt = performance.now();
  controller.abort(new SdkError(SdkErrorCode.RequestTimeout, 'bench abort'));
  await pending;
  return settledAt - abortedAt;
}

async function toolSample() {
  const controller = new AbortController();
  let settledAt = 0;
  const pending = slow.execute({ ms: 10_000 }, { signal: controller.signal }).then((result) => {
    settledAt = performance.now();
    if (result.outcome !== 'cancelled') throw new Error(`unexpected outcome ${result.outcome}: ${result.content}`);
  });
  await sleep(IN_FLIGHT_MS);
  const abortedAt = performance.now();
  controller.abort();
  await pending;
  return settledAt - abortedAt;
}

for (let i = 0; i < 20; i++) {
  await bareSample();
  await toolSample();
}
const bareTimes = [];
const toolTimes = [];
for (let i = 0; i < SAMPLES; i++) {
  if (i % 2 === 0) {
    bareTimes.push(await bareSample());
    toolTimes.push(await toolSample());
  } else {
    toolTimes.push(await toolSample());
    bareTimes.push(await bareSample());
  }
}
await registry.close();
await bare.close();

const toolP99 = percentile(toolTimes, 99);
const bareP99 = percentile(bareTimes, 99);
const toolMedian = median(toolTimes);
const bareMedian = median(bareTimes);
console.log(`## @runledger/mcp — cancel latency over stdio

abort() to the resolved \`ToolResult.cancelled\` of \`McpTool.execute\`, against the bare client's
abort-to-rejection, ${SAMPLES} samples each, interleaved; each call is \`slow\` (10 s) on the stdio
fixture server (a child process), aborted ${IN_FLIGHT_MS} ms after it was sent.

${table(
  ['path', 'median ms', 'p95 ms', 'p99 ms', 'max ms'],
  [
    ['bare client (reject)', fmt(bareMedian), fmt(percentile(bareTimes, 95)), fmt(bareP99), fmt(Math.max(...bareTimes))],
    ['McpTool.execute (cancelled)', fmt(toolMedian), fmt(percentile(toolTimes, 95)), fmt(toolP99), fmt(Math.max(...toolTimes))],
  ],
)}

- ${verdict(toolP99 <= 5, 'McpTool p99 ≤ 5 ms')} (measured ${fmt(toolP99)} ms)
- ${verdict(toolP99 <= 3 * bareP99, 'McpTool p99 within 3× of the bare client p99')} (ratio ${fmt(toolP99 / bareP99, 2)})
- ${verdict(toolMedian <= 3 * bareMedian, 'McpTool median within 3× of the bare client median')} (ratio ${fmt(toolMedian / bareMedian, 2)})`);
