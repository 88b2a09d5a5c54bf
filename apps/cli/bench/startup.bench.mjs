// How long the `runledger` binary takes to answer `--help`, `runs list --help` and `--version`,
// beside a bare `node -e 0` start (issue 40 item 7: within 100 ms of it). Each is a fresh process
// (spawnSync, to its exit), interleaved so that load changes touch every case alike; the verdict
// is by the median. Runs the bin as npm and pnpm link it (bin/runledger.js, which imports the
// built dist/cli.js: pnpm turbo run build --filter @runledger/cli).
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { fmt, median, percentile, table, verdict } from '../../../bench/lib.mjs';

const BIN = fileURLToPath(new URL('../bin/runledger.js', import.meta.url));
const RUNS = Number(process.env.STARTUP_RUNS ?? 30);
const WARMUP = 3;
const TARGET_MS = 100;

const CASES = [
  { label: 'node -e 0 (bare start)', args: ['-e', '0'] },
  { label: 'runledger --help', args: [BIN, '--help'] },
  { label: 'runledger runs list --help', args: [BIN, 'runs', 'list', '--help'] },
  { label: 'runledger --version', args: [BIN, '--version'] },
  { label: 'runledger runs list (bad flag: loads the router)', args: [BIN, 'runs', 'list', '--nope'], code: 2 },
];

/** One fresh process, to its exit: ms. */
function once({ args, code = 0 }) {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'ignore'] });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== code) throw new Error(`${args.join(' ')} exited ${result.status}, expected ${code}`);
  return ms;
}

const times = CASES.map(() => []);
for (let i = 0; i < WARMUP + RUNS; i++) {
  // a different case first in each round
  for (let k = 0; k < CASES.length; k++) {
    const c = (i + k) % CASES.length;
    const ms = once(CASES[c]);
    if (i >= WARMUP) times[c].push(ms);
  }
}
const bare = median(times[0]);
const rows = CASES.map((c, i) => [
  c.label,
  fmt(median(times[i]), 0),
  fmt(percentile(times[i], 90), 0),
  i === 0 ? '—' : fmt(median(times[i]) - bare, 0),
]);
const quick = [1, 2, 3].map((i) => median(times[i]) - bare);
const load = os
  .loadavg()
  .map((l) => l.toFixed(2))
  .join(', ');
console.log(`## apps/cli: the binary's start — --help and --version beside a bare node

Each command line run ${RUNS} times as a fresh process (after ${WARMUP} warm-up rounds), the cases interleaved; wall time to the process's exit. \`--help\`, \`<command> --help\` and \`--version\` print the usage the router gave at build time (dist/cli-help.json) and load no command, zod, store or SDK; a command line the router must read (the last row) loads them. Load average (1, 5, 15 min): ${load}; ${os.cpus().length} cores, shared.

${table(['command line', 'median ms', 'p90 ms', 'median − bare node ms'], rows)}

${verdict(
  quick.every((ms) => ms <= TARGET_MS),
  `--help, runs list --help and --version within ${TARGET_MS} ms of a bare node start (median)`,
)}
`);
