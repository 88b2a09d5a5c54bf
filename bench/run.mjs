// Runs every benchmark (packages/*/bench/*.bench.mjs, apps/*/bench/*.bench.mjs) one after the
// other and writes docs/benchmarks.md with the machine, the date and each section.
// Usage: pnpm bench [name-substring]
import { execFileSync } from 'node:child_process';
import { readdirSync, existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const filter = process.argv[2] ?? '';
const scripts = [];
for (const group of ['packages', 'apps']) {
  for (const pkg of readdirSync(path.join(root, group)).sort()) {
    const dir = path.join(root, group, pkg, 'bench');
    if (!existsSync(dir)) continue;
    for (const file of readdirSync(dir).sort()) {
      if (file.endsWith('.bench.mjs') && `${pkg}/${file}`.includes(filter)) scripts.push({ dir: path.join(root, group, pkg), file: path.join(dir, file), name: `${pkg}/${file}` });
    }
  }
}

const sections = [];
let failures = 0;
for (const script of scripts) {
  process.stderr.write(`bench: ${script.name}\n`);
  try {
    const out = execFileSync(process.execPath, ['--expose-gc', script.file], { cwd: script.dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NODE_ENV: 'production' } });
    sections.push(out.trim());
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
  'Written by `pnpm bench` (bench/run.mjs); do not edit by hand. Each section names its target and says PASS or MISS.',
  '',
  `- Date: ${new Date().toISOString()}`,
  `- Machine: ${cpus[0]?.model ?? 'unknown CPU'}, ${cpus.length} cores, ${(os.totalmem() / 1024 ** 3).toFixed(0)} GiB, ${os.type()} ${os.release()}`,
  `- Node ${process.version}`,
  '',
].join('\n');
if (filter === '') {
  writeFileSync(path.join(root, 'docs', 'benchmarks.md'), `${header}\n${sections.join('\n\n')}\n`);
  process.stderr.write(`bench: wrote docs/benchmarks.md (${scripts.length} benchmarks, ${failures} with a MISS or an error)\n`);
} else {
  process.stdout.write(`${sections.join('\n\n')}\n`);
}
