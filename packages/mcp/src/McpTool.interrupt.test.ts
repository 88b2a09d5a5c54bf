// A Ctrl+C in the terminal signals the whole foreground process group. The stdio servers must not
// get it: the call in flight is ours to end (`cancelled`, by our own shutdown), never a crashed
// server's `failed`. And they must still go when our process does. Real processes: a CLI-like
// script in a group of its own, a real stdio server, SIGINT to the script's process group.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ToolOutcome } from '@runledger/core';
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURE_SERVER_PATH, isProcessAlive, newEventsFile, readEvents, waitFor } from './testing/fixtures.js';

const script = fileURLToPath(new URL('./testing/interrupt-child.mjs', import.meta.url));
const dist = fileURLToPath(new URL('../dist/index.js', import.meta.url));

const started: ChildProcess[] = [];
afterEach(() => {
  for (const proc of started.splice(0)) {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  }
});

/** The process group of a live process (Linux: the 5th field of /proc/<pid>/stat). */
function processGroupOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
}

/** Runs the script in a process group of its own (as a shell runs a command) until it says `calling`. */
async function runUntilCalling(mode: 'handled' | 'unhandled', events: string) {
  const proc = spawn(process.execPath, [script, FIXTURE_SERVER_PATH, events, mode], {
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  started.push(proc);
  let out = '';
  proc.stdout!.on('data', (chunk: Buffer) => (out += String(chunk)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.once('exit', (code, signal) => resolve({ code, signal })),
  );
  expect(await waitFor(() => out.includes('calling\n') || proc.exitCode !== null, 15_000), out).toBe(true);
  expect(out).toContain('calling\n');
  const server = readEvents(events).find((e) => e.event === 'server_started')!.pid;
  return { proc, pid: proc.pid!, server, exited, output: () => out };
}

describe('a Ctrl+C to our process group while a stdio call is in flight', () => {
  it('our shutdown ends the call cancelled: the server got no SIGINT, has a group of its own, and is gone after exit', async () => {
    expect(existsSync(dist), 'the built package (pnpm build) is needed for this test').toBe(true);
    const events = newEventsFile();
    const { pid, server, exited, output } = await runUntilCalling('handled', events);
    expect(processGroupOf(server), 'the server runs in a process group of its own').toBe(server);
    process.kill(-pid, 'SIGINT');
    expect(await exited).toEqual({ code: 0, signal: null });
    const result = JSON.parse(
      output()
        .split('\n')
        .find((line) => line.startsWith('{'))!,
    ) as { outcome: string; failureCause: unknown };
    expect(result).toMatchObject({ outcome: ToolOutcome.CANCELLED, failureCause: null });
    expect(readEvents(events).filter((e) => e.event === 'sigint')).toEqual([]);
    expect(isProcessAlive(server)).toBe(false);
  });

  it('without a handler of the application, the signal still ends our process and takes the server along', async () => {
    expect(existsSync(dist), 'the built package (pnpm build) is needed for this test').toBe(true);
    const events = newEventsFile();
    const { pid, server, exited } = await runUntilCalling('unhandled', events);
    process.kill(-pid, 'SIGINT');
    expect(await exited).toEqual({ code: null, signal: 'SIGINT' });
    // SIGKILLed by our signal hook on the way out; the kernel may take a moment on a busy machine.
    expect(await waitFor(() => !isProcessAlive(server), 10_000)).toBe(true);
  });
});
