// Issue 38 item 4: a name kept in an indexed column (configuration, a call's server, tool and call
// id) longer than a btree index row can hold (about 2 704 bytes) was refused by PostgreSQL as a
// storage failure, retried and spooled for ever, and the run stayed `running`. The one length rule
// of every store (storeValueRules.ts) refuses it as `invalid_input` before any write.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolResult } from '@runledger/core';
import { startRun, type AppendStepInput, RunStoreError } from '@runledger/trace';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { PostgresRunStore } from './PostgresRunStore.js';
import { connectTestStore, dropSchema, randomSchema } from './testing/pgTest.js';

const schemas: string[] = [];
const stores: PostgresRunStore[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
afterAll(async () => {
  for (const schema of schemas) await dropSchema(schema);
});

async function open(): Promise<PostgresRunStore> {
  const schema = randomSchema('rl_names');
  schemas.push(schema);
  const store = await connectTestStore(schema);
  stores.push(store);
  return store;
}

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (RunStoreError.is(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

/** A tool step as the recorder appends it, naming its server, tool and call as given. */
function toolStep(server: string | null, toolName: string, toolCallId = 'call-1'): AppendStepInput {
  return {
    kind: 'tool',
    round: 0,
    durationMs: 1,
    createdAt: 1_767_225_600_000,
    payload: {
      kind: 'tool',
      toolName,
      ...(server === null ? {} : { toolServer: server }),
      toolIsError: false,
      toolOutcome: 'ok',
      toolCallId,
    },
    toolServer: server,
    toolOutcome: 'ok',
  };
}

/** 3 200 bytes that do not compress: more than a btree index row holds. */
const LONG = randomBytes(2_400).toString('base64');

describe('PostgresRunStore: names longer than an index row holds', () => {
  it('refuses a long server, tool, call id or configuration as invalid_input before any write, naming the field and the rule', async () => {
    const store = await open();
    const run = await store.createRun({ configuration: 'c' });
    for (const [step, field] of [
      [toolStep(LONG, 'search'), 'AppendStepInput.toolServer'],
      [toolStep(null, `mcp_${LONG}_search`), 'AppendStepInput.payload.toolName'],
      [toolStep('github', LONG), 'AppendStepInput.payload.toolName'],
      [toolStep('github', 'search', LONG), 'AppendStepInput.payload.toolCallId'],
    ] as const) {
      const { code, message } = await refusal(store.appendStep(run.id, step));
      expect(code, message).toBe('invalid_input');
      expect(message).toContain(`${field} must be`);
      expect(message).toMatch(/at most 256 characters(, or null)?, got a string of \d+ characters: "/);
    }
    const created = await refusal(store.createRun({ configuration: LONG }));
    expect(created.code, created.message).toBe('invalid_input');
    expect(created.message).toMatch(/^CreateRunInput\.configuration must be .*at most 256 characters, got a string of 3200 characters/);
    // nothing was written: the run has no step, its counters none
    expect(await store.getRun(run.id)).toMatchObject({ stepCount: 0, status: 'running' });
    expect((await store.listRuns()).runs).toHaveLength(1);
  });

  it('keeps names of 256 four-byte characters in every indexed column at once (the rule fits the widest index row)', async () => {
    const store = await open();
    const longest = '😀'.repeat(256);
    const run = await store.createRun({ configuration: longest });
    expect(await store.appendStep(run.id, toolStep(longest, longest, longest))).toBe(0);
    const failed = toolStep(longest, longest, `${longest.slice(2)}x`);
    const payload = {
      ...(failed.payload as Record<string, unknown>),
      toolIsError: true,
      toolOutcome: 'failed',
      toolFailureCause: 'server_error',
    };
    expect(await store.appendStep(run.id, { ...failed, payload, toolOutcome: 'failed' })).toBe(1);
    expect(await store.finishRun(run.id, { status: 'completed' })).toMatchObject({ status: 'completed', stepCount: 2 });
    expect((await store.listRuns({ server: longest, tool: longest, configuration: longest })).runs.map((r) => r.id)).toEqual([run.id]);
  });

  it('a recorded step with a long server name is reported as refused (not retried, not spooled) and the run still completes', async () => {
    const store = await open();
    const spool = mkdtempSync(join(tmpdir(), 'runledger-names-spool-'));
    dirs.push(spool);
    const reported: unknown[] = [];
    const run = await startRun(store, {
      configuration: 'long-names',
      heartbeatMs: 0,
      spoolDir: spool,
      retry: { attempts: 3, initialDelayMs: 1, maxDelayMs: 2 },
      onRecordError: (error) => reported.push(error),
    });
    await run.trace.recordToolResult({ toolName: 'search', toolServer: LONG, result: ToolResult.text('found') });
    await run.trace.recordToolResult({ toolName: 'search', toolServer: 'github', result: ToolResult.text('found') });
    expect(reported).toHaveLength(1);
    expect(RunStoreError.is(reported[0]) && reported[0].code).toBe('invalid_input');
    expect((reported[0] as Error).message).toContain('AppendStepInput.toolServer must be');
    const done = await run.complete();
    expect(done).toMatchObject({ status: 'completed', stepCount: 1, unstoredSteps: 1 });
    expect(await store.getRun(run.id)).toMatchObject({ status: 'completed', stepCount: 1, unstoredSteps: 1 });
    expect(readdirSync(spool)).toEqual([]);
  });
});
