import type { RunStore } from '@runledger/trace';
import { startRunsServer } from '../app/startRunsServer.js';
import type { CliIo } from './CliIo.js';
import { stopWords } from './CliStop.js';
import { terminalLine } from './terminalText.js';

/** Resolves when the signal aborts (never without one). */
function whenAborted(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal === undefined) return;
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/**
 * Serves the runs app from an open store until `io.signal` aborts (Ctrl+C, SIGTERM, SIGHUP, the
 * parent gone), saying where and, at the end, why it stopped: what `serve` and `demo` do.
 *
 * @internal
 */
export async function serveStore(
  io: CliIo,
  store: RunStore,
  options: {
    host: string;
    port: number;
    token: string | null;
    tokenName?: string | null;
    trustUserHeader?: string | null;
    what: string;
    alertStateFile?: string | null;
  },
): Promise<void> {
  let server: Awaited<ReturnType<typeof startRunsServer>>;
  try {
    server = await startRunsServer({
      store,
      host: options.host,
      port: options.port,
      token: options.token,
      tokenName: options.tokenName ?? null,
      trustUserHeader: options.trustUserHeader ?? null,
      alertStateFile: options.alertStateFile ?? null,
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new Error(`port ${options.port} on ${options.host} is already in use; choose another with --port (0 picks a free one)`);
    }
    throw error;
  }
  io.stdout.write(terminalLine`runledger app serving ${options.what} at ${server.url}\n`);
  if (options.token !== null)
    io.stdout.write(terminalLine`open it once with ${server.url}?token=<your token> (or send Authorization: Bearer <token>)\n`);
  io.stdout.write('press Ctrl+C to stop\n');
  io.onListening?.(server.url);
  await whenAborted(io.signal);
  await server.close();
  io.stdout.write(terminalLine`runledger: stopped serving (${stopWords(io.signal)}); goodbye\n`);
}
