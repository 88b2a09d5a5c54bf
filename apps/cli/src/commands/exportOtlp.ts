// `runledger export otlp`: stored runs to an OpenTelemetry backend over OTLP/HTTP, as traces or
// (`--metrics`) as the tool call histograms, a progress line per run.
import { counted } from '../commandKit/counted.js';
import type { CliIo } from '../commandKit/CliIo.js';
import { writeCliJson, count } from '../commandKit/cliJsonOutputs.js';
import { CliExitCode, flag, HELP_FLAG, JSON_FLAG, type CliFlag, STORE_FLAGS } from '../commandKit/cliSurface.js';
import { describeStore, openExistingStore } from '../commandKit/openStore.js';
import { checkedEndpoint, otlpRefusal } from '../commandKit/otlpEndpoint.js';
import { runNamed } from '../commandKit/runNamed.js';
import { terminalLine } from '../commandKit/terminalText.js';
import type { CliCommand } from '../commandKit/CliCommand.js';
import { flagParser, type StoreTarget } from '../commandKit/commandArgs.js';
import { UsageError } from '../commandKit/UsageError.js';
import { parseSince, parseHeaders } from '../commandKit/otlpFlags.js';
import { PRIVACY_LEVELS, PrivacyLevel } from '@runledger/trace';
import { z } from 'zod';

/** The options of `runledger export otlp`, as its command line gives them. @internal */
export interface ExportOtlpOptions {
  readonly store: StoreTarget;
  readonly endpoint: string;
  /** The run's id or a prefix of it (`--run`), or null for every run. */
  readonly runId: string | null;
  /** ms since the epoch, or null for every run. */
  readonly since: number | null;
  readonly headers: Readonly<Record<string, string>>;
  readonly privacy: PrivacyLevel;
  /** How long one request may take, its retries included (`--timeout`). */
  readonly timeoutMs: number;
  /** Send the tool call histograms instead of the traces (`--metrics`). */
  readonly metrics: boolean;
  /** With `--metrics`: the least call time between two points sent (`--point-every`, ms; default 60000). */
  readonly pointEveryMs: number;
  readonly json: boolean;
}

/** The shape of `runledger export otlp --json`. */
const JSON_OUTPUT = z.object({
  url: z.string().describe('the OTLP/HTTP URL sent to: the traces URL, or with --metrics the metrics URL'),
  runsSeen: count,
  runsExported: count,
  runsSkipped: count.describe('runs still running, left out'),
  spansExported: count.describe('0 with --metrics (no spans are sent)'),
  callsExported: count.optional().describe('with --metrics only: the ended tool calls counted into the histograms'),
});

/** What one signal's export did: its `--json` value and the words of its summary line. */
interface Sent {
  readonly json: z.infer<typeof JSON_OUTPUT>;
  readonly what: string;
}

/**
 * Sends the stored runs the command names (`--run` by its id or a unique prefix, `--since`, or
 * all) to its endpoint: as traces (exportRunsOtlp of @runledger/otel), or with `--metrics` their
 * tool calls as the live path's histograms (exportRunMetricsOtlp).
 */
async function run(command: ExportOtlpOptions, io: CliIo): Promise<CliExitCode> {
  const endpoint = checkedEndpoint(command.endpoint, '--endpoint');
  const { exportRunsOtlp, exportRunMetricsOtlp } = await import('@runledger/otel');
  const store = await openExistingStore(command.store);
  try {
    let runId: string | null = null;
    if (command.runId !== null) {
      const run = await runNamed(store, command.runId, { command: 'export otlp', store: command.store, io });
      if (run === null) return CliExitCode.FAILED;
      runId = run.id;
    }
    const selection = {
      endpoint,
      headers: command.headers,
      timeoutMs: command.timeoutMs,
      ...(runId === null ? {} : { runId }),
      ...(command.since === null ? {} : { since: command.since }),
    };
    const progress = (p: { readonly runsSeen: number; readonly runId: string; readonly exported: boolean }, sent: () => string) =>
      io.stderr.write(
        p.exported
          ? terminalLine`runledger export otlp: [${p.runsSeen}] run ${p.runId}: ` + sent() + '\n'
          : terminalLine`runledger export otlp: [${p.runsSeen}] run ${p.runId}: skipped, still running\n`,
      );
    let sent: Sent;
    try {
      if (command.metrics) {
        const result = await exportRunMetricsOtlp(store, {
          ...selection,
          pointEveryMs: command.pointEveryMs,
          onProgress: (p) =>
            progress(
              p,
              () =>
                terminalLine`${counted('count.toolCalls', p.calls)} counted (${counted('count.runs', p.runsExported)}, ${counted('count.toolCalls', p.callsExported)} so far)`,
            ),
        });
        sent = {
          json: { ...result, spansExported: 0 },
          what: terminalLine`the metrics of ${counted('count.runs', result.runsExported)} (${counted('count.toolCalls', result.callsExported)})`,
        };
      } else {
        const result = await exportRunsOtlp(store, {
          ...selection,
          privacy: command.privacy,
          onProgress: (p) =>
            progress(
              p,
              () =>
                terminalLine`${counted('count.spans', p.spans)} sent (${counted('count.runs', p.runsExported)}, ${counted('count.spans', p.spansExported)} so far)`,
            ),
        });
        sent = {
          json: result,
          what: terminalLine`${counted('count.runs', result.runsExported)} (${counted('count.spans', result.spansExported)})`,
        };
      }
    } catch (error) {
      throw otlpRefusal(error, endpoint, command.metrics ? 'metrics' : 'spans');
    }
    if (command.json) {
      writeCliJson(io, JSON_OUTPUT, sent.json);
      return CliExitCode.OK;
    }
    io.stdout.write(
      'exported ' +
        sent.what +
        terminalLine` from ${describeStore(command.store)} to ${sent.json.url}` +
        (sent.json.runsSkipped > 0 ? terminalLine`; ${sent.json.runsSkipped} still running, skipped` : '') +
        '\n',
    );
    return CliExitCode.OK;
  } finally {
    await store.close();
  }
}

const FLAGS: readonly CliFlag[] = [
  ...STORE_FLAGS,
  flag('endpoint', '<url>', { required: true }),
  flag('run', '<id>'),
  flag('since', '<time>'),
  flag('headers', '<k=v,...>'),
  flag('privacy', '<level>', { choices: PRIVACY_LEVELS, default: PrivacyLevel.METADATA }),
  flag('timeout', '<ms>', { min: 1, max: 3_600_000, default: '10000' }),
  flag('metrics', null),
  flag('point-every', '<ms>', { min: 0, max: 2_147_483_647, default: '60000' }),
  JSON_FLAG,
  HELP_FLAG,
];

/** `runledger export otlp`: its flags, usage, parsing, `--json` shape and run. @internal */
export const exportOtlp: CliCommand<ExportOtlpOptions, typeof JSON_OUTPUT> = {
  name: 'export otlp',
  arguments: [],
  flags: FLAGS,
  usage: {
    synopsis: `export otlp --endpoint <url> [--run <id | id prefix> | --since <time>] [--metrics [--point-every <ms>] | --privacy <level>] [--headers k=v,...] [--timeout <ms>] [--json]`,
    about: `Send stored runs to an OpenTelemetry backend over OTLP/HTTP (protobuf), one trace per
run (docs/otel.md); /v1/traces is added to a URL without a path. <time>: a date or time
(2026-11-30, 2026-11-30T08:00:00Z) or a span back from now (90m, 24h, 7d). Safe to
repeat: a run gives the same trace and span ids each time. Privacy (none, metadata,
redacted, full) default metadata: no prompt, answer, argument or result text is sent.
A progress line per run on stderr; runs still running are skipped. --timeout (default
10000, at most 3600000): how long one request may take, retries included; a request
without a complete answer by then, or refused (named by its HTTP status), exits 1.
--metrics: send the runs' ended tool calls as the histograms otelMetricsRunStore records
live (gen_ai.execute_tool.duration, mcp.client.operation.duration; same buckets and
attributes, error.type on failed calls only) instead of the traces, to /v1/metrics;
cumulative, each point timed within the runs' range (docs/otel.md). It sends no text,
so --privacy does not go with it. --point-every (default 60000, 0 to 2147483647): the
least call time in ms between two points sent; 0 sends a point after every run.`,
  },
  jsonOutput: JSON_OUTPUT,
  parse: flagParser('export otlp', FLAGS, (args) => {
    args.noPositionals();
    const endpoint = args.given('endpoint');
    if (endpoint === undefined)
      throw new UsageError('runledger export otlp: --endpoint <url> (the OTLP/HTTP endpoint, e.g. http://127.0.0.1:4318) is required');
    const runId = args.given('run');
    const since = args.given('since');
    if (runId !== undefined && since !== undefined) throw new UsageError('runledger export otlp: give either --run or --since, not both');
    const metrics = args.has('metrics');
    if (metrics && args.given('privacy') !== undefined)
      throw new UsageError(
        'runledger export otlp: --privacy does not go with --metrics (the histograms carry no step text, only tool, server, outcome and error.type)',
      );
    if (!metrics && args.given('point-every') !== undefined)
      throw new UsageError('runledger export otlp: --point-every goes with --metrics only (traces are sent a run at a time)');
    const headers = args.given('headers');
    return {
      store: args.store(),
      endpoint,
      runId: runId ?? null,
      since: since === undefined ? null : parseSince(since, Date.now()),
      headers: headers === undefined ? {} : parseHeaders(headers),
      privacy: args.defaulted('privacy') as PrivacyLevel,
      timeoutMs: args.integer('timeout'),
      metrics,
      pointEveryMs: args.integer('point-every'),
      json: args.has('json'),
    };
  }),
  run,
};
