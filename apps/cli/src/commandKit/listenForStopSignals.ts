import type { CliStopCause } from './CliStop.js';

/** The signals that stop a serving command. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * How long after a stop signal the same signal again is taken for the same stop: one Ctrl+C
 * reaches the binary twice under `pnpm demo` / `npm run` — the terminal sends it to the whole
 * foreground job, and pnpm (npm) passes its own on to its child as well.
 *
 * @internal
 */
export const REPEAT_SIGNAL_WINDOW_MS = 2000;

/**
 * Calls `onStop` for the first SIGINT, SIGTERM or SIGHUP. The same signal again within
 * {@link REPEAT_SIGNAL_WINDOW_MS} is that stop delivered twice and ignored; later, it ends the
 * process the default way (a second Ctrl+C for a stop that hangs). Returns what removes the
 * listeners.
 *
 * @internal
 */
export function listenForStopSignals(onStop: (cause: CliStopCause) => void): () => void {
  const listeners = new Map<NodeJS.Signals, () => void>();
  const remove = () => {
    for (const [name, listener] of listeners) process.off(name, listener);
  };
  for (const name of STOP_SIGNALS) {
    let firstAt: number | null = null;
    const listener = () => {
      const now = Date.now();
      if (firstAt === null) {
        firstAt = now;
        onStop(name);
      } else if (now - firstAt > REPEAT_SIGNAL_WINDOW_MS) {
        process.off(name, listener);
        process.kill(process.pid, name);
      }
    };
    listeners.set(name, listener);
    process.on(name, listener);
  }
  return remove;
}
