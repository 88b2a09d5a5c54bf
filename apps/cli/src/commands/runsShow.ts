// `runledger runs show <id>`: one run's summary, its calls on the wire and its timeline, as text or
// JSON; the text in the run page's labels and words (its i18n messages), never words of its own.
import { isLateCancel, type RunStore, type RunTimelineDetail, type RunTimelineEntry, type StoredRun } from '@runledger/trace';
import { runDurationMs } from '../viewModels/runDurationMs.js';
import { readTimelineSlice } from '../app/timelineSlice.js';
import { wireMs } from '../viewModels/wireMs.js';
import { writeUnknownNote } from '../viewModels/writeUnknownNote.js';
import type { MessageKey } from '../i18n/messagesEn.js';
import { Translator } from '../i18n/Translator.js';
import { sourceText } from '../views/runView.js';
import { kindText } from '../views/kindText.js';
import { reasonText, reasonWordsText } from '../views/reasonText.js';
import { approvalOfDetails, approvalText } from '../views/approvalText.js';
import { cancelRequestText } from '../views/cancelRequestText.js';
import type { CliIo } from '../commandKit/CliIo.js';
import { writeCliJson, storedRun, timelineEntry } from '../commandKit/cliJsonOutputs.js';
import { CliExitCode, flag, HELP_FLAG, JSON_FLAG, STORE_SYNOPSIS, type CliFlag, STORE_FLAGS } from '../commandKit/cliSurface.js';
import { badCursorError, decodeListingCursor, encodeListingCursor } from '../commandKit/listingCursor.js';
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
  /** The most steps to show: 1 to {@link MAX_LIMIT}. */
  readonly limit: number;
  /** The `nextCursor` of the page before, or null for the run's first step. */
  readonly cursor: string | null;
}

/** The most steps one page shows (`--limit`, also its default: a run of up to 1,000 steps prints whole). */
const MAX_LIMIT = 1000;

/** The shape of `runledger runs show --json`. */
const JSON_OUTPUT = z.object({
  run: storedRun,
  cancelRequestedAfterFinish: z.boolean(),
  callsOnTheWire: z.array(timelineEntry),
  timeline: z.array(timelineEntry),
  nextCursor: z.string().nullable().describe('the --cursor of the page of steps after this one; null on the last'),
});

const t = new Translator('en');

/** Details the text leaves out: the write note and the call id, and the approval said in words. */
const TEXT_HIDDEN_DETAILS = new Set(['writes', 'toolCallId', 'approved', 'approvedBy', 'approvalReason']);

/** "  Approved by alice" after a decided call's details; '' for any other entry. */
function approvalWords(details: Readonly<Record<string, RunTimelineDetail>>): string {
  const approval = approvalOfDetails(details);
  return approval === null ? '' : `  ${approvalText(t, approval)}`;
}

/** Prints the run the command names (its id or a unique prefix) in the store it names. */
function run(command: RunsShowOptions, io: CliIo): Promise<CliExitCode> {
  return withStore(command.store, (store) => showRun(store, command, io));
}

async function showRun(store: RunStore, command: RunsShowOptions, io: CliIo): Promise<CliExitCode> {
  const run = await runNamed(store, command.id, { command: 'runs show', store: command.store, io });
  if (run === null) return CliExitCode.FAILED;
  const from = command.cursor === null ? 0 : fromOfCursor(command.cursor, run);
  if (from === null) {
    // a cursor a page of another run printed (or past this run's end): a command line to fix
    io.stderr.write(terminalLine`${badCursorError('runs show', command.cursor!).message}\n`);
    return CliExitCode.USAGE;
  }
  // the page's steps, as the run page reads one (the app's pager): a 100,000-step run is read a page at a time
  const page = await readTimelineSlice(store, run, from, command.limit);
  const next = from + page.stepsShown;
  const nextCursor = page.stepsShown === command.limit && next < run.stepCount ? encodeListingCursor({ run: run.id, from: next }) : null;
  const now = Date.now();
  const wire = page.wire ?? [];
  const lateCancel = isLateCancel(run);
  if (command.json) {
    writeCliJson(io, JSON_OUTPUT, {
      run,
      cancelRequestedAfterFinish: lateCancel,
      callsOnTheWire: wire,
      timeline: page.entries,
      nextCursor,
    });
    return CliExitCode.OK;
  }
  io.stdout.write(`${summaryText(run, now)}\n`);
  const header = (key: MessageKey) => t.t(key).toLocaleUpperCase(t.locale);
  if (run.status === 'running') {
    if (wire.length === 0) io.stdout.write(terminalLine`${t.t('runs.detail.wire.title')}: ${t.t('runs.detail.wire.none')}\n\n`);
    else {
      io.stdout.write(terminalLine`${t.t('runs.detail.wire.title')}: ${t.t('runs.detail.wire.intro')}\n`);
      io.stdout.write(
        terminalTable(
          [
            header('runs.detail.wire.col.tool'),
            header('runs.detail.wire.col.server'),
            header('runs.detail.wire.col.sent'),
            header('runs.detail.wire.col.running'),
          ],
          wire.map((entry) => [
            String(entry.details['toolName'] ?? ''),
            entry.source === '' ? t.t('common.none') : entry.source,
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
      [
        header('runs.detail.col.end'),
        header('runs.detail.col.source'),
        header('runs.detail.col.kind'),
        header('runs.detail.col.round'),
        header('runs.detail.col.duration'),
        header('runs.detail.col.outcome'),
        header('runs.detail.col.details'),
      ],
      page.entries.map((entry) => {
        const note = entry.callState === 'interrupted' ? t.t('runs.detail.callState.interruptedNote') : writeUnknownNote(t, entry);
        const ms = entry.durationMs ?? wireMs(entry, now);
        const source = sourceText(t, entry);
        return [
          t.time(entry.time),
          source === '' ? t.t('common.none') : source,
          entry.event !== null ? t.t('runs.detail.kind.lifecycle') : kindText(t, entry.kind),
          entry.round === null ? '' : t.number(entry.round),
          ms === null ? '' : t.duration(ms),
          outcomeText(entry),
          entry.event !== null
            ? t.t(`runs.detail.lifecycle.${entry.event}`) +
              (entry.details['reason'] !== undefined ? ` — ${reasonWordsText(t, String(entry.details['reason']))}` : '')
            : entry.unreadable
              ? `${t.t('runs.detail.unreadable')} ${entry.unreadableReason ?? ''}`.trim()
              : Object.entries(entry.details)
                  .filter(([key]) => !TEXT_HIDDEN_DETAILS.has(key))
                  .map(([key, value]) => `${key}=${String(value)}`)
                  .join(' ') +
                approvalWords(entry.details) +
                (note === null ? '' : `  ⚠ ${note}`),
        ];
      }),
      [3, 4],
    ),
  );
  if (nextCursor !== null) {
    io.stdout.write(
      terminalLine`(steps ${t.number(from + 1)}–${t.number(next)} of ${t.number(run.stepCount)}: the next page is --cursor ${nextCursor})\n`,
    );
  }
  return CliExitCode.OK;
}

/** Where a `--cursor` a runs show page printed starts: its run and first step, else null. */
function positionOf(cursor: string): { readonly run: string; readonly from: number } | null {
  const position = decodeListingCursor(cursor);
  const { run, from } = position ?? {};
  return typeof run === 'string' && typeof from === 'number' && Number.isInteger(from) && from >= 0 ? { run, from } : null;
}

/** The first step of the page a `--cursor` names, when a page of this run printed it; else null. */
function fromOfCursor(cursor: string, run: StoredRun): number | null {
  const position = positionOf(cursor);
  return position !== null && position.run === run.id && position.from <= run.stepCount ? position.from : null;
}

/**
 * The run's summary with the run page's labels and words, one `Label: value` a line: status,
 * configuration, who started it, when, how long, a cancel and a late final status with their
 * notes, the reason, the steps (and those not stored), the tool calls by outcome, the privacy note.
 */
function summaryText(run: StoredRun, now: number): string {
  const none = t.t('common.none');
  const line = (key: MessageKey, value: string) => terminalLine`${t.t(key)}: ${value}\n`;
  const duration = runDurationMs(run, now);
  const reason = reasonText(t, run);
  const unstored = run.unstoredSteps ?? 0;
  const counts = (['ok', 'failed', 'cancelled'] as const).map(
    (outcome) => `${t.number(run.outcomeCounts[outcome])} ${t.t(`runs.detail.outcome.${outcome}`)}`,
  );
  return (
    terminalLine`${t.t('runs.detail.title', { id: run.id })}\n` +
    (run.title != null ? terminalLine`${run.title}\n` : '') +
    line('runs.col.status', t.t(`runs.status.${run.status}`)) +
    line('runs.col.configuration', run.configuration) +
    (run.actor !== null ? line('runs.detail.actor', run.actor) : '') +
    line('runs.col.started', t.date(run.startedAt ?? run.createdAt)) +
    line('runs.col.finished', run.finishedAt === null ? none : t.date(run.finishedAt)) +
    line('runs.col.duration', duration === null ? none : t.duration(duration)) +
    (run.cancelRequestedAt !== null
      ? line(
          'runs.detail.cancelRequestedAt',
          t.date(run.cancelRequestedAt) +
            (run.cancelRequest != null ? ` ${cancelRequestText(t, run.cancelRequest)}` : '') +
            (isLateCancel(run) ? ` — ${t.t('runs.detail.lateCancel')}` : ''),
        )
      : '') +
    (reason !== null ? line('runs.detail.reason', reason) : '') +
    (run.lateFinishStatus != null
      ? line(
          'runs.detail.lateFinish',
          `${t.t(`runs.status.${run.lateFinishStatus}`)}${run.lateFinishAt != null ? ` ${t.date(run.lateFinishAt)}` : ''} — ${t.t('runs.detail.lateFinishNote')}`,
        )
      : '') +
    line('runs.detail.steps', t.number(run.stepCount)) +
    (unstored > 0 ? line('runs.detail.unstored', t.number(unstored)) : '') +
    line('runs.col.calls', counts.join(', ')) +
    (unstored > 0 ? terminalLine`⚠ ${t.t('runs.detail.unstoredNote', { count: unstored })}\n` : '') +
    terminalLine`${t.t('runs.detail.privacy')}\n`
  );
}

/** A step's outcome as the run page says it: its call state, or its outcome and, for a write, that it may have executed. */
function outcomeText(entry: RunTimelineEntry): string {
  if (entry.callState !== null) return t.t(`runs.detail.callState.${entry.callState}`);
  if (entry.outcome === '') return '';
  const outcome = t.t(`runs.detail.outcome.${entry.outcome}`);
  return entry.mayHaveExecuted ? `${outcome}, ${t.t('runs.detail.mayHaveExecuted')}` : outcome;
}

/** A `--cursor` as given: one a runs show page printed (its run is checked once the run is read), else a usage error. */
function cursorOf(cursor: string | undefined): string | null {
  if (cursor === undefined) return null;
  if (positionOf(cursor) === null) throw badCursorError('runs show', cursor);
  return cursor;
}

const FLAGS: readonly CliFlag[] = [
  ...STORE_FLAGS,
  flag('limit', '<n>', { min: 1, max: MAX_LIMIT, default: String(MAX_LIMIT) }),
  flag('cursor', '<cursor>'),
  JSON_FLAG,
  HELP_FLAG,
];

/** `runledger runs show`: its flags, usage, parsing, `--json` shape and run. @internal */
export const runsShow: CliCommand<RunsShowOptions, typeof JSON_OUTPUT> = {
  name: 'runs show',
  arguments: [{ name: 'id', required: true }],
  flags: FLAGS,
  usage: {
    synopsis: `runs show <id | id prefix of 8+ characters> ${STORE_SYNOPSIS} [--limit <n>] [--cursor <cursor>] [--json]`,
    about: `Print one run's timeline (metadata only) and, while it runs, the tool calls on the wire.
An id prefix that starts more than one run is refused, listing them. A page shows up to --limit steps
(1 to 1000, default 1000); --cursor: the nextCursor of the page before (printed under the table and in --json).`,
  },
  jsonOutput: JSON_OUTPUT,
  parse: flagParser('runs show', FLAGS, (args) => {
    return {
      store: args.store(),
      id: args.runId(),
      json: args.has('json'),
      limit: args.integer('limit'),
      cursor: cursorOf(args.given('cursor')),
    };
  }),
  run,
};
