// The binary's stop signals, in a real child process: the first stops, the same signal again soon
// after is that stop delivered twice (pnpm passing the terminal's Ctrl+C on), later it ends the
// process the default way.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REPEAT_SIGNAL_WINDOW_MS } from './listenForStopSignals.js';

const MODULE = fileURLToPath(new URL('./listenForStopSignals.ts', import.meta.url));
const CHILD = `
const { listenForStopSignals } = await import(${JSON.stringify(MODULE)});
listenForStopSignals((cause) => process.stdout.write('stop ' + cause + '\\n'));
setInterval(() => undefined, 1000); // a stop that hangs
process.stdout.write('ready\\n');
`;

describe('listenForStopSignals', () => {
  it('stops once for a signal delivered twice, and ends the process for the same signal later', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    const waiters = new Set<() => void>();
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      for (const wake of waiters) wake();
    });
    const seen = (text: string) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (stdout.includes(text)) {
            waiters.delete(check);
            resolve();
          }
        };
        waiters.add(check);
        check();
      });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal })),
    );
    try {
      await seen('ready');
      child.kill('SIGINT');
      await seen('stop SIGINT');
      child.kill('SIGINT'); // the repeat: ignored
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(child.exitCode).toBeNull();
      expect(child.signalCode).toBeNull();
      expect(stdout.match(/stop/g)).toHaveLength(1);
      await new Promise((resolve) => setTimeout(resolve, REPEAT_SIGNAL_WINDOW_MS));
      child.kill('SIGINT'); // a second Ctrl+C for a stop that hangs
      expect(await exited).toEqual({ code: null, signal: 'SIGINT' });
    } finally {
      child.kill('SIGKILL');
    }
  }, 20_000);
});
