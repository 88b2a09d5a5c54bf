import { TOOL_FAILURE_CAUSES, TOOL_OUTCOMES } from '@runledger/core';
import { RUN_STATUSES, RunCallState, RunLifecycleEvent, type TerminalRunStatus, UNKNOWN_FAILURE_CAUSE } from '@runledger/trace';
import { z } from 'zod';
import type { CliIo } from './CliIo.js';
import type { CliJsonCommand } from './cliSurface.js';
import { terminalJson } from './terminalText.js';

/**
 * The shapes of the CLI's `--json` outputs (zod 4), frozen like the TypeScript surface: every
 * `--json` output is written through its schema ({@link writeCliJson}), so it carries exactly the
 * properties listed here, and `pnpm api:update` writes their JSON Schema into
 * `api-reports/cli.cli.json`. A removed or newly optional property is breaking there, a new one
 * additive. Objects are `z.object` (unknown properties are stripped, never passed through): a
 * property a store adds reaches the output only once it is added here, which the tests demand.
 */

const millis = z.number().describe('milliseconds since the Unix epoch');
const count = z.number().int().min(0);

const terminalRunStatus = z.enum(RUN_STATUSES.filter((status) => status !== 'running') as [TerminalRunStatus, ...TerminalRunStatus[]]);

const outcomeCounts = z.object({ ok: count, failed: count, cancelled: count });

const storedRun = z.object({
  id: z.string(),
  status: z.enum(RUN_STATUSES),
  configuration: z.string(),
  actor: z.string().nullable(),
  title: z.string().nullable().optional().describe('the readable title the recorder gave the run, or null'),
  createdAt: millis,
  startedAt: millis.nullable(),
  finishedAt: millis.nullable(),
  heartbeatAt: millis.nullable(),
  cancelRequestedAt: millis.nullable(),
  terminationReason: z.string().nullable(),
  stepCount: count,
  outcomeCounts,
  tokens: count.optional().describe('the model tokens its steps used (the prompt and completion tokens of its LLM calls)'),
  unstoredSteps: count.optional(),
  lateFinishStatus: terminalRunStatus
    .nullable()
    .optional()
    .describe('the status a final status asked for that arrived after the run had ended (kept beside how it ended)'),
  lateFinishAt: millis.nullable().optional(),
});

const timelineEntry = z.object({
  time: millis,
  sequence: count.nullable(),
  event: z.enum(Object.values(RunLifecycleEvent)).nullable(),
  kind: z.string(),
  source: z.string(),
  round: z.number().int().nullable(),
  durationMs: z.number().nullable(),
  outcome: z.enum([...TOOL_OUTCOMES, '']),
  details: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  unreadable: z.boolean(),
  unreadableReason: z.string().nullable(),
  callState: z.enum(Object.values(RunCallState)).nullable(),
  mayHaveExecuted: z
    .boolean()
    .describe(
      'true for a call to a tool that writes whose request may have reached the server with no answer saying what became of it (cancelled or failed unanswered after it was sent, or interrupted): the server may have run it',
    ),
});

const serverHealth = z.object({
  server: z.string(),
  calls: count,
  answered: count,
  ok: count,
  failed: count,
  cancelled: count,
  invalidArguments: count,
  notCharged: count.describe('failed calls not charged to the server (invalid arguments, a tool it does not have, calls never sent)'),
  failureRate: z.number().nullable(),
  failureCauses: z.array(z.object({ cause: z.enum([...TOOL_FAILURE_CAUSES, UNKNOWN_FAILURE_CAUSE]), calls: count })),
  lastFailureAt: millis.nullable(),
  p50DurationMs: z.number().nullable(),
  p95DurationMs: z.number().nullable(),
  flaky: z.boolean(),
  tooFewCalls: z.boolean(),
});

const spoolFile = {
  path: z.string(),
  pid: z.number().int().nullable(),
  steps: count,
  finishes: count,
  torn: count,
  unreadable: count,
  lost: count.describe('acknowledged entries that are not in the file any more: it was cut short after them'),
};

/**
 * The schema of each `--json` output, by command.
 *
 * @internal
 */
export const CLI_JSON_OUTPUTS = {
  'runs list': z.object({
    runs: z.array(storedRun),
    nextCursor: z.string().nullable(),
    totals: z
      .object({ runs: count, tokens: count })
      .optional()
      .describe('what every page of the listing adds up to: its runs and their model tokens (absent from a store that cannot search)'),
  }),
  'runs show': z.object({
    run: storedRun,
    cancelRequestedAfterFinish: z.boolean(),
    callsOnTheWire: z.array(timelineEntry),
    timeline: z.array(timelineEntry),
  }),
  'runs recover': z.object({ recovered: z.array(z.string()) }),
  'runs cancel': z.object({
    run: storedRun.describe('the run after the cancel was requested'),
    cancelRequestedAfterFinish: z.boolean().describe('the run had already ended: the request is kept as a late cancel and changes nothing'),
  }),
  prune: z.object({
    olderThan: z.number().int().describe('the cutoff, ms since the epoch: runs that ended before it'),
    dryRun: z.boolean(),
    runs: count,
    steps: count,
    oldestFinishedAt: z.number().int().nullable(),
    newestFinishedAt: z.number().int().nullable(),
    batches: count,
    complete: z.boolean(),
  }),
  servers: z.array(serverHealth),
  'spool list': z.object({ dir: z.string(), files: z.array(z.object({ ...spoolFile, alive: z.boolean(), runs: count })) }),
  'spool deliver': z.object({
    dir: z.string(),
    files: z.array(
      z.object({
        ...spoolFile,
        state: z.enum(['delivered', 'skipped', 'kept', 'set_aside']),
        lateFinishes: z
          .array(
            z.object({
              runId: z.string(),
              status: terminalRunStatus,
              finishedAt: millis.nullable(),
              runStatus: z.enum(RUN_STATUSES),
              unstoredSteps: count,
            }),
          )
          .describe('final statuses that arrived after their run had ended otherwise: kept on the run as late ones'),
        problem: z.string().nullable(),
      }),
    ),
  }),
  'export otlp': z.object({
    url: z.string().describe('the OTLP/HTTP traces URL the spans were sent to'),
    runsSeen: count,
    runsExported: count,
    runsSkipped: count.describe('runs still running, left out'),
    spansExported: count,
  }),
} as const satisfies Record<CliJsonCommand, z.ZodType>;

/** A schema's input with every array and object read-only, as the stores hand their values out. */
type Frozen<T> = T extends readonly (infer U)[] ? readonly Frozen<U>[] : T extends object ? { readonly [K in keyof T]: Frozen<T[K]> } : T;

/**
 * Writes a command's `--json` result: the value passes through the command's schema first (so
 * the output has exactly the frozen shape; a value that does not fit it throws a ZodError naming
 * the path), then out as terminal-safe JSON.
 *
 * @internal
 */
export function writeCliJson<C extends CliJsonCommand>(io: CliIo, command: C, value: Frozen<z.input<(typeof CLI_JSON_OUTPUTS)[C]>>): void {
  const shaped: unknown = CLI_JSON_OUTPUTS[command].parse(value);
  io.stdout.write(`${terminalJson(shaped)}\n`);
}
