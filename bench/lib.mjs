// Shared helpers for the benchmarks under packages/*/bench and apps/*/bench.
// A benchmark is an ESM script `<name>.bench.mjs`, run with `node` from its package folder by
// bench/run.mjs. It prints one Markdown section to stdout (starting with `## `) that states what
// was measured, a table of the numbers, each target, and PASS or MISS for it.
import { performance } from 'node:perf_hooks';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Runs `fn` (sync or async) `warmup` times, then `iterations` times; returns each duration in ms. */
export async function sample(fn, { iterations = 30, warmup = 5 } = {}) {
  for (let i = 0; i < warmup; i++) await fn(i);
  const times = [];
  for (let i = 0; i < iterations; i++) {
    const start = performance.now();
    await fn(i);
    times.push(performance.now() - start);
  }
  return times;
}

/** The p-th percentile (0..100) of numbers, by nearest rank. */
export function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export const median = (values) => percentile(values, 50);

/** The largest of numbers (NaN for none), for arrays of any length: `Math.max(...values)` overflows the stack past ~100 000. */
export function largest(values) {
  let max = values.length === 0 ? NaN : -Infinity;
  for (const value of values) if (value > max) max = value;
  return max;
}

/** Formats a number with `digits` decimals. */
export const fmt = (value, digits = 3) => (Number.isFinite(value) ? value.toFixed(digits) : String(value));

/** A Markdown table from a header row and rows of cells. */
export function table(header, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** `PASS` or `MISS` with the target in words. */
export const verdict = (ok, target) => `${ok ? 'PASS' : 'MISS'} — target: ${target}`;

/** Resident set size in MB now. */
export const rssMb = () => process.memoryUsage().rss / 1024 / 1024;

/** The 20 server ids the store benchmarks spread their tool calls over. */
export const BENCH_SERVERS = Object.freeze(Array.from({ length: 20 }, (_, i) => `server${i}`));

/**
 * The i-th tool call of the ingest workload every store benchmark records (the same for SQLite
 * and PostgreSQL, so their numbers compare): every 11th call fails. `ToolResult` is passed in
 * because this file sits outside the packages and cannot resolve `@runledger/core` itself.
 */
export function ingestToolCall(i, ToolResult) {
  const server = BENCH_SERVERS[i % BENCH_SERVERS.length];
  const failed = i % 11 === 0;
  return {
    toolName: `mcp_${server}_search`,
    toolServer: server,
    toolArguments: { query: `q${i}`, limit: 10 },
    result: failed ? ToolResult.error(`upstream said no to ${i}`) : ToolResult.text(`found ${i % 7} items`),
    round: Math.floor(i / 5),
    durationMs: 10 + (i % 300),
  };
}

/**
 * Runs a benchmark file's `measure` in `processes` fresh Node processes (the file again, with
 * `--expose-gc` and RUNLEDGER_BENCH_WORKER=1) and returns what each measured: one process's JIT
 * decisions move a ratio by more than the targets allow. Inside such a process it prints its own
 * measurement and returns null.
 * @template T
 * @param {string} benchUrl the benchmark's `import.meta.url`
 * @param {number} processes
 * @param {() => Promise<T>} measure
 * @returns {Promise<T[] | null>}
 */
export async function inFreshProcesses(benchUrl, processes, measure) {
  if (process.env.RUNLEDGER_BENCH_WORKER === '1') {
    process.stdout.write(JSON.stringify(await measure()));
    return null;
  }
  return Array.from({ length: processes }, () =>
    JSON.parse(
      execFileSync(process.execPath, ['--expose-gc', fileURLToPath(benchUrl)], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
        env: { ...process.env, RUNLEDGER_BENCH_WORKER: '1' },
      }),
    ),
  );
}

/** A stored tool step (as importRun takes it) of call `sequence` of run `runId` on `server`. */
export function storedToolStep(runId, sequence, createdAt, server, outcome, durationMs) {
  return {
    runId,
    sequence,
    kind: 'tool',
    round: Math.floor(sequence / 10),
    durationMs,
    createdAt,
    payload: JSON.stringify({
      kind: 'tool',
      durationMs,
      toolName: `mcp_${server}_call`,
      toolServer: server,
      toolIsError: outcome !== 'ok',
      toolOutcome: outcome,
    }),
    toolServer: server,
    toolOutcome: outcome,
  };
}
