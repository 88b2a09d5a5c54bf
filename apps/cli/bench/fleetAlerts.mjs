// Alert evaluation at fleet size, for fleet.bench.mjs: one pass of `runledger alerts --once` (run
// in-process by runCli, as cron runs it: open the store, take the evaluator's lock, read what the
// rules need, evaluate against the state file, save it, close) on the loaded fleets. A realistic
// rules file with every rule kind is the verdict row; each kind alone shows where the time goes.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { fmt, largest, median, table, verdict } from '../../../bench/lib.mjs';
import { runCli } from '../dist/index.js';

const PASSES = 5;
const WARMUP = 1;
const PASS_TARGET_MS = 1_000;

/** A team's rules file: every rule kind, some per server, windows from an hour to a week. */
const REALISTIC = [
  { id: 'flaky-24h', kind: 'flaky', window: '24h' },
  { id: 'flaky-7d-strict', kind: 'flaky', window: '7d', failureRate: 0.05, minCalls: 50 },
  { id: 'failure-rate-1h', kind: 'failure-rate', above: 0.2, window: '1h', minCalls: 20 },
  { id: 'failure-rate-24h', kind: 'failure-rate', above: 0.05, window: '24h', minCalls: 100 },
  { id: 'p95-1h', kind: 'p95', aboveMs: 1_500, window: '1h', minCalls: 20 },
  { id: 'p95-srv07-24h', kind: 'p95', server: 'srv07', aboveMs: 1_000, window: '24h' },
  { id: 'stalled-30m', kind: 'stalled-run', after: '30m' },
  { id: 'unsure-writes-24h', kind: 'may-have-executed', window: '24h' },
];

/** The rows: the realistic file, each kind of it alone, and the floor every pass pays. */
const FILES = [
  ['all 8 rules (the realistic file)', REALISTIC, true],
  ...['flaky', 'failure-rate', 'p95', 'stalled-run', 'may-have-executed'].map((kind) => [
    `${kind} rules alone (${REALISTIC.filter((r) => r.kind === kind).length})`,
    REALISTIC.filter((r) => r.kind === kind),
    false,
  ]),
  [
    'floor: one p95 rule over the last second on an unknown server',
    [{ id: 'floor', kind: 'p95', server: 'none', aboveMs: 1, window: '1s' }],
    false,
  ],
];

async function pass(storeArgs, rules, state) {
  let out = '';
  let err = '';
  const io = { stdout: { write: (t) => (out += t) }, stderr: { write: (t) => (err += t) }, env: {}, cwd: process.cwd() };
  const begin = performance.now();
  const code = await runCli(['alerts', ...storeArgs, '--rules', rules, '--state', state, '--once'], io);
  const ms = performance.now() - begin;
  if (code !== 0 || !out.includes(' firing, ')) throw new Error(`runledger alerts --once exited ${code}: ${out}${err}`);
  return { ms, firing: Number(/(\d+) firing/.exec(out)[1]) };
}

/**
 * Times a few passes of each rules file on both fleets (a pass on 1/10 alternating with one at
 * full size, after a warm-up pass that also writes the state file); returns the section's lines.
 */
export async function measureAlerts(title, small, large, log) {
  const dir = mkdtempSync(path.join(tmpdir(), 'runledger-fleet-alerts-'));
  const rows = [];
  const lines = [];
  try {
    for (const [f, [label, rules, judged]] of FILES.entries()) {
      const file = path.join(dir, `rules-${f}.json`);
      writeFileSync(file, JSON.stringify({ rules }));
      const times = [[], []];
      const firing = [0, 0];
      for (let i = 0; i < WARMUP + PASSES; i++) {
        for (const [k, fleet] of [small, large].entries()) {
          const result = await pass(fleet.storeArgs, file, path.join(dir, `state-${f}-${k}.json`));
          firing[k] = result.firing;
          if (i >= WARMUP) times[k].push(result.ms);
        }
      }
      const [little, big] = times.map((t) => ({ p50: median(t), max: largest(t) }));
      log(`  alerts, ${label}: 1/10 median ${fmt(little.p50, 0)} ms; full median ${fmt(big.p50, 0)} ms, max ${fmt(big.max, 0)} ms`);
      let verdicts = '';
      if (judged) {
        const ok = big.max <= PASS_TARGET_MS;
        verdicts = ok ? 'PASS' : 'MISS';
        lines.push(
          `- ${verdict(ok, `one pass of ${label} at full size ≤ ${PASS_TARGET_MS} ms, the slowest of ${PASSES} (${fmt(big.max, 0)} ms)`)}`,
        );
      }
      rows.push([label, fmt(little.p50, 0), fmt(big.p50, 0), fmt(big.max, 0), `${firing[0]} / ${firing[1]}`, verdicts]);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return [
    `## apps/cli: alert evaluation at fleet size (${title})`,
    '',
    `One evaluation pass as \`runledger alerts --rules <file> --once\` makes it (runCli in-process: open the store, take the evaluator's lock, ` +
      `read what the rules need — the server health of each health rule's window, the running runs, the failed calls of the ` +
      `may-have-executed window with the steps of those whose cause leaves them unanswered, one read per run — evaluate against the state file, save it, close; no webhooks), on the fleets ` +
      `of the section above, ${WARMUP} warm-up then ${PASSES} passes of each rules file, each pass at full size alternating with one at 1/10. ` +
      `The realistic file: ${REALISTIC.map((r) => `${r.kind}${r.server === undefined ? '' : ` on ${r.server}`} ${r.window ?? r.after}`).join(', ')}. ` +
      `The fleet's calls name no writing tool and no failure cause, so may-have-executed lists every failed call of its window and reads no step. ` +
      `Load average ${os
        .loadavg()
        .map((n) => fmt(n, 2))
        .join(' / ')} (1/5/15 min) on a shared ${os.cpus().length}-core machine.`,
    '',
    table(['rules file', '1/10 median ms', 'full median ms', 'full max ms', 'alerts firing 1/10 / full', 'verdict'], rows),
    '',
    ...lines,
  ].join('\n');
}
