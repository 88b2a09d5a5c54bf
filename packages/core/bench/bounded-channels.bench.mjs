// withBoundedChannels on 1 KB, 1 MB and 10 MB: time per MB must stay flat (linear), reported
// against Buffer.byteLength of the same input (the cheapest linear pass over the text there is).
// Run from packages/core after a build: node bench/bounded-channels.bench.mjs
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { fmt, median, percentile, rssMb, sample, table, verdict } from '../../../bench/lib.mjs';
import { ToolArtifact, ToolResult } from '../dist/index.js';

const loadAtStart = os.loadavg();
const KB = 1024;
const MB = 1024 * 1024;
const HUGE = 64 * MB; // a limit no input here reaches: the whole text is checked and kept
const SIZES = [
  { name: '1 KB', bytes: KB },
  { name: '1 MB', bytes: MB },
  { name: '10 MB', bytes: 10 * MB },
];

/** Text of exactly `bytes` UTF-8 bytes. */
function makeText(kind, bytes) {
  if (kind === 'ASCII') {
    return 'The quick brown fox jumps over the lazy dog. '.repeat(Math.ceil(bytes / 45)).slice(0, bytes);
  }
  // 1-, 2-, 3- and 4-byte characters: "aü€😀" is 10 bytes, 5 UTF-16 units.
  const text = 'aü€😀'.repeat(Math.floor(bytes / 10));
  return text + 'a'.repeat(bytes - Buffer.byteLength(text, 'utf8'));
}

/** `count` copies of a text in distinct memory (the first character differs, so none is shared). */
function copiesOf(text, count) {
  const copies = [text];
  for (let i = 1; i < count; i++) {
    const copy = String.fromCharCode(65 + (i % 26)) + text.slice(1);
    Buffer.byteLength(copy, 'utf8'); // flattens the concatenation into one string of its own
    copies.push(copy);
  }
  return copies;
}

/**
 * Median and best ms of one call, measuring batches so that sub-microsecond calls are still timed
 * well. The verdicts use the best run: on a machine shared with other work it is the run least
 * disturbed by it, so it shows the cost of the code, not of the neighbours.
 */
async function measure(fn, bytes, { heavy = false } = {}) {
  const batch = bytes <= KB ? 2000 : 1;
  const iterations = heavy ? (bytes >= 10 * MB ? 7 : 15) : bytes >= MB ? 40 : 30;
  const times = await sample(
    (round) => {
      for (let i = 0; i < batch; i++) fn(round);
    },
    { iterations, warmup: heavy || bytes >= 10 * MB ? 2 : 5 },
  );
  return { median: median(times) / batch, best: percentile(times, 0) / batch };
}

const rows = [];
const verdicts = [];
let sink = 0;

for (const kind of ['ASCII', 'multibyte']) {
  for (const bound of [
    { name: `under the limit (contentBytes ${HUGE / MB} MB)`, short: 'under limit', bounds: { contentBytes: HUGE } },
    { name: 'default limit (50 000 bytes)', short: '50 000 limit', bounds: undefined },
  ]) {
    const perMb = {};
    const basePerMb = {};
    for (const size of SIZES) {
      const text = makeText(kind, size.bytes);
      if (Buffer.byteLength(text, 'utf8') !== size.bytes) throw new Error('bench: wrong input size');
      // From 1 MB on, each round reads another copy of the text (32 MB or more in all), so that
      // every size is read from memory, as a fresh tool answer is, not from a warm CPU cache.
      const texts = copiesOf(text, size.bytes >= MB ? Math.ceil((32 * MB) / size.bytes) : 1);
      const results = texts.map((copy) => ToolResult.text(copy));
      // Check the work is real before timing it.
      const once = results[0].withBoundedChannels(bound.bounds);
      const expectedBytes = Math.min(size.bytes, bound.bounds ? HUGE : 50_000);
      if (Buffer.byteLength(once.content, 'utf8') > expectedBytes) throw new Error('bench: content not bounded');
      if (bound.bounds && once.content !== texts[0]) throw new Error('bench: content under the limit was changed');
      const bounded = await measure((round) => {
        sink += results[round % results.length].withBoundedChannels(bound.bounds).content.length;
      }, size.bytes);
      const baseline = await measure((round) => {
        sink += Buffer.byteLength(texts[round % texts.length], 'utf8');
      }, size.bytes);
      const mbs = size.bytes / MB;
      perMb[size.name] = bounded.best / mbs;
      basePerMb[size.name] = baseline.best / mbs;
      rows.push([
        kind,
        bound.short,
        size.name,
        fmt(bounded.median, 4),
        fmt(bounded.best, 4),
        fmt(bounded.best / mbs, 3),
        fmt(baseline.best, 4),
        fmt(baseline.best / mbs, 3),
        fmt(bounded.best / baseline.best, 1),
      ]);
    }
    const ratio = perMb['10 MB'] / perMb['1 MB'];
    const baseRatio = basePerMb['10 MB'] / basePerMb['1 MB'];
    verdicts.push(
      `- ${kind}, ${bound.name}: per-MB time at 10 MB is ${fmt(ratio, 2)}× the per-MB time at 1 MB (Buffer.byteLength on the same inputs: ${fmt(baseRatio, 2)}×) — ${verdict(ratio <= 2, 'time per MB stays flat (linear): per-MB time at 10 MB within 2× of per-MB time at 1 MB')}`,
    );
  }
}

// Artifacts: a table whose JSON is about the given size, kept (huge limit) or omitted (default).
const artifactRows = [];
for (const bound of [
  { short: 'under limit', bounds: { artifactBytes: HUGE } },
  { short: '50 000 limit', bounds: undefined },
]) {
  const perMb = {};
  for (const size of SIZES.slice(1)) {
    const row = { id: 123456, name: 'Jürgen 😀 row', note: 'x'.repeat(60) }; // ~100 bytes as JSON
    const data = Array.from({ length: Math.round(size.bytes / 100) }, (_, id) => ({ ...row, id }));
    const artifact = ToolArtifact.table('rows', data);
    const result = ToolResult.text('x', artifact);
    const json = JSON.stringify([artifact]);
    const kept = result.withBoundedChannels(bound.bounds).artifacts[0];
    if ((kept === artifact) !== Boolean(bound.bounds)) throw new Error('bench: artifacts kept/omitted wrongly');
    const heavy = { heavy: Boolean(bound.bounds) };
    const bounded = await measure(
      () => {
        sink += result.withBoundedChannels(bound.bounds).artifacts.length;
      },
      size.bytes,
      heavy,
    );
    const baseline = await measure(
      () => {
        sink += JSON.stringify([artifact]).length;
      },
      size.bytes,
      heavy,
    );
    const mbs = Buffer.byteLength(json, 'utf8') / MB;
    perMb[size.name] = bounded.best / mbs;
    artifactRows.push([
      bound.short,
      size.name,
      fmt(mbs, 2),
      fmt(bounded.median, 3),
      fmt(bounded.best, 3),
      fmt(bounded.best / mbs, 3),
      fmt(baseline.best, 3),
      fmt(bounded.best / baseline.best, 2),
    ]);
  }
  const ratio = perMb['10 MB'] / perMb['1 MB'];
  verdicts.push(
    `- table artifact, ${bound.short}: per-MB time at 10 MB is ${fmt(ratio, 2)}× the per-MB time at 1 MB — ${verdict(ratio <= 2, 'per-MB time at 10 MB within 2× of 1 MB (linear)')}`,
  );
}

const started = performance.now();
const out = [
  '## @runledger/core — withBoundedChannels',
  '',
  'Time of `ToolResult.withBoundedChannels()` on a result whose content is 1 KB, 1 MB and 10 MB of',
  'UTF-8 (ASCII, and a multibyte mix of 1-, 2-, 3- and 4-byte characters), once under a limit it never reaches',
  '(the whole text is made well-formed, measured and kept) and once with the default limit of 50 000 bytes',
  '(measured, then cut on a character boundary with a marker). The baseline is `Buffer.byteLength` of the same',
  'string; the ratio is withBoundedChannels / byteLength. 1 KB times are the mean of batches of 2 000 calls; from',
  '1 MB on, successive calls read different copies of the input (≥ 32 MB in all), so no size runs from a warm cache.',
  'Per-MB figures and verdicts use the best of 40 runs: on a shared machine that is the run least disturbed by',
  `other work (load average when started: ${loadAtStart.map((load) => fmt(load, 1)).join(' / ')} on ${os.cpus().length} CPUs).`,
  '',
  table(
    ['text', 'bound', 'size', 'median ms', 'best ms', 'best ms per MB', 'byteLength best ms', 'byteLength ms per MB', 'ratio (best)'],
    rows,
  ),
  '',
  'Artifacts: one `table` artifact of about 1 MB and 10 MB of JSON; baseline `JSON.stringify` of the same artifact.',
  'With the default limit the encoder stops at 50 000 bytes, so the time does not grow with the size.',
  '',
  table(['bound', 'size', 'JSON MB', 'median ms', 'best ms', 'best ms per MB', 'JSON.stringify best ms', 'ratio (best)'], artifactRows),
  '',
  ...verdicts,
  '',
  `RSS after the run: ${fmt(rssMb(), 0)} MB.`,
];
if (sink === -1) out.push(String(performance.now() - started)); // keep the results alive
process.stdout.write(`${out.join('\n')}\n`);
