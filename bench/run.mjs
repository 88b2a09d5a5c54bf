// Runs every benchmark (packages/*/bench/*.bench.mjs, apps/*/bench/*.bench.mjs) one after the
// other and writes docs/benchmarks.md with the machine, the date and each section.
// Usage: pnpm bench [name-substring]          (with a substring: prints the sections, writes nothing)
//        pnpm bench --update a,b              (runs the benchmarks matching a or b and replaces their
//                                              sections in docs/benchmarks.md, saying so in its header)
//        pnpm bench --stale                   (lists the sections of docs/benchmarks.md whose measured code
//                                              changed since the commit they name, or that name none; exit 1)
//        node bench/run.mjs --apply f.md,g.md (replaces sections with ones a benchmark printed earlier and
//                                              saved to those files, e.g. on the same machine while other
//                                              work ran; the header says which sections and when)
import { execFileSync } from 'node:child_process';
import { readdirSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { measuredPaths, sourceState, staleSections, stampLine, stampSections } from './provenance.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
if (process.argv[2] === '--stale') {
  const stale = staleSections(root, readFileSync(path.join(root, 'docs', 'benchmarks.md'), 'utf8'));
  for (const { heading, why } of stale) process.stdout.write(`${heading}: ${why}\n`);
  process.stderr.write(`bench: ${stale.length} stale sections in docs/benchmarks.md\n`);
  process.exit(stale.length === 0 ? 0 : 1);
}
const apply = process.argv[2] === '--apply';
const update = process.argv[2] === '--update' || apply;
const filters = (update ? (process.argv[3] ?? '') : (process.argv[2] ?? '')).split(',');
const filter = filters.join(',');
if (update && filter === '') throw new Error('pnpm bench --update needs the benchmarks to run, e.g. --update trace/record,otel/');
const scripts = [];
for (const group of apply ? [] : ['packages', 'apps']) {
  for (const pkg of readdirSync(path.join(root, group)).sort()) {
    const dir = path.join(root, group, pkg, 'bench');
    if (!existsSync(dir)) continue;
    for (const file of readdirSync(dir).sort()) {
      if (file.endsWith('.bench.mjs') && filters.some((f) => `${pkg}/${file}`.includes(f)))
        scripts.push({ dir: path.join(root, group, pkg), file: path.join(dir, file), name: `${pkg}/${file}` });
    }
  }
}

const sections = apply ? filters.map((file) => readFileSync(file, 'utf8').trim()) : [];
let failures = sections.filter((section) => /\bMISS\b/.test(section)).length;
for (const script of scripts) {
  process.stderr.write(`bench: ${script.name}\n`);
  const paths = measuredPaths(root, script);
  const source = sourceState(root, paths); // what the benchmark's process loads: the tree as it starts
  try {
    const out = execFileSync(process.execPath, ['--expose-gc', script.file], {
      cwd: script.dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, NODE_ENV: 'production' },
    });
    sections.push(stampSections(out.trim(), stampLine(root, paths, source)));
    if (/\bMISS\b/.test(out)) failures++;
  } catch (error) {
    failures++;
    sections.push(`## ${script.name}\n\nThe benchmark failed to run: ${String(error.message).split('\n')[0]}`);
  }
}

const cpus = os.cpus();
const header = [
  '# Benchmarks',
  '',
  'Written by `pnpm bench` (bench/run.mjs); do not edit by hand. Each section names its target and says PASS or MISS, and the commit, load average and source paths it measured; `pnpm bench --stale` lists the sections whose measured code changed since.',
  '',
  `- Date: ${new Date().toISOString()}`,
  `- Machine: ${cpus[0]?.model ?? 'unknown CPU'}, ${cpus.length} cores, ${(os.totalmem() / 1024 ** 3).toFixed(0)} GiB, ${os.type()} ${os.release()}`,
  `- Node ${process.version}`,
  '',
].join('\n');
if (update) {
  // each section starts with its `## ` heading: a rerun section replaces the one of the same heading
  const file = path.join(root, 'docs', 'benchmarks.md');
  const text = readFileSync(file, 'utf8');
  const start = text.indexOf('\n## ');
  let head = text.slice(0, start + 1);
  const old = text
    .slice(start + 1)
    .split(/\n(?=## )/)
    .map((section) => section.trim());
  const heading = (section) => section.split('\n')[0];
  const fresh = sections.flatMap((output) => output.split(/\n(?=## )/).map((section) => section.trim()));
  for (const section of fresh) {
    const at = old.findIndex((o) => heading(o) === heading(section));
    if (at >= 0) old[at] = section;
    else old.push(section);
  }
  const how = apply
    ? `from sections saved by their benchmarks earlier that day (\`node bench/run.mjs --apply\`; each states its own load average)`
    : `by \`pnpm bench --update ${filter}\``;
  const load = apply
    ? ''
    : `, load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' / ')}`;
  const note = `- Updated ${new Date().toISOString()} ${how} (${cpus.length} cores, Node ${process.version}${load}): ${fresh
    .map(heading)
    .map((h) => h.slice(3))
    .join('; ')}`;
  head = `${head.trimEnd()}\n${note}\n`;
  writeFileSync(file, `${head}\n${old.join('\n\n')}\n`);
  process.stderr.write(`bench: updated ${fresh.length} sections of docs/benchmarks.md (${failures} with a MISS or an error)\n`);
} else if (filter === '') {
  writeFileSync(path.join(root, 'docs', 'benchmarks.md'), `${header}\n${sections.join('\n\n')}\n`);
  process.stderr.write(`bench: wrote docs/benchmarks.md (${scripts.length} benchmarks, ${failures} with a MISS or an error)\n`);
} else {
  process.stdout.write(`${sections.join('\n\n')}\n`);
}
