import { TOOL_FAILURE_CAUSES, TOOL_OUTCOMES } from '@runledger/core';
import {
  RUN_STATUSES,
  RunCallState,
  RunLifecycleEvent,
  RunTerminationKind,
  type TerminalRunStatus,
  UNKNOWN_FAILURE_CAUSE,
} from '@runledger/trace';
import { z } from 'zod';
import type { CliIo } from './CliIo.js';
import { terminalJson } from './terminalText.js';

/**
 * The parts the CLI's `--json` outputs (zod 4) are made of, and how they are written. Each command
 * declares its output's schema in its module (`jsonOutput`), frozen like the TypeScript surface:
 * every `--json` output is written through its schema ({@link writeCliJson}), so it carries
 * exactly the properties listed there, and `pnpm api:update` writes their JSON Schema into
 * `api-reports/cli.cli.json`. A removed or newly optional property is breaking there, a new one
 * additive. Objects are `z.object` (unknown properties are stripped, never passed through): a
 * property a store adds reaches the output only once it is added to its schema, which the tests demand.
 */

/** A time: milliseconds since the Unix epoch. @internal */
export const millis = z.number().describe('milliseconds since the Unix epoch');
/** A count: an integer from 0. @internal */
export const count = z.number().int().min(0);

/** How a run ended: a status other than `running`. @internal */
export const terminalRunStatus = z.enum(
  RUN_STATUSES.filter((status) => status !== 'running') as [TerminalRunStatus, ...TerminalRunStatus[]],
);

/** A run's tool calls by outcome. @internal */
export const outcomeCounts = z.object({ ok: count, failed: count, cancelled: count });

/** How a run ended, as data: its kind and facts (`terminationReason` is its sentence). @internal */
export const runTermination = z
  .discriminatedUnion('kind', [
    z.object({ kind: z.literal(RunTerminationKind.OPERATOR_CANCEL) }),
    z.object({ kind: z.literal(RunTerminationKind.STORE_CANCEL) }),
    z.object({
      kind: z.literal(RunTerminationKind.CANCEL_WHILE_RUNNING),
      reported: terminalRunStatus.describe("the status the run's own finish asked for"),
      reason: z.string().nullable().describe("the reason the run's own finish gave"),
    }),
    z.object({
      kind: z.literal(RunTerminationKind.NO_SIGN_OF_LIFE),
      since: millis.describe("the run's last sign of life"),
      cancelRequested: z.boolean(),
    }),
    z.object({ kind: z.literal(RunTerminationKind.OTHER), text: z.string().describe("the run's own reason") }),
  ])
  .describe('how the run ended, as data (its kind and facts); null while it runs');

/** A run as a store hands it out. @internal */
export const storedRun = z.object({
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
  cancelRequest: z
    .object({
      at: millis,
      from: z.enum(['app', 'cli', 'api', 'signal']).describe('where the request came from (the app, the CLI, the API, Ctrl+C)'),
      by: z.string().nullable().describe("who asked: the access token's name, the user a trusted proxy named, the OS user or --actor"),
      reason: z.string().nullable().describe('why, as typed with the request'),
    })
    .nullable()
    .optional()
    .describe('who asked for the first cancel, from where and why; absent when it did not say'),
  terminationReason: z.string().nullable(),
  termination: runTermination.nullable().optional(),
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

/** One entry of a run's timeline (metadata only). @internal */
export const timelineEntry = z.object({
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

/** One MCP server's health. @internal */
export const serverHealth = z.object({
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

/** The properties of a spool file that `spool list` and `spool deliver` share. @internal */
export const spoolFile = {
  path: z.string(),
  pid: z.number().int().nullable(),
  steps: count,
  finishes: count,
  torn: count,
  unreadable: count,
  lost: count.describe('acknowledged entries that are not in the file any more: it was cut short after them'),
};

/** A schema's input with every array and object read-only, as the stores hand their values out. */
type Frozen<T> = T extends readonly (infer U)[] ? readonly Frozen<U>[] : T extends object ? { readonly [K in keyof T]: Frozen<T[K]> } : T;

/**
 * Writes a command's `--json` result: the value passes through the command's schema (its `jsonOutput`) first (so
 * the output has exactly the frozen shape; a value that does not fit it throws a ZodError naming
 * the path), then out as terminal-safe JSON.
 *
 * @internal
 */
export function writeCliJson<S extends z.ZodType>(io: CliIo, schema: S, value: Frozen<z.input<S>>): void {
  const shaped: unknown = schema.parse(value);
  io.stdout.write(`${terminalJson(shaped)}\n`);
}
