// The pack smoke's type checks run side by side (lib/typeCheckJobs.ts): at most `concurrency`
// processes at once, every failure reported with its output, the verdicts in the jobs' order.
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runTypeCheckJobs, type TypeCheckJob } from '../src/lib/typeCheckJobs.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'type-check-jobs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A stand-in for tsc: notes its start in a shared log, waits (up to 3 s) until `wanted` jobs have
// started, notes its end and exits with the given status after printing a line.
const FAKE_TSC = path.join(dir, 'fake-tsc.mjs');
writeFileSync(
  FAKE_TSC,
  `import { appendFileSync, readFileSync } from 'node:fs';
const [log, id, wanted, status] = process.argv.slice(2);
appendFileSync(log, 'start ' + id + '\\n');
const until = Date.now() + 3000;
const started = () => readFileSync(log, 'utf8').split('\\n').filter((l) => l.startsWith('start')).length;
while (started() < Number(wanted) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
appendFileSync(log, 'end ' + id + '\\n');
console.log('tsc says ' + id);
process.exit(Number(status));
`,
);

function jobs(log: string, statuses: number[], wanted: number): TypeCheckJob[] {
  return statuses.map((status, i) => ({
    tsc: FAKE_TSC,
    args: [log, `job${i}`, String(wanted), String(status)],
    passed: `job${i} passed`,
    failed: `job${i} failed`,
  }));
}

describe('runTypeCheckJobs', () => {
  it('runs two at once on concurrency 2: both start before either ends', async () => {
    const log = path.join(dir, 'two.log');
    appendFileSync(log, '');
    const lines: string[] = [];
    expect(await runTypeCheckJobs(jobs(log, [0, 0], 2), { cwd: dir, log: (s) => lines.push(s), concurrency: 2 })).toEqual([]);
    expect(readFileSync(log, 'utf8').split('\n').slice(0, 2).sort()).toEqual(['start job0', 'start job1']);
    expect(lines).toEqual(['job0 passed', 'job1 passed']);
  });

  it('runs one at a time on concurrency 1 and reports each failure with its output, in the jobs order', async () => {
    const log = path.join(dir, 'one.log');
    appendFileSync(log, '');
    const lines: string[] = [];
    // wanted 1: no job waits for another
    const failures = await runTypeCheckJobs(jobs(log, [2, 0, 1], 1), { cwd: dir, log: (s) => lines.push(s), concurrency: 1 });
    expect(readFileSync(log, 'utf8').trim().split('\n')).toEqual([
      'start job0',
      'end job0',
      'start job1',
      'end job1',
      'start job2',
      'end job2',
    ]);
    expect(failures).toEqual(['job0 failed:\ntsc says job0\n', 'job2 failed:\ntsc says job2\n']);
    expect(lines).toEqual(['job1 passed']);
  });

  it('reports a tsc that cannot start as failed', async () => {
    const failures = await runTypeCheckJobs([{ tsc: path.join(dir, 'missing.mjs'), args: [], passed: 'no', failed: 'missing failed' }], {
      cwd: dir,
      log: () => {},
    });
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(/^missing failed:\n[\s\S]*Cannot find module/);
  });
});
