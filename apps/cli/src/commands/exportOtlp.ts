// `runledger export otlp`: stored runs to an OpenTelemetry backend over OTLP/HTTP, a progress line per run.
import type { CliIo } from '../commandKit/CliIo.js';
import { writeCliJson } from '../commandKit/cliJsonOutputs.js';
import { CliExitCode } from '../commandKit/cliSurface.js';
import { describeStore, openExistingStore } from '../commandKit/openStore.js';
import { checkedEndpoint, otlpRefusal } from '../commandKit/otlpEndpoint.js';
import type { Command } from '../cli/parseCommand.js';
import { runNamed } from '../commandKit/runNamed.js';
import { terminalLine } from '../commandKit/terminalText.js';

/**
 * Sends the stored runs the command names (`--run` by its id or a unique prefix, `--since`, or
 * all) to its endpoint (exportRunsOtlp of @runledger/otel).
 *
 * @internal
 */
export async function exportOtlp(command: Extract<Command, { name: 'export-otlp' }>, io: CliIo): Promise<CliExitCode> {
  const endpoint = checkedEndpoint(command.endpoint, '--endpoint');
  const { exportRunsOtlp } = await import('@runledger/otel');
  const store = await openExistingStore(command.store);
  try {
    let runId: string | null = null;
    if (command.runId !== null) {
      const run = await runNamed(store, command.runId, { command: 'export otlp', store: command.store, io });
      if (run === null) return CliExitCode.FAILED;
      runId = run.id;
    }
    let result: Awaited<ReturnType<typeof exportRunsOtlp>>;
    try {
      result = await exportRunsOtlp(store, {
        endpoint,
        headers: command.headers,
        privacy: command.privacy,
        timeoutMs: command.timeoutMs,
        ...(runId === null ? {} : { runId }),
        ...(command.since === null ? {} : { since: command.since }),
        onProgress: (p) =>
          io.stderr.write(
            p.exported
              ? terminalLine`runledger export otlp: [${p.runsSeen}] run ${p.runId}: ${p.spans} spans sent (${p.runsExported} runs, ${p.spansExported} spans so far)\n`
              : terminalLine`runledger export otlp: [${p.runsSeen}] run ${p.runId}: skipped, still running\n`,
          ),
      });
    } catch (error) {
      throw otlpRefusal(error, endpoint);
    }
    if (command.json) {
      writeCliJson(io, 'export otlp', result);
      return CliExitCode.OK;
    }
    io.stdout.write(
      terminalLine`exported ${result.runsExported} runs (${result.spansExported} spans) from ${describeStore(command.store)} to ${result.url}` +
        (result.runsSkipped > 0 ? terminalLine`; ${result.runsSkipped} still running, skipped` : '') +
        '\n',
    );
    return CliExitCode.OK;
  } finally {
    await store.close();
  }
}
