/**
 * The pack smoke test's type checks (lib/smokeConsumers.ts, lib/oldestTypeScript.ts) as jobs: one
 * tsc process each, independent of one another, run side by side on every core
 * (`os.availableParallelism()`). In `pnpm test` the release test's second release runs them while
 * the other core is free (the Node 24 pass has ended): one after another they were the longest
 * sequential stretch left of the run.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import { runInPool } from './runInPool.ts';

/** One type check: a tsc process, what it proves when it passes and how to say that it failed. */
export interface TypeCheckJob {
  /** the tsc script (`node_modules/typescript/bin/tsc`, or an aliased older version's) */
  readonly tsc: string;
  readonly args: readonly string[];
  /** the log line when it passes */
  readonly passed: string;
  /** the start of the failure text (tsc's output follows) */
  readonly failed: string;
}

interface Finished {
  readonly status: number | null;
  readonly output: string;
}

function runTsc(job: TypeCheckJob, cwd: string): Promise<Finished> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [job.tsc, ...job.args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.on('error', (error) => resolve({ status: null, output: `${output}${error.message}` }));
    child.on('close', (status) => resolve({ status, output }));
  });
}

/**
 * Runs the jobs, at most `concurrency` at once, and returns the failures in the jobs' order (each
 * the job's `failed` text and tsc's output); logs each job's `passed` line in the jobs' order.
 */
export async function runTypeCheckJobs(
  jobs: readonly TypeCheckJob[],
  { cwd, log, concurrency = os.availableParallelism() }: { cwd: string; log: (s: string) => void; concurrency?: number },
): Promise<string[]> {
  const results = await runInPool(jobs, concurrency, (job) => runTsc(job, cwd));
  const failures: string[] = [];
  jobs.forEach((job, i) => {
    const r = results[i]!;
    if (r.status === 0) log(job.passed);
    else failures.push(`${job.failed}:\n${r.output}`);
  });
  return failures;
}
