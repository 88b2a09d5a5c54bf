// `runledger runs show <id>`: one run's header, its calls on the wire and its timeline, as text or JSON.
import { isLateCancel, type RunPage, type RunStore, type StoredRun } from '@runledger/trace';
import { timelineSlice } from '../app/timelineSlice.js';
import { Translator } from '../i18n/Translator.js';
import { reasonText } from '../views/reasonText.js';
import { wireMs, writeUnknownNote } from '../views/runView.js';
import { runDurationMs } from '../views/runsView.js';
import type { CliIo } from './CliIo.js';
import { writeCliJson } from './cliJsonOutputs.js';
import { CliExitCode } from './cliSurface.js';
import { describeStore } from './openStore.js';
import type { Command } from './parseCommand.js';
import { terminalTable } from './terminalTable.js';
import { terminalLine } from './terminalText.js';

const t = new Translator('en');

/** The shortest id prefix `runs show` takes: the short id the app shows. */
const MIN_PREFIX = 8;

type FoundRun =
  | { readonly kind: 'run'; readonly run: StoredRun }
  | { readonly kind: 'none' }
  | { readonly kind: 'short' }
  | { readonly kind: 'ambiguous'; readonly ids: readonly string[] };

/** The run with this id, else the one run whose id starts with it (at least 8 characters). */
async function findRun(store: RunStore, id: string): Promise<FoundRun> {
  const run = await store.getRun(id);
  if (run !== null) return { kind: 'run', run };
  if (id.length < MIN_PREFIX) return { kind: 'short' };
  const prefix = id.toLowerCase();
  const matches: StoredRun[] = [];
  let cursor: string | null = null;
  do {
    const page: RunPage = await store.listRuns({ limit: 200, cursor });
    for (const candidate of page.runs) if (candidate.id.toLowerCase().startsWith(prefix)) matches.push(candidate);
    cursor = page.nextCursor;
  } while (cursor !== null);
  if (matches.length === 0) return { kind: 'none' };
  if (matches.length > 1) return { kind: 'ambiguous', ids: matches.map((match) => match.id) };
  return { kind: 'run', run: matches[0]! };
}

/** Prints the run `command.id` names (the full id or a unique prefix) of an open store. */
export async function showRun(store: RunStore, command: Extract<Command, { name: 'runs-show' }>, io: CliIo): Promise<CliExitCode> {
  const found = await findRun(store, command.id);
  if (found.kind === 'none') {
    io.stderr.write(terminalLine`runledger runs show: there is no run "${command.id}" in ${describeStore(command.store)}\n`);
    return CliExitCode.FAILED;
  }
  if (found.kind === 'short') {
    io.stderr.write(
      terminalLine`runledger runs show: there is no run "${command.id}" in ${describeStore(command.store)}; give the full id or a prefix of at least ${MIN_PREFIX} characters\n`,
    );
    return CliExitCode.FAILED;
  }
  if (found.kind === 'ambiguous') {
    io.stderr.write(
      terminalLine`runledger runs show: "${command.id}" is the start of ${found.ids.length} runs; give more of the id:\n` +
        found.ids.map((id) => terminalLine`  ${id}\n`).join(''),
    );
    return CliExitCode.FAILED;
  }
  const run = found.run;
  const steps = await store.readSteps(run.id);
  const page = timelineSlice(run, steps, 0);
  const now = Date.now();
  const wire = page.wire ?? [];
  const lateCancel = isLateCancel(run);
  const unstored = run.unstoredSteps ?? 0;
  if (command.json) {
    writeCliJson(io, 'runs show', { run, cancelRequestedAfterFinish: lateCancel, callsOnTheWire: wire, timeline: page.entries });
    return CliExitCode.OK;
  }
  const duration = runDurationMs(run, now);
  io.stdout.write(
    terminalLine`run ${run.id}\nstatus ${run.status} · configuration ${run.configuration} · started ${t.date(run.startedAt ?? run.createdAt)}` +
      terminalLine` · duration ${duration === null ? '—' : t.duration(duration)}\n` +
      terminalLine`tool calls: ${run.outcomeCounts.ok} ok, ${run.outcomeCounts.failed} failed, ${run.outcomeCounts.cancelled} cancelled` +
      (run.terminationReason !== null ? terminalLine`\nreason: ${reasonText(t, run.terminationReason)}` : '') +
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
      ['TIME', 'SOURCE', 'KIND', 'ROUND', 'MS', 'OUTCOME', 'DETAILS'],
      page.entries.map((entry) => {
        const note = entry.callState === 'interrupted' ? t.t('runs.detail.callState.interruptedNote') : writeUnknownNote(t, entry);
        const ms = entry.durationMs ?? wireMs(entry, now);
        return [
          t.time(entry.time),
          entry.source === '' ? '—' : entry.source,
          entry.kind,
          entry.round === null ? '' : String(entry.round),
          ms === null ? '' : String(ms),
          entry.callState === null ? entry.outcome : entry.callState === 'on_the_wire' ? 'on the wire' : 'INTERRUPTED',
          entry.event !== null
            ? t.t(`runs.detail.lifecycle.${entry.event}`) +
              (entry.details['reason'] !== undefined ? ` — ${reasonText(t, String(entry.details['reason']))}` : '')
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
