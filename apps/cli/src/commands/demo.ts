// `runledger demo`: the bundled demo MCP servers, scripted runs recorded into a SQLite file, then the app.
import { counted } from '../commandKit/counted.js';
import type { RunStore } from '@runledger/trace';
import { checkServeConfig } from '../app/startRunsServer.js';
import type { CliIo } from '../commandKit/CliIo.js';
import { stopWords } from '../commandKit/CliStop.js';
import { CliExitCode, flag, HELP_FLAG, DB_FLAG, type CliFlag, SERVE_FLAGS } from '../commandKit/cliSurface.js';
import { checkedEndpoint, otlpRefusal } from '../commandKit/otlpEndpoint.js';
import { serveStore } from '../commandKit/serveStore.js';
import { checkStoreTarget, checkDbFlag } from '../commandKit/storeTargetChecks.js';
import { terminalLine, terminalText } from '../commandKit/terminalText.js';
import { uriComponent } from '../viewModels/uriComponent.js';
import type { CliCommand } from '../commandKit/CliCommand.js';
import { flagParser } from '../commandKit/commandArgs.js';
import { resolve } from 'node:path';

/** The options of `runledger demo`, as its command line gives them. @internal */
export interface DemoOptions {
  readonly dbPath: string;
  readonly port: number;
  readonly host: string;
  readonly token: string | null;
  readonly serve: boolean;
  /** The OTLP/HTTP endpoint the demo's runs are exported to, or null. */
  readonly otlp: string | null;
  /** Import the week of demo history first (unless the file has it); false with --no-history. */
  readonly history: boolean;
}

/** Fails, naming the port, when something already listens on it; port 0 is always free. */
async function assertPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const { createServer } = await import('node:net');
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(`port ${port} on ${host} is already in use; nothing was recorded. Choose another with --port (0 picks a free one)`)
          : error,
      );
    });
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/**
 * `runledger demo --otlp <url>`: sends the runs the demo just recorded to the endpoint. A refusal
 * is reported and the demo goes on (the runs are in the file; `export otlp` sends them again).
 */
async function exportDemoRuns(io: CliIo, store: RunStore, runIds: readonly string[], endpoint: string): Promise<void> {
  const { exportRunsOtlp } = await import('@runledger/otel');
  try {
    const result = await exportRunsOtlp(store, { endpoint, runIds });
    io.stdout.write(
      terminalLine`sent the ${counted('count.demoRuns', result.runsExported)} (${counted('count.spans', result.spansExported)}) to ${result.url} as OpenTelemetry traces\n`,
    );
  } catch (error) {
    io.stderr.write(
      terminalLine`runledger demo: ${otlpRefusal(error, endpoint).message}; the runs are in the file (runledger export otlp sends them again)\n`,
    );
  }
}

/**
 * Beside the app's URL: the run the demo left running (its Cancel button) and the servers page.
 * A `--token` app needs the token once, as its own line says.
 */
function liveRunLines(io: CliIo, appUrl: string, runId: string): void {
  const runUrl = new URL(`runs/${uriComponent(runId)}`, appUrl).href;
  const serversUrl = new URL('servers', appUrl).href;
  io.stdout.write(terminalLine`a run left running with a slow call on the wire (try its Cancel button): ${runUrl}\n`);
  io.stdout.write(terminalLine`the servers page (calls by server; a cancel is never counted as a failure): ${serversUrl}\n`);
}

/**
 * Records the demo's runs, sends them on with --otlp, and serves them unless --no-serve, with one
 * more run left running (a slow call on the wire) until the operator cancels it or the demo stops.
 */
async function run(command: DemoOptions, io: CliIo): Promise<CliExitCode> {
  // before anything is recorded: a demo that cannot serve should not leave runs behind
  checkStoreTarget({ kind: 'sqlite', path: command.dbPath });
  if (command.otlp !== null) checkedEndpoint(command.otlp, '--otlp');
  if (command.serve) {
    checkServeConfig(command.host, command.token);
    await assertPortFree(command.host, command.port);
  }
  const { runDemo } = await import('../demo/runDemo.js');
  let result: Awaited<ReturnType<typeof runDemo>>;
  try {
    result = await runDemo({
      dbPath: command.dbPath,
      progress: (line) => io.stdout.write(`${terminalText(line)}\n`),
      signal: io.signal,
      // served: one run stays running with a slow call on the wire, for the app's Cancel
      leaveRunning: command.serve,
      // a week of history, so the servers page's charts are lines from the first look
      history: command.history,
    });
  } catch (error) {
    if (io.signal?.aborted !== true) throw error;
    io.stdout.write(
      terminalLine`runledger demo: stopped (${stopWords(io.signal)}) before all runs were recorded; the runs recorded so far are in ${command.dbPath}; goodbye\n`,
    );
    return CliExitCode.OK;
  }
  try {
    const leftRunning = result.liveRun === null ? '' : ' and left one more running';
    io.stdout.write(
      terminalLine`recorded ${counted('count.runs', result.runIds.length)}${leftRunning} into ${command.dbPath} (${counted('count.runs', result.totalRuns)} in the file now)\n`,
    );
    if (command.otlp !== null) await exportDemoRuns(io, result.store, result.runIds, command.otlp);
    const { liveRun } = result;
    if (command.serve) {
      const onListening = (url: string) => {
        if (liveRun !== null) liveRunLines(io, url, liveRun.id);
        io.onListening?.(url);
      };
      await serveStore({ ...io, onListening }, result.store, {
        host: command.host,
        port: command.port,
        token: command.token,
        what: `SQLite ${command.dbPath}`,
      });
    }
  } finally {
    // a Ctrl+C (or SIGTERM, …) while serving is our own stop: the run left running ends cancelled
    await result.liveRun?.stop(io.signal?.aborted === true ? `the demo was stopped (${stopWords(io.signal)})` : 'the demo ended');
    await result.store.close();
  }
  return CliExitCode.OK;
}

const FLAGS: readonly CliFlag[] = [
  DB_FLAG,
  ...SERVE_FLAGS,
  flag('no-serve', null),
  flag('no-history', null),
  flag('otlp', '<url>'),
  HELP_FLAG,
];

/** `runledger demo`: its flags, usage, parsing, `--json` shape and run. @internal */
export const demo: CliCommand<DemoOptions> = {
  name: 'demo',
  arguments: [],
  flags: FLAGS,
  usage: {
    synopsis: 'demo    [--db <file>] [--port <n>] [--host <addr>] [--token <t>] [--no-serve] [--no-history] [--otlp <url>]',
    about: `Start the bundled demo MCP servers (docs, flaky, slow) as child processes, record
scripted agent runs into the SQLite file (default ./runledger.db) and serve the app (as serve);
the first demo on a file also imports a week of history, marked "imported demo history"
(--no-history: not).
With --otlp, also send the demo's runs to that OTLP/HTTP endpoint (as export otlp).`,
  },
  jsonOutput: null,
  parse: flagParser('demo', FLAGS, (args) => {
    args.noPositionals();
    const db = args.defaulted('db');
    checkDbFlag(db, 'demo');
    return {
      dbPath: resolve(args.env.cwd, db),
      port: args.integer('port'),
      host: args.defaulted('host'),
      token: args.given('token') ?? (args.env.token || null),
      serve: !args.has('no-serve'),
      otlp: args.given('otlp') ?? null,
      history: !args.has('no-history'),
    };
  }),
  run,
};
