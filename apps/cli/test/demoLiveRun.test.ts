// Issue 32, item 7: the demo shows the headline feature. Served, it leaves one run running with a
// slow call on the wire and prints that run's URL and the servers page's beside the app's, so the
// app's Cancel can be tried at once: the run and its call end `cancelled`, never `failed`. A stop
// (Ctrl+C, SIGTERM) cancels that run and exits 0 — under `pnpm demo` too, whose shell the
// terminal's Ctrl+C reaches as well.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ToolOutcome } from '@runledger/core';
import { SqliteRunStore } from '@runledger/store-sqlite';
import type { StoredRun } from '@runledger/trace';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, BIN_ENV } from './cliHelpers.js';

const dir = mkdtempSync(join(tmpdir(), 'runledger-demo-live-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RUN_LINE = /a run left running with a slow call on the wire \(try its Cancel button\): (http:\/\/\S+)\n/;
const SERVERS_LINE = /the servers page \(calls by server; a cancel is never counted as a failure\): (http:\/\/\S+)\n/;

/** A started demo: its output so far, a wait for a line, and its exit. */
interface Demo {
  readonly child: ChildProcess;
  output(): string;
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function watch(child: ChildProcess): Demo {
  let stdout = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const wake of waiters) wake();
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      for (const wake of waiters) wake();
      resolve({ code, signal });
    }),
  );
  return {
    child,
    output: () => (stderr === '' ? stdout : `${stdout}\n--- stderr:\n${stderr}`),
    exited,
    waitFor: (pattern) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => done(new Error(`no ${pattern} after 60 s; output:\n${stdout}\n--- stderr:\n${stderr}`)), 60_000);
        const done = (error: Error | null, match?: RegExpExecArray) => {
          clearTimeout(timer);
          waiters.delete(check);
          if (error === null) resolve(match!);
          else reject(error);
        };
        const check = () => {
          const match = pattern.exec(stdout);
          if (match !== null) done(null, match);
          else if (child.exitCode !== null || child.signalCode !== null)
            done(new Error(`exited before ${pattern}; output:\n${stdout}\n--- stderr:\n${stderr}`));
        };
        waiters.add(check);
        check();
      }),
  };
}

function startDemo(file: string): Demo {
  return watch(
    spawn(process.execPath, [BIN, 'demo', '--db', file, '--port', '0'], { cwd: dir, env: BIN_ENV, stdio: ['ignore', 'pipe', 'pipe'] }),
  );
}

/** The run as stored, once `until` holds (the demo writes it from its own process). */
async function storedRun(file: string, id: string, until: (run: StoredRun) => boolean): Promise<StoredRun> {
  const store = await SqliteRunStore.open({ path: file });
  try {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const run = await store.getRun(id);
      if (run !== null && until(run)) return run;
      if (Date.now() > deadline) throw new Error(`run ${id} is still ${run?.status ?? 'missing'}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await store.close();
  }
}

async function toolOutcomes(file: string, id: string): Promise<{ starts: number; outcomes: (string | null)[] }> {
  const store = await SqliteRunStore.open({ path: file });
  try {
    const steps = await store.readSteps(id);
    return {
      starts: steps.filter((step) => step.kind === 'tool_start').length,
      outcomes: steps.filter((step) => step.kind === 'tool').map((step) => step.toolOutcome ?? null),
    };
  } finally {
    await store.close();
  }
}

const runIdOf = (url: string) => decodeURIComponent(new URL(url).pathname.split('/').at(-1)!);

describe('runledger demo leaves one run running for the app’s Cancel', () => {
  it('prints the run’s and the servers page’s URLs; the app’s Cancel ends the run and its call cancelled', async () => {
    const file = join(dir, 'cancel.db');
    const demo = startDemo(file);
    try {
      const runUrl = (await demo.waitFor(RUN_LINE))[1]!;
      const serversUrl = (await demo.waitFor(SERVERS_LINE))[1]!;
      const appUrl = /runledger app serving SQLite .* at (http:\/\/\S+)\n/.exec(demo.output())![1]!;
      expect(runUrl.startsWith(appUrl)).toBe(true);
      expect(serversUrl).toBe(new URL('servers', appUrl).href);
      expect(demo.output()).toMatch(/recorded \d+ runs and left one more running into /);
      const id = runIdOf(runUrl);

      // running, its slow call on the wire: sent, not answered
      const page = await fetch(runUrl);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('data-call-state="on_the_wire"');
      expect(html).toContain('data-action="cancel"');
      expect((await storedRun(file, id, () => true)).status).toBe('running');
      expect(await toolOutcomes(file, id)).toEqual({ starts: 1, outcomes: [] });
      expect((await fetch(serversUrl)).status).toBe(200);

      // the app's Cancel: a same-origin POST, as the button sends it
      const press = await fetch(`${runUrl}/cancel`, { method: 'POST', headers: { origin: new URL(appUrl).origin }, redirect: 'manual' });
      expect(press.status).toBe(303);
      const ended = await storedRun(file, id, (run) => run.status !== 'running');
      expect(ended.status).toBe('cancelled');
      expect(ended.outcomeCounts).toMatchObject({ ok: 0, failed: 0, cancelled: 1 });
      expect((await toolOutcomes(file, id)).outcomes).toEqual([ToolOutcome.CANCELLED]);

      demo.child.kill('SIGINT');
      const exit = await demo.exited;
      expect({ ...exit, output: demo.output() }).toMatchObject({ code: 0, signal: null });
      expect(demo.output().trimEnd().split('\n').at(-1)).toBe('runledger: stopped serving (Ctrl+C); goodbye');
    } finally {
      demo.child.kill('SIGKILL');
    }
  }, 90_000);

  it('SIGTERM while the run is still running: the run and its call end cancelled, the demo exits 0', async () => {
    const file = join(dir, 'sigterm.db');
    const demo = startDemo(file);
    try {
      const id = runIdOf((await demo.waitFor(RUN_LINE))[1]!);
      demo.child.kill('SIGTERM');
      const exit = await demo.exited;
      expect({ ...exit, output: demo.output() }).toMatchObject({ code: 0, signal: null });
      expect(demo.output().trimEnd().split('\n').at(-1)).toBe('runledger: stopped serving (SIGTERM); goodbye');
      const ended = await storedRun(file, id, () => true);
      expect(ended.status).toBe('cancelled');
      expect(ended.terminationReason).toContain('the demo was stopped (SIGTERM)');
      expect((await toolOutcomes(file, id)).outcomes).toEqual([ToolOutcome.CANCELLED]);
    } finally {
      demo.child.kill('SIGKILL');
    }
  }, 90_000);

  it('one Ctrl+C delivered twice (the terminal’s, and pnpm passing its own on) is one stop: exit 0', async () => {
    const file = join(dir, 'twice.db');
    const demo = startDemo(file);
    try {
      const id = runIdOf((await demo.waitFor(RUN_LINE))[1]!);
      demo.child.kill('SIGINT');
      await new Promise((resolve) => setTimeout(resolve, 30));
      demo.child.kill('SIGINT');
      const exit = await demo.exited;
      expect({ ...exit, output: demo.output() }).toMatchObject({ code: 0, signal: null });
      expect(demo.output().trimEnd().split('\n').at(-1)).toBe('runledger: stopped serving (Ctrl+C); goodbye');
      expect((await storedRun(file, id, () => true)).status).toBe('cancelled');
    } finally {
      demo.child.kill('SIGKILL');
    }
  }, 90_000);

  it('`pnpm demo` stopped with Ctrl+C (SIGINT to its whole process group, as a terminal sends it) exits 0', async (ctx) => {
    // The terminal's Ctrl+C reaches pnpm, the `sh -c` of the script and the binary alike. A shell
    // that waits for the binary dies of that SIGINT itself (dash does), and pnpm then reports
    // ELIFECYCLE with 130 however cleanly the binary stopped: the script `exec`s the binary.
    const file = join(dir, 'pnpm.db');
    const cliDir = fileURLToPath(new URL('..', import.meta.url));
    const pnpm = spawn('pnpm', ['run', 'demo', '--db', file, '--port', '0'], {
      cwd: cliDir,
      env: { ...BIN_ENV, npm_config_update_notifier: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // a process group of its own, as a terminal gives a foreground job
    });
    const spawned = await new Promise<boolean>((resolve) => {
      pnpm.once('spawn', () => resolve(true));
      pnpm.once('error', () => resolve(false));
    });
    if (!spawned) {
      if (process.env['CI'] === 'true') throw new Error('pnpm is not on the PATH');
      ctx.skip();
      return;
    }
    const demo = watch(pnpm);
    try {
      const id = runIdOf((await demo.waitFor(RUN_LINE))[1]!);
      process.kill(-pnpm.pid!, 'SIGINT');
      const exit = await demo.exited;
      expect({ ...exit, output: demo.output() }).toMatchObject({ code: 0, signal: null });
      expect(demo.output()).not.toContain('ELIFECYCLE');
      expect(demo.output()).toContain('runledger: stopped serving (Ctrl+C); goodbye');
      expect((await storedRun(file, id, () => true)).status).toBe('cancelled');
    } finally {
      try {
        process.kill(-pnpm.pid!, 'SIGKILL');
      } catch {
        // the group is gone already
      }
    }
  }, 90_000);
});
