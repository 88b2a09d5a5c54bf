import { canPruneRuns, copyRuns, deliverSpool, inspectSpool, type RunStore } from '@runledger/trace';
import { checkServeConfig, startRunsServer, ServeConfigError } from '../app/startRunsServer.js';
import { Translator } from '../i18n/Translator.js';
import { runDurationMs } from '../views/runsView.js';
import { healthVerdict, windowSince } from '../views/serversView.js';
import type { CliIo } from './CliIo.js';
import { writeCliJson } from './cliJsonOutputs.js';
import { checkedEndpoint, exportDemoRuns, exportOtlp } from './exportOtlp.js';
import { showRun } from './showRun.js';
import { currentSchemaVersion, describeStore, openExistingStore, openStore, storeSchemaVersion } from './openStore.js';
import { type Command, parseCommand, type StoreTarget } from './parseCommand.js';
import { terminalTable } from './terminalTable.js';
import { terminalLine, terminalText } from './terminalText.js';
import { USAGE } from './usage.js';
import { CliSetupError } from './CliSetupError.js';
import { CliExitCode } from './cliSurface.js';
import { UsageError } from './UsageError.js';
import { stopWords } from './CliStop.js';

const t = new Translator('en');

/** Opens the store a read command names (never creating it), uses it, closes it. */
async function withStore<T>(
  target: StoreTarget,
  use: (store: RunStore) => Promise<T>,
  open: (target: StoreTarget) => Promise<RunStore> = openExistingStore,
): Promise<T> {
  const store = await open(target);
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}

/** Resolves when the signal aborts (never without one). */
function whenAborted(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal === undefined) return;
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

async function serve(
  io: CliIo,
  store: RunStore,
  options: { host: string; port: number; token: string | null; what: string },
): Promise<void> {
  let server: Awaited<ReturnType<typeof startRunsServer>>;
  try {
    server = await startRunsServer({ store, host: options.host, port: options.port, token: options.token });
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

async function execute(command: Command, io: CliIo): Promise<CliExitCode> {
  switch (command.name) {
    case 'help':
      io.stdout.write(USAGE);
      return CliExitCode.OK;
    case 'serve': {
      checkServeConfig(command.host, command.token);
      const store = await openExistingStore(command.store);
      try {
        await serve(io, store, { ...command, what: describeStore(command.store) });
      } finally {
        await store.close();
      }
      return CliExitCode.OK;
    }
    case 'demo': {
      // before anything is recorded: a demo that cannot serve should not leave runs behind
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
        });
      } catch (error) {
        if (io.signal?.aborted !== true) throw error;
        io.stdout.write(
          terminalLine`runledger demo: stopped (${stopWords(io.signal)}) before all runs were recorded; the runs recorded so far are in ${command.dbPath}; goodbye\n`,
        );
        return CliExitCode.OK;
      }
      try {
        io.stdout.write(
          terminalLine`recorded ${result.runIds.length} runs into ${command.dbPath} (${result.totalRuns} runs in the file now)\n`,
        );
        if (command.otlp !== null) await exportDemoRuns(io, result.store, result.runIds, command.otlp);
        if (command.serve)
          await serve(io, result.store, { host: command.host, port: command.port, token: command.token, what: `SQLite ${command.dbPath}` });
      } finally {
        await result.store.close();
      }
      return CliExitCode.OK;
    }
    case 'runs-list':
      return withStore(command.store, async (store) => {
        const page = await store.listRuns({
          status: command.status ?? undefined,
          hasOutcome: command.has ?? undefined,
          limit: command.limit,
        });
        if (command.json) {
          writeCliJson(io, 'runs list', page);
          return CliExitCode.OK;
        }
        if (page.runs.length === 0) {
          io.stdout.write('no runs\n');
          return CliExitCode.OK;
        }
        const now = Date.now();
        io.stdout.write(
          terminalTable(
            ['ID', 'STATUS', 'CONFIGURATION', 'STARTED', 'DURATION', 'OK', 'FAILED', 'CANCELLED'],
            page.runs.map((run) => {
              const duration = runDurationMs(run, now);
              return [
                run.id,
                run.status,
                run.configuration,
                t.date(run.startedAt ?? run.createdAt),
                duration === null ? '—' : t.duration(duration),
                String(run.outcomeCounts.ok),
                String(run.outcomeCounts.failed),
                String(run.outcomeCounts.cancelled),
              ];
            }),
            [4, 5, 6, 7],
          ),
        );
        if (page.nextCursor !== null) io.stdout.write(`(more runs: raise --limit or use the app)\n`);
        return CliExitCode.OK;
      });
    case 'runs-show':
      return withStore(command.store, (store) => showRun(store, command, io));
    case 'runs-recover':
      return withStore(command.store, async (store) => {
        const ids = await store.recoverInterrupted(Date.now() - command.staleAfterMs);
        if (command.json) {
          writeCliJson(io, 'runs recover', { recovered: ids });
          return CliExitCode.OK;
        }
        io.stdout.write(
          ids.length === 0
            ? 'no stale running runs\n'
            : `${ids.map((id) => terminalLine`recovered ${id}\n`).join('')}${ids.length} runs ended\n`,
        );
        return CliExitCode.OK;
      });
    case 'prune':
      return withStore(command.store, async (store) => {
        if (!canPruneRuns(store)) throw new CliSetupError(`${describeStore(command.store)} cannot prune runs`);
        const olderThan = Math.max(0, Date.now() - command.olderThanMs);
        const result = await store.pruneRuns({ olderThan, dryRun: command.dryRun });
        if (command.json) {
          writeCliJson(io, 'prune', { olderThan, ...result });
          return CliExitCode.OK;
        }
        const when = (ms: number | null): string => (ms === null ? '-' : new Date(ms).toISOString());
        const verb = command.dryRun ? 'would delete' : 'deleted';
        io.stdout.write(
          result.runs === 0 && result.steps === 0
            ? terminalLine`no runs ended before ${when(olderThan)}; nothing to delete\n`
            : terminalLine`${verb} ${result.runs} runs (${result.steps} steps) that ended before ${when(olderThan)}: oldest ended ${when(result.oldestFinishedAt)}, newest ${when(result.newestFinishedAt)}${command.dryRun ? ' (dry run: nothing deleted)' : ` in ${result.batches} batches`}\n`,
        );
        return CliExitCode.OK;
      });
    case 'servers':
      return withStore(command.store, async (store) => {
        const since = windowSince(command.window, Date.now());
        const rows = await store.serverHealth(since === undefined ? {} : { since });
        if (command.json) {
          writeCliJson(io, 'servers', rows);
          return CliExitCode.OK;
        }
        if (rows.length === 0) {
          io.stdout.write('no tool calls recorded\n');
          return CliExitCode.OK;
        }
        io.stdout.write(
          terminalTable(
            [
              'SERVER',
              'CALLS',
              'OK',
              'FAILED',
              'CANCELLED',
              'INVALID ARGS',
              'FAILURE RATE',
              'FAILURES BY CAUSE',
              'LAST FAILURE',
              'P95 MS',
              'HEALTH',
            ],
            rows.map((row) => {
              const verdict = healthVerdict(row);
              return [
                row.server,
                String(row.calls),
                String(row.ok),
                String(row.failed),
                String(row.cancelled),
                String(row.invalidArguments),
                row.failureRate === null ? '—' : t.ratio(row.failureRate),
                row.failureCauses.length === 0 ? '—' : row.failureCauses.map((c) => `${c.cause} ${c.calls}`).join(', '),
                row.lastFailureAt === null ? 'never' : t.date(row.lastFailureAt),
                row.p95DurationMs === null ? '—' : String(row.p95DurationMs),
                verdict === 'flaky' ? 'FLAKY' : verdict === 'noAnswers' ? 'no answers' : verdict === 'tooFew' ? 'too few calls' : 'healthy',
              ];
            }),
            [1, 2, 3, 4, 5, 6, 9],
          ),
        );
        io.stdout.write(
          'failure rate = failed / (ok + failed), without cancellations and invalid-argument calls (ours or the model’s, never the server’s); p95 over answered calls only\n',
        );
        return CliExitCode.OK;
      });
    case 'migrate': {
      const before = await storeSchemaVersion(command.store);
      await withStore(command.store, async () => undefined, openStore);
      const after = (await storeSchemaVersion(command.store)) ?? (await currentSchemaVersion(command.store));
      const what = describeStore(command.store);
      io.stdout.write(
        before === null || before === 0
          ? terminalLine`${what}: created at schema version ${after}\n`
          : before === after
            ? terminalLine`${what}: already at schema version ${after}; nothing to do\n`
            : terminalLine`${what}: upgraded from schema version ${before} to ${after}\n`,
      );
      return CliExitCode.OK;
    }
    case 'spool-list': {
      const files = await inspectSpool(command.spoolDir);
      if (command.json) {
        writeCliJson(io, 'spool list', { dir: command.spoolDir, files });
        return CliExitCode.OK;
      }
      if (files.length === 0) {
        io.stdout.write(terminalLine`no spool files in ${command.spoolDir}\n`);
        return CliExitCode.OK;
      }
      io.stdout.write(
        terminalTable(
          ['FILE', 'PROCESS', 'STEPS', 'FINAL STATUSES', 'RUNS', 'LOST'],
          files.map((file) => [
            file.path,
            `${file.pid ?? '?'}${file.alive ? ' (alive)' : ''}`,
            String(file.steps),
            String(file.finishes),
            String(file.runs),
            // acknowledged entries the file does not hold any more (it was cut short)
            String(file.lost),
          ]),
          [2, 3, 4, 5],
        ),
      );
      return CliExitCode.OK;
    }
    case 'spool-deliver':
      return withStore(
        command.store,
        async (store) => {
          const result = await deliverSpool(store, {
            dir: command.spoolDir,
            includeLiveProcesses: command.all,
            setAside: command.setAside,
          });
          if (command.json) {
            writeCliJson(io, 'spool deliver', result);
          } else if (result.files.length === 0) {
            io.stdout.write(terminalLine`no spool files in ${result.dir}\n`);
          } else {
            for (const file of result.files) {
              const torn = file.torn > 0 && file.lost === 0 ? `, ${file.torn} torn last line skipped (never acknowledged)` : '';
              const what = `${file.steps} steps, ${file.finishes} final statuses${file.lateFinishes.length > 0 ? `, ${file.lateFinishes.length} late final statuses` : ''}${torn}`;
              io.stdout.write(
                file.state === 'delivered'
                  ? terminalLine`delivered ${file.path}: ${what}; ${file.problem ?? 'file removed'}\n`
                  : file.state === 'skipped'
                    ? terminalLine`skipped ${file.path}: ${file.problem} (it delivers its own; --all to deliver anyway)\n`
                    : file.state === 'set_aside'
                      ? terminalLine`SET ASIDE ${file.path}: ${what} delivered, then ${file.problem}\n`
                      : terminalLine`KEPT ${file.path}: ${what} delivered, then ${file.problem}${command.setAside ? '' : ' (if it can never be delivered, --set-aside moves it out of the way)'}\n`,
              );
              for (const late of file.lateFinishes) {
                io.stdout.write(
                  terminalLine`  LATE: the final status "${late.status}" of run ${late.runId} arrived after the run had ended "${late.runStatus}"; kept as its late finish, ${late.unstoredSteps} unstored steps counted\n`,
                );
              }
            }
          }
          // a file that is not delivered whole, or that lost entries, fails the command (set aside or not)
          return result.files.some((file) => file.state === 'kept' || file.state === 'set_aside') ? CliExitCode.FAILED : CliExitCode.OK;
        },
        // a store that is not there refuses, as the read commands do: it would not hold these runs
        openExistingStore,
      );
    case 'copy': {
      const source = await openExistingStore({ kind: 'sqlite', path: command.dbPath });
      try {
        const target = await openStore(command.target);
        try {
          io.stdout.write(terminalLine`copying runs from SQLite ${command.dbPath} to ${describeStore(command.target)} …\n`);
          const result = await copyRuns(source, target, {
            onProgress: (p) =>
              io.stdout.write(
                terminalLine`  [${p.runsSeen}] run ${p.runId}: ${p.runsCopied} copied, ${p.runsSkipped} already there, ${p.stepsCopied} steps so far\n`,
              ),
          });
          io.stdout.write(
            `copy finished: ${result.runsCopied} runs copied (${result.stepsCopied} steps), ${result.runsSkipped} already there and skipped, ${result.runsSeen} seen\n`,
          );
        } finally {
          await target.close();
        }
      } finally {
        await source.close();
      }
      return CliExitCode.OK;
    }
    case 'export-otlp':
      return exportOtlp(command, io);
  }
}

/**
 * Runs the `runledger` command line in-process and returns the exit code ({@link CliExitCode}):
 * 0 on success, 1 when the command failed, 2 for a command line it does not understand (with the
 * usage printed) or a setup to fix first.
 *
 * @public
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<CliExitCode> {
  let command: Command;
  try {
    command = parseCommand(argv, {
      cwd: io.cwd,
      token: io.env['RUNLEDGER_TOKEN'],
      pgUrl: io.env['RUNLEDGER_PG_URL'],
      spoolDir: io.env['RUNLEDGER_SPOOL_DIR'] || undefined,
    });
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`${terminalText(error.message)}\n\n${USAGE}`);
      return CliExitCode.USAGE;
    }
    throw error;
  }
  try {
    return await execute(command, io);
  } catch (error) {
    if (error instanceof ServeConfigError) {
      io.stderr.write(terminalLine`${error.message}\n`);
      return CliExitCode.USAGE;
    }
    if (error instanceof CliSetupError) {
      io.stderr.write(terminalLine`runledger ${command.name.replace('-', ' ')}: ${error.message}\n`);
      return CliExitCode.USAGE;
    }
    io.stderr.write(terminalLine`runledger ${command.name.replace('-', ' ')}: ${error instanceof Error ? error.message : String(error)}\n`);
    return CliExitCode.FAILED;
  }
}
