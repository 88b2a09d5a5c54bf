// `runledger runs show <id>`: one run's header, its calls on the wire and its timeline, as text or JSON.
import { isLateCancel, type RunStore } from '@runledger/trace';
import { runDurationMs } from '../viewModels/runDurationMs.js';
import { timelineSlice } from '../app/timelineSlice.js';
import { wireMs } from '../viewModels/wireMs.js';
import { writeUnknownNote } from '../viewModels/writeUnknownNote.js';
import { Translator } from '../i18n/Translator.js';
import { kindText } from '../views/kindText.js';
import { reasonText, reasonWordsText } from '../views/reasonText.js';
import type { CliIo } from '../commandKit/CliIo.js';
import { writeCliJson, storedRun, timelineEntry } from '../commandKit/cliJsonOutputs.js';
import { CliExitCode, HELP_FLAG, JSON_FLAG, STORE_SYNOPSIS, type CliFlag, STORE_FLAGS } from '../commandKit/cliSurface.js';
import { runNamed } from '../commandKit/runNamed.js';
import { terminalTable } from '../commandKit/terminalTable.js';
import { terminalLine } from '../commandKit/terminalText.js';
import { withStore } from '../commandKit/withStore.js';
import type { CliCommand } from '../commandKit/CliCommand.js';
import { flagParser, type StoreTarget } from '../commandKit/commandArgs.js';
import { z } from 'zod';

/** The options of `runledger runs show`, as its command line gives them. @internal */
export interface RunsShowOptions {
  readonly store: StoreTarget;
  readonly id: string;
  readonly json: boolean;
}

/** The shape of `runledger runs show --json`. */
const JSON_OUTPUT = z.object({
  run: storedRun,
  cancelRequestedAfterFinish: z.boolean(),
  callsOnTheWire: z.array(timelineEntry),
  timeline: z.array(timelineEntry),
});

const t = new Translator('en');

/** Prints the run the command names (its id or a unique prefix) in the store it names. */
function run(command: RunsShowOptions, io: CliIo): Promise<CliExitCode> {
  return withStore(command.store, (store) => showRun(store, command, io));
}

async function showRun(store: RunStore, command: RunsShowOptions, io: CliIo): Promise<CliExitCode> {
  const run = await runNamed(store, command.id, { command: 'runs show', store: command.store, io });
  if (run === null) return CliExitCode.FAILED;
  const steps = await store.readSteps(run.id);
  const page = timelineSlice(run, steps, 0);
  const now = Date.now();
  const wire = page.wire ?? [];
  const lateCancel = isLateCancel(run);
  const unstored = run.unstoredSteps ?? 0;
  if (command.json) {
    writeCliJson(io, JSON_OUTPUT, { run, cancelRequestedAfterFinish: lateCancel, callsOnTheWire: wire, timeline: page.entries });
    return CliExitCode.OK;
  }
  const duration = runDurationMs(run, now);
  const reason = reasonText(t, run);
  io.stdout.write(
    terminalLine`run ${run.id}\n` +
      (run.title != null ? terminalLine`title ${run.title}\n` : '') +
      terminalLine`status ${run.status} · configuration ${run.configuration} · started ${t.date(run.startedAt ?? run.createdAt)}` +
      terminalLine` · duration ${duration === null ? '—' : t.duration(duration)}\n` +
      terminalLine`tool calls: ${run.outcomeCounts.ok} ok, ${run.outcomeCounts.failed} failed, ${run.outcomeCounts.cancelled} cancelled` +
      (reason !== null ? terminalLine`\nreason: ${reason}` : '') +
      (lateCancel
        ? terminalLine`\ncancel requested after the run finished (${t.date(run.cancelRequestedAt!)}): it did not change how the run ended`
        : '') +
      (run.lateFinishStatus != null
        ? terminalLine`\nlate final status: its process reported "${run.lateFinishStatus}"${run.lateFinishAt != null ? terminalLine` (${t.date(run.lateFinishAt)})` : ''} after the run had ended; it did not change how the run ended`
        : '') +
      (unstored > 0 ? terminalLine`\nWARNING: ${unstored} steps were not stored (the timeline misses them)` : '') +
      '\n(metadata only: prompts, answers, tool arguments and results are never shown)\n\n',
  );
  if (run.status === 'running') {
    if (wire.length === 0) io.stdout.write('calls on the wire: none right now\n\n');
    else {
      io.stdout.write('calls on the wire (sent, not answered yet; cancelling the run stops them):\n');
      io.stdout.write(
        terminalTable(
          ['TOOL', 'SERVER', 'SENT', 'RUNNING FOR'],
          wire.map((entry) => [
            String(entry.details['toolName'] ?? ''),
            entry.source === '' ? '—' : entry.source,
            t.time(entry.time),
            t.duration(wireMs(entry, now) ?? 0),
          ]),
          [3],
        ),
      );
      io.stdout.write('\n');
    }
  }
  io.stdout.write(
    terminalTable(
      ['TIME', 'SOURCE', 'KIND', 'ROUND', 'DURATION', 'OUTCOME', 'DETAILS'],
      page.entries.map((entry) => {
        const note = entry.callState === 'interrupted' ? t.t('runs.detail.callState.interruptedNote') : writeUnknownNote(t, entry);
        const ms = entry.durationMs ?? wireMs(entry, now);
        return [
          t.time(entry.time),
          entry.source === '' ? '—' : entry.source,
          entry.event !== null ? t.t('runs.detail.kind.lifecycle') : kindText(t, entry.kind),
          entry.round === null ? '' : String(entry.round),
          ms === null ? '' : t.duration(ms),
          entry.callState !== null
            ? entry.callState === 'on_the_wire'
              ? 'on the wire'
              : 'INTERRUPTED'
            : entry.mayHaveExecuted
              ? `${entry.outcome}, MAY HAVE EXECUTED`
              : entry.outcome,
          entry.event !== null
            ? t.t(`runs.detail.lifecycle.${entry.event}`) +
              (entry.details['reason'] !== undefined ? ` — ${reasonWordsText(t, String(entry.details['reason']))}` : '')
            : entry.unreadable
              ? `${t.t('runs.detail.unreadable')} ${entry.unreadableReason ?? ''}`.trim()
              : Object.entries(entry.details)
                  .filter(([key]) => key !== 'writes' && key !== 'toolCallId')
                  .map(([key, value]) => `${key}=${String(value)}`)
                  .join(' ') + (note === null ? '' : `  ⚠ ${note}`),
        ];
      }),
      [3, 4],
    ),
  );
  return CliExitCode.OK;
}

const FLAGS: readonly CliFlag[] = [...STORE_FLAGS, JSON_FLAG, HELP_FLAG];

/** `runledger runs show`: its flags, usage, parsing, `--json` shape and run. @internal */
export const runsShow: CliCommand<RunsShowOptions, typeof JSON_OUTPUT> = {
  name: 'runs show',
  arguments: [{ name: 'id', required: true }],
  flags: FLAGS,
  usage: {
    synopsis: `runs show <id | id prefix of 8+ characters> ${STORE_SYNOPSIS} [--json]`,
    about: `Print one run's timeline (metadata only) and, while it runs, the tool calls on the wire.
An id prefix that starts more than one run is refused, listing them.`,
  },
  jsonOutput: JSON_OUTPUT,
  parse: flagParser('runs show', FLAGS, (args) => {
    return { store: args.store(), id: args.runId(), json: args.has('json') };
  }),
  run,
};
