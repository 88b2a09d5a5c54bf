// What every part of the shared RunStore contract suite uses: the steps it appends, its
// assertions, and the stores of a test.
import { type ToolFailureCause, type ToolFailureFacts, type ToolOutcome, ToolOutcome as Outcome } from '@runledger/core';
import type { RunStore } from '@runledger/trace';
import { afterEach, expect, it } from 'vitest';
import type { RunStoreContractHarness } from './RunStoreContractHarness.js';
import { type AppendStepInput, RunStoreError, type RunStoreErrorCode, type StoredRun } from '@runledger/trace';

/** 2026-01-01T00:00:00Z: all explicit times of the suite are offsets from it. */
export const BASE = 1_767_225_600_000;
export const WATCH_TIMEOUT_MS = 5_000;

/** A tool step as the recorder appends it. */
export function toolStep(options: {
  server: string | null;
  outcome: ToolOutcome | null;
  createdAt: number;
  durationMs?: number;
  toolName?: string;
  round?: number;
  /** Write the payload as before outcomes existed: only toolIsError, no toolOutcome, no toolServer. */
  legacy?: boolean;
  /** Why a failed call failed (recorded as the recorder does: toolFailureCause in the payload). */
  cause?: ToolFailureCause;
  /** What the transport knew about why it failed (toolFailureFacts in the payload, as the recorder writes it). */
  facts?: ToolFailureFacts;
}): AppendStepInput {
  const toolName = options.toolName ?? `mcp_${options.server ?? 'unknown'}_lookup`;
  const isError = options.outcome === null ? undefined : options.outcome !== Outcome.OK;
  const payload: Record<string, unknown> = options.legacy
    ? { kind: 'tool', round: options.round ?? 0, durationMs: options.durationMs ?? 1, toolName, toolIsError: isError }
    : {
        kind: 'tool',
        round: options.round ?? 0,
        durationMs: options.durationMs ?? 1,
        toolName,
        ...(options.server === null ? {} : { toolServer: options.server }),
        toolIsError: isError,
        toolOutcome: options.outcome ?? undefined,
        ...(options.cause === undefined ? {} : { toolFailureCause: options.cause }),
        ...(options.facts === undefined ? {} : { toolFailureFacts: options.facts }),
      };
  return {
    kind: 'tool',
    round: options.round ?? 0,
    durationMs: options.durationMs ?? 1,
    createdAt: options.createdAt,
    payload,
    toolServer: options.legacy ? null : options.server,
    toolOutcome: options.legacy ? null : options.outcome,
  };
}

export function llmStep(createdAt: number, extra: Record<string, unknown> = {}): AppendStepInput {
  return {
    kind: 'llm',
    round: 0,
    durationMs: 12.5,
    createdAt,
    payload: { kind: 'llm', round: 0, durationMs: 12.5, model: 'm', promptTokens: 10, ...extra },
    toolServer: null,
    toolOutcome: null,
  };
}

export async function expectStoreError(promise: Promise<unknown>, code: RunStoreErrorCode, message?: RegExp): Promise<RunStoreError> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  expect(caught, `expected a RunStoreError with code ${code}`).toBeDefined();
  expect(RunStoreError.is(caught), `expected a RunStoreError, got ${String(caught)}`).toBe(true);
  const error = caught as RunStoreError;
  expect(error.code).toBe(code);
  if (message) expect(error.message).toMatch(message);
  return error;
}

export function waitFor(register: (done: () => void) => void, what: string, timeoutMs = WATCH_TIMEOUT_MS): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const started = Date.now();
    const timer = setTimeout(() => reject(new Error(`${what} did not happen within ${timeoutMs} ms`)), timeoutMs);
    register(() => {
      clearTimeout(timer);
      resolve(Date.now() - started);
    });
  });
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Newest first: createdAt descending, then id descending (code unit order). */
export function newestFirst(a: { createdAt: number; id: string }, b: { createdAt: number; id: string }): number {
  if (a.createdAt !== b.createdAt) return b.createdAt - a.createdAt;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

export async function listAll(store: RunStore, query: Parameters<RunStore['listRuns']>[0] = {}): Promise<StoredRun[]> {
  const runs: StoredRun[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 1000; page++) {
    const result = await store.listRuns({ ...query, cursor });
    runs.push(...result.runs);
    cursor = result.nextCursor;
    if (cursor === null) return runs;
  }
  throw new Error('listRuns never returned a last page');
}

/**
 * The stores of one test: opened through the harness, closed (and the harness cleaned up) after
 * each test. Call inside a `describe`.
 */
export function contractStores(harness: RunStoreContractHarness): {
  open(): Promise<RunStore>;
  openPeer(): Promise<RunStore>;
  withPeer: typeof it | typeof it.skip;
} {
  let opened: RunStore[] = [];
  afterEach(async () => {
    const stores = opened.reverse();
    opened = [];
    for (const store of stores) await store.close().catch(() => undefined);
    await harness.cleanup?.();
  });
  return {
    async open() {
      const store = await harness.open();
      opened.push(store);
      return store;
    },
    async openPeer() {
      if (!harness.openPeer) throw new Error('the harness has no openPeer()');
      const store = await harness.openPeer();
      opened.push(store);
      return store;
    },
    withPeer: harness.openPeer ? it : it.skip,
  };
}
