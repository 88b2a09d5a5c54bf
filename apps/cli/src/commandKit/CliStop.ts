/** What told a serving command (serve, demo) to stop. */
export type CliStopCause = 'SIGINT' | 'SIGTERM' | 'SIGHUP' | 'parent-exited';

/**
 * The reason the binary aborts `CliIo.signal` with, so that a serving command's goodbye says what
 * stopped it: Ctrl+C, a signal from a supervisor, or the exit of the process that started it.
 */
export class CliStop extends Error {
  readonly stopCause: CliStopCause;

  constructor(stopCause: CliStopCause) {
    super(`runledger was stopped (${describeStopCause(stopCause)})`);
    this.name = 'CliStop';
    this.stopCause = stopCause;
  }
}

function describeStopCause(cause: CliStopCause): string {
  switch (cause) {
    case 'SIGINT':
      return 'Ctrl+C';
    case 'SIGTERM':
    case 'SIGHUP':
      return cause;
    case 'parent-exited':
      return 'the process that started it exited';
  }
}

/**
 * The words of a goodbye for a stop signal: `Ctrl+C`, `SIGTERM`, `SIGHUP`, `the process that
 * started it exited`; `Ctrl+C` when the signal was aborted without a CliStop (a test, or code
 * that embeds runCli and stops it its own way says what it likes by its reason).
 */
export function stopWords(signal: AbortSignal | undefined): string {
  const reason: unknown = signal?.reason;
  return reason instanceof CliStop ? describeStopCause(reason.stopCause) : 'Ctrl+C';
}
