// The model the search contract (searchContract.ts) checks stores against: generated runs and
// steps, the steps a store is given for them, and what listRuns, runTotals and listToolCalls must
// answer, computed the plain way.
import { TOOL_OUTCOMES, type ToolFailureCause, type ToolOutcome } from '@runledger/core';
import fc from 'fast-check';
import { BASE, llmStep, newestFirst, toolStep } from './contractSteps.js';
import type { AppendStepInput, RunQuery, RunStatus, StoredToolCall, ToolCallQuery } from '@runledger/trace';

/** Titles that tell an ASCII-only case fold, and `%` and `_` kept literal, from anything else. */
export const TITLES: readonly (string | null)[] = [
  null,
  'Alpha beta',
  'ALPHA_BETA',
  '100% alpha',
  'Ünïcode Alpha',
  'ünïcode',
  'a%b_c',
  'plain',
  // what an index must not change: a backslash (LIKE's escape), a double quote (an FTS5 phrase's),
  // an emoji, a case that a full Unicode fold (a trigram index's) folds and A-Z alone does not
  'back\\slash a\\b_c',
  'say "quoted" x"y',
  'party 😀x😀 time',
  'ÜNÏCODE SHOUT',
  'ΣΊΣΥΦΟΣ σίσυφος',
];
/**
 * The texts looked for in them: shorter than three characters (searched without a trigram index)
 * and longer, each of LIKE's and FTS5's special characters, case and multi-byte characters.
 */
export const NEEDLES: readonly string[] = [
  'alpha',
  'ALPHA',
  'a_b',
  '_',
  '%',
  '0%',
  'ÜNÏ',
  'ünï',
  'Ünï',
  'beta',
  'z',
  '100%',
  'a%b',
  'b_c',
  '\\',
  'a\\b',
  '"quoted"',
  'x"y',
  '😀x😀',
  '😀',
  'ünïcode',
  'σίσυφος',
  'ΣΊΣ',
  'pha',
  'LPHA_',
];
export const TOOLS: readonly string[] = ['lookup', 'search', 'Lookup'];
/** promptTokens / completionTokens values: counted ones, and ones that count 0. */
const TOKEN_VALUES: readonly unknown[] = [0, 1, 250, 4000, -5, 1.5, '7', null, undefined, true];
const CAUSES: readonly ToolFailureCause[] = ['server_error', 'invalid_arguments'];

/** One generated step; `server` is an index into the servers of its check (unique per check). */
export type ModelStep =
  | {
      readonly kind: 'tool';
      readonly server: number;
      readonly tool: string;
      readonly outcome: ToolOutcome | null;
      readonly cause: ToolFailureCause | null;
      readonly at: number;
      readonly durationMs: number;
    }
  | { readonly kind: 'tool_start'; readonly server: number; readonly tool: string; readonly at: number }
  | { readonly kind: 'llm'; readonly promptTokens: unknown; readonly completionTokens: unknown; readonly at: number };

export interface ModelRunSpec {
  readonly status: RunStatus;
  readonly title: string | null;
  /** Offset of createdAt: few values, so that runs tie on it and the id decides. */
  readonly at: number;
  readonly steps: readonly ModelStep[];
}

/** A generated run as stored: its id, and what the model derives from its steps. */
export interface ModelRun extends ModelRunSpec {
  readonly id: string;
  readonly createdAt: number;
  readonly tokens: number;
  readonly calls: readonly StoredToolCall[];
}

const server = fc.integer({ min: 0, max: 1 });
const at = fc.integer({ min: 0, max: 4 });
const stepArbitrary: fc.Arbitrary<ModelStep> = fc.oneof(
  fc.record({
    kind: fc.constant('tool' as const),
    server,
    tool: fc.constantFrom(...TOOLS),
    outcome: fc.constantFrom<ToolOutcome | null>(...TOOL_OUTCOMES, null),
    cause: fc.constantFrom<ToolFailureCause | null>(null, ...CAUSES),
    at,
    durationMs: fc.constantFrom(0, 3, 12.5),
  }),
  fc.record({ kind: fc.constant('tool_start' as const), server, tool: fc.constantFrom(...TOOLS), at }),
  fc.record({
    kind: fc.constant('llm' as const),
    promptTokens: fc.constantFrom(...TOKEN_VALUES),
    completionTokens: fc.constantFrom(...TOKEN_VALUES),
    at,
  }),
);

export const runSpecs: fc.Arbitrary<ModelRunSpec[]> = fc.array(
  fc.record({
    status: fc.constantFrom<RunStatus>('running', 'completed', 'failed', 'cancelled'),
    title: fc.constantFrom(...TITLES),
    at: fc.integer({ min: 0, max: 3 }),
    steps: fc.array(stepArbitrary, { maxLength: 5 }),
  }),
  { minLength: 1, maxLength: 7 },
);

/** Filters of a listing: any of them, or none (`server` an index into the check's servers, 2 = one without calls). */
export interface ModelFilters {
  readonly server?: number;
  readonly tool?: string;
  readonly titleContains?: string;
  readonly status?: RunStatus | RunStatus[];
  readonly hasOutcome?: ToolOutcome;
}

export const filterSets: fc.Arbitrary<ModelFilters> = fc.record(
  {
    server: fc.integer({ min: 0, max: 2 }),
    tool: fc.constantFrom(...TOOLS, 'none'),
    titleContains: fc.constantFrom(...NEEDLES),
    status: fc.constantFrom<RunStatus | RunStatus[]>('running', 'completed', ['failed', 'cancelled']),
    hasOutcome: fc.constantFrom<ToolOutcome>(...TOOL_OUTCOMES),
  },
  { requiredKeys: [] },
);

/** Each title text alone, and each server (2 = one without calls) with each tool. */
export const SINGLE_FILTERS: readonly ModelFilters[] = [
  ...NEEDLES.map((titleContains) => ({ titleContains })),
  ...[0, 1, 2].flatMap((server) => [{ server }, ...TOOLS.map((tool) => ({ server, tool }))]),
];

export const callFilterSets: fc.Arbitrary<Pick<ToolCallQuery, 'outcome' | 'since' | 'until'>> = fc.record(
  { outcome: fc.constantFrom<ToolOutcome>(...TOOL_OUTCOMES), since: at, until: at },
  { requiredKeys: [] },
);

/** The step a store is given for a generated one; `servers` names the check's servers, `base` its time. */
export function appendInput(step: ModelStep, servers: readonly string[], base: number): AppendStepInput {
  const createdAt = base + step.at;
  if (step.kind === 'llm') {
    return llmStep(createdAt, { promptTokens: step.promptTokens, completionTokens: step.completionTokens });
  }
  const name = servers[step.server]!;
  if (step.kind === 'tool_start') {
    // a start names its server too (even in the column): it is no ended call all the same
    return {
      kind: 'tool_start',
      round: 0,
      durationMs: 0,
      createdAt,
      payload: { kind: 'tool_start', round: 0, toolName: step.tool, toolServer: name },
      toolServer: name,
      toolOutcome: null,
    };
  }
  return toolStep({
    server: name,
    outcome: step.outcome,
    createdAt,
    durationMs: step.durationMs,
    toolName: step.tool,
    ...(step.cause === null ? {} : { cause: step.cause }),
  });
}

const count = (value: unknown): number => (typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : 0);

/** What the model derives from a run's steps: its tokens and its ended tool calls. */
export function modelRun(spec: ModelRunSpec, id: string, servers: readonly string[], base: number): ModelRun {
  let tokens = 0;
  const calls: StoredToolCall[] = [];
  for (const [sequence, step] of spec.steps.entries()) {
    if (step.kind === 'llm') tokens += count(step.promptTokens) + count(step.completionTokens);
    if (step.kind === 'tool' && step.outcome !== null) {
      calls.push({
        runId: id,
        sequence,
        server: servers[step.server]!,
        tool: step.tool,
        outcome: step.outcome,
        cause: step.outcome === 'failed' ? step.cause : null,
        failureFacts: null,
        durationMs: step.durationMs,
        createdAt: base + step.at,
      });
    }
  }
  return { ...spec, id, createdAt: base + spec.at, tokens, calls };
}

/** The letters A to Z in lower case, all else kept. */
const lowerAscii = (text: string): string => text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());

/** The query of a listing with these filters, for one check's configuration and servers. */
export function runQueryOf(filters: ModelFilters, configuration: string, servers: readonly string[]): RunQuery {
  const { server, ...rest } = filters;
  return { ...rest, configuration, ...(server === undefined ? {} : { server: servers[server]! }) };
}

/** The runs a listing with these filters holds, newest first. */
export function modelListing(runs: readonly ModelRun[], query: RunQuery): ModelRun[] {
  const statuses = query.status === undefined ? null : ([] as RunStatus[]).concat(query.status);
  return runs
    .filter(
      (run) =>
        (statuses === null || statuses.includes(run.status)) &&
        (query.hasOutcome === undefined || run.calls.some((call) => call.outcome === query.hasOutcome)) &&
        (query.server === undefined && query.tool === undefined
          ? true
          : run.calls.some(
              (call) =>
                (query.server === undefined || call.server === query.server) && (query.tool === undefined || call.tool === query.tool),
            )) &&
        (query.titleContains === undefined || (run.title !== null && lowerAscii(run.title).includes(lowerAscii(query.titleContains)))),
    )
    .sort(newestFirst);
}

/** Newest first: createdAt, then run id, then sequence, all descending. */
export function callsNewestFirst(a: StoredToolCall, b: StoredToolCall): number {
  if (a.createdAt !== b.createdAt) return b.createdAt - a.createdAt;
  if (a.runId !== b.runId) return a.runId < b.runId ? 1 : -1;
  return b.sequence - a.sequence;
}

/** The calls a tool call listing holds, newest first. */
export function modelCalls(runs: readonly ModelRun[], query: ToolCallQuery): StoredToolCall[] {
  return runs
    .flatMap((run) => run.calls)
    .filter(
      (call) =>
        call.server === query.server &&
        (query.outcome === undefined || call.outcome === query.outcome) &&
        (query.since === undefined || call.createdAt >= query.since) &&
        (query.until === undefined || call.createdAt < query.until),
    )
    .sort(callsNewestFirst);
}

/** The time of a check's runs and steps: checks of one store keep apart. */
export function checkBase(check: number): number {
  return BASE + check * 1_000;
}
