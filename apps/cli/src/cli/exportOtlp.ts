import type { RunStore } from '@runledger/trace';
import type { CliIo } from './CliIo.js';
import { CliSetupError } from './CliSetupError.js';
import { writeCliJson } from './cliJsonOutputs.js';
import { CliExitCode } from './cliSurface.js';
import { describeStore, openExistingStore } from './openStore.js';
import type { Command } from './parseCommand.js';
import { terminalLine } from './terminalText.js';

type ExportOtlpCommand = Extract<Command, { name: 'export-otlp' }>;

/**
 * The endpoint as given, when it is an http(s) URL.
 *
 * @throws CliSetupError from `checkedEndpoint` otherwise (exit 2), naming the flag.
 * @internal
 */
export function checkedEndpoint(endpoint: string, flag: string): string {
  let url: URL | null = null;
  try {
    url = new URL(endpoint);
  } catch {
    // refused below
  }
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new CliSetupError(`${flag} must be an http(s) URL such as http://127.0.0.1:4318, got ${JSON.stringify(endpoint)}`);
  }
  return endpoint;
}

/** The endpoint's refusal, said as such (the OTLP exporter's errors name only the HTTP status). */
function refused(error: unknown, endpoint: string): Error {
  const message = error instanceof Error ? error.message : String(error);
  return /^there is no run /.test(message) ? new Error(message) : new Error(`the spans could not be sent to ${endpoint}: ${message}`);
}

/**
 * `runledger export otlp`: sends stored runs to an OTLP/HTTP endpoint (exportRunsOtlp of
 * @runledger/otel), a progress line per run on stderr.
 *
 * @internal
 */
export async function exportOtlp(command: ExportOtlpCommand, io: CliIo): Promise<CliExitCode> {
  const endpoint = checkedEndpoint(command.endpoint, '--endpoint');
  const { exportRunsOtlp } = await import('@runledger/otel');
  const store = await openExistingStore(command.store);
  try {
    let result: Awaited<ReturnType<typeof exportRunsOtlp>>;
    try {
      result = await exportRunsOtlp(store, {
        endpoint,
        headers: command.headers,
        privacy: command.privacy,
        timeoutMs: command.timeoutMs,
        ...(command.runId === null ? {} : { runId: command.runId }),
        ...(command.since === null ? {} : { since: command.since }),
        onProgress: (p) =>
          io.stderr.write(
            p.exported
              ? terminalLine`runledger export otlp: [${p.runsSeen}] run ${p.runId}: ${p.spans} spans sent (${p.runsExported} runs, ${p.spansExported} spans so far)\n`
              : terminalLine`runledger export otlp: [${p.runsSeen}] run ${p.runId}: skipped, still running\n`,
          ),
      });
    } catch (error) {
      throw refused(error, endpoint);
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

/**
 * `runledger demo --otlp <url>`: sends the runs the demo just recorded to the endpoint. A refusal
 * is reported and the demo goes on (the runs are in the file; `export otlp` sends them again).
 *
 * @internal
 */
export async function exportDemoRuns(io: CliIo, store: RunStore, runIds: readonly string[], endpoint: string): Promise<void> {
  checkedEndpoint(endpoint, '--otlp');
  const { exportRunsOtlp } = await import('@runledger/otel');
  try {
    const result = await exportRunsOtlp(store, { endpoint, runIds });
    io.stdout.write(
      terminalLine`sent the ${result.runsExported} demo runs (${result.spansExported} spans) to ${result.url} as OpenTelemetry traces\n`,
    );
  } catch (error) {
    io.stderr.write(
      terminalLine`runledger demo: ${refused(error, endpoint).message}; the runs are in the file (runledger export otlp sends them again)\n`,
    );
  }
}
