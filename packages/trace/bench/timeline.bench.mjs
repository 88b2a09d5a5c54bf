// Timeline build of a 100 000-step run against JSON.parse of the same payloads; linear: the
// per-step cost at 100k vs 10k.
import { ToolResult } from '@runledger/core';
import { performance } from 'node:perf_hooks';
import { fmt, median, rssMb, table, verdict } from '../../../bench/lib.mjs';
import { buildRunTimeline, InMemoryRunStore, startRun } from '../dist/index.js';

const RESULTS = [
  ToolResult.text('3 issues found'),
  ToolResult.error('HTTP 502 from server'),
  ToolResult.cancelled('the run was cancelled'),
];

async function makeRun(n) {
  const store = InMemoryRunStore.create();
  const run = await startRun(store, { configuration: 'bench', heartbeatMs: 0 });
  for (let i = 0; i < n; i++) {
    if (i % 10 === 0) {
      void run.trace.recordLlmCall({
        round: i / 10,
        durationMs: 800.5,
        model: 'gpt-x',
        content: 'answer',
        promptTokens: 1200,
        completionTokens: 80,
      });
    } else {
      void run.trace.recordToolResult({
        toolName: 'mcp_github_search_issues',
        toolArguments: { query: 'is:open', limit: 20 },
        result: RESULTS[i % 3],
        round: Math.floor(i / 10),
        durationMs: 12.3,
      });
    }
  }
  await run.cancel('bench');
  const stored = await run.complete();
  const steps = await store.readSteps(run.id);
  if (steps.length !== n) throw new Error(`expected ${n} steps`);
  return { stored, steps };
}

/** Times `a` and `b` alternately (so machine load hits both alike); returns their median times in ms. */
function timePair(a, b, repeats) {
  const ta = [];
  const tb = [];
  for (let i = 0; i < repeats; i++) {
    for (const [fn, times] of [
      [a, ta],
      [b, tb],
    ]) {
      globalThis.gc?.();
      const start = performance.now();
      fn();
      times.push(performance.now() - start);
    }
  }
  return [median(ta), median(tb)];
}

const small = await makeRun(10_000);
const large = await makeRun(100_000);
let sink = 0;
const build =
  ({ stored, steps }) =>
  () => {
    sink += buildRunTimeline(stored, steps).length;
  };
const parse =
  ({ steps }) =>
  () => {
    for (const step of steps) sink += JSON.parse(step.payload).round;
  };
timePair(build(small), parse(small), 5);
const [build10k, parse10k] = timePair(build(small), parse(small), 21);
const [build100k, parse100k] = timePair(build(large), parse(large), 11);
const linear = build100k / 10 / build10k;
const vsParse = build100k / parse100k;
if (sink === 0) throw new Error('nothing was built');

console.log(`## trace: building a run's timeline

buildRunTimeline(run, storedSteps) over a run of tool and LLM steps recorded at \`metadata\` privacy (9 tool steps per LLM call),
against only \`JSON.parse\` of the same stored payloads, measured alternately. Median times; RSS after: ${fmt(rssMb(), 0)} MB.

${table(
  ['measure', '10 000 steps', '100 000 steps'],
  [
    ['timeline build, ms', fmt(build10k, 1), fmt(build100k, 1)],
    ['timeline build, µs per step', fmt((build10k * 1000) / 10_000), fmt((build100k * 1000) / 100_000)],
    ['JSON.parse of the payloads, ms', fmt(parse10k, 1), fmt(parse100k, 1)],
  ],
)}

- Linear: per-step cost at 100k / at 10k = ${fmt(linear, 2)} — ${verdict(linear <= 1.5, '≤ 1.5')}
- Build / JSON.parse at 100k = ${fmt(vsParse, 2)} — ${verdict(vsParse <= 3, '≤ 3')}
`);
