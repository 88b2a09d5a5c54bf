// Helpers of the prune tests: runs seeded through either write path, and the rollup compared with
// the one rollup_add_runs makes from the steps left.
import { randomUUID } from 'node:crypto';
import type { ToolFailureCause, ToolOutcome } from '@runledger/core';
import pg from 'pg';
import { rollPendingStatement } from '../health/PostgresHealthWriter.js';
import type { PostgresRunStore } from '../PostgresRunStore.js';
import { TEST_PG_URL } from './pgTest.js';
import type { AppendStepInput, StoredRun, StoredStep } from '@runledger/trace';

/** 2026-01-01T00:00Z: a day bucket starts here. */
export const BASE = 1_767_225_600_000;
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;

/** A step as the recorder appends it: a tool call (server, outcome, cause) or, with server null, a model call. */
export function stepAt(options: {
  createdAt: number;
  server: string | null;
  outcome?: ToolOutcome;
  cause?: ToolFailureCause;
  durationMs?: number;
}): AppendStepInput {
  const durationMs = options.durationMs ?? 1;
  if (options.server === null) {
    return {
      kind: 'llm',
      round: 0,
      durationMs,
      createdAt: options.createdAt,
      payload: { kind: 'llm' },
      toolServer: null,
      toolOutcome: null,
    };
  }
  const outcome = options.outcome ?? 'ok';
  return {
    kind: 'tool',
    round: 0,
    durationMs,
    createdAt: options.createdAt,
    payload: {
      kind: 'tool',
      toolName: `mcp_${options.server}_lookup`,
      toolServer: options.server,
      toolOutcome: outcome,
      toolIsError: outcome !== 'ok',
      ...(options.cause === undefined ? {} : { toolFailureCause: options.cause }),
    },
    toolServer: options.server,
    toolOutcome: outcome,
  };
}

/** A run with these steps, written by `importRun` (bulk) or by one `appendStep` each; ended when `finishedAt` is given. */
export async function seedRun(
  store: PostgresRunStore,
  options: { steps: readonly AppendStepInput[]; finishedAt: number | null; via: 'import' | 'append'; createdAt?: number },
): Promise<string> {
  const createdAt = options.createdAt ?? BASE - 3 * HOUR;
  if (options.via === 'append') {
    const run = await store.createRun({ configuration: 'c', createdAt });
    for (const step of options.steps) await store.appendStep(run.id, step);
    if (options.finishedAt !== null) await store.finishRun(run.id, { status: 'completed', finishedAt: options.finishedAt });
    return run.id;
  }
  const id = randomUUID();
  const run: StoredRun = {
    id,
    status: options.finishedAt === null ? 'running' : 'completed',
    configuration: 'c',
    actor: null,
    createdAt,
    startedAt: createdAt,
    finishedAt: options.finishedAt,
    terminationReason: null,
    cancelRequestedAt: null,
    heartbeatAt: null,
    stepCount: options.steps.length,
    outcomeCounts: { ok: 0, failed: 0, cancelled: 0 },
    unstoredSteps: 0,
  };
  const steps = options.steps.map((step, sequence): StoredStep => ({
    runId: id,
    sequence,
    kind: step.kind,
    round: step.round,
    durationMs: step.durationMs,
    createdAt: step.createdAt,
    payload: JSON.stringify(step.payload),
    toolServer: step.toolServer,
    toolOutcome: step.toolOutcome,
  }));
  if (!(await store.importRun(run, steps))) throw new Error(`run ${id} exists`);
  return id;
}

/** Every row of the schema's rollup tables (the per-tool ones too, from schema 17 on), in key order. */
async function rollupRows(client: pg.Client, schema: string): Promise<unknown[][]> {
  const rollup = await client.query(`SELECT * FROM "${schema}".health_rollup ORDER BY level, bucket_start, server, shard`);
  const causes = await client.query(`SELECT * FROM "${schema}".health_causes ORDER BY level, bucket_start, server, shard, cause`);
  if (!(await hasToolRollup(client, schema))) return [rollup.rows, causes.rows];
  const tools = await client.query<{ answered_ms: number }>(
    `SELECT * FROM "${schema}".tool_rollup ORDER BY level, bucket_start, server, tool`,
  );
  // a float sum: the same calls added (and taken away) in another order differ in the last bits
  for (const row of tools.rows) row.answered_ms = Math.round(row.answered_ms * 1e6) / 1e6 + 0; // + 0: no -0
  const toolCauses = await client.query(`SELECT * FROM "${schema}".tool_causes ORDER BY level, bucket_start, server, tool, cause`);
  return [rollup.rows, causes.rows, tools.rows, toolCauses.rows];
}

/** Whether the schema is at version 17 or later (the per-tool rollup). */
async function hasToolRollup(client: pg.Client, schema: string): Promise<boolean> {
  const found = await client.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [`"${schema}".tool_rollup`]);
  return found.rows[0]?.t !== null && found.rows[0]?.t !== undefined;
}

/**
 * The rollups as they are with the pending calls moved in, and as `rollup_add_runs` and `tool_rollup_add_runs` make them from every
 * step in the schema (computed in a transaction that is rolled back): equal when the rollups say what the steps say.
 */
export async function rollupAndRebuilt(schema: string): Promise<{ actual: unknown[][]; rebuilt: unknown[][] }> {
  const client = new pg.Client({ connectionString: TEST_PG_URL });
  await client.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    // the calls still pending count where a move would put them (moved here, and rolled back)
    await client.query(rollPendingStatement(`"${schema}"`));
    const actual = await rollupRows(client, schema);
    await client.query(`SET LOCAL search_path TO "${schema}"`);
    await client.query('DELETE FROM health_rollup');
    await client.query('DELETE FROM health_causes');
    await client.query('SELECT rollup_add_runs(ARRAY(SELECT id FROM runs))');
    if (await hasToolRollup(client, schema)) {
      await client.query('DELETE FROM tool_rollup');
      await client.query('DELETE FROM tool_causes');
      await client.query('SELECT tool_rollup_add_runs(ARRAY(SELECT id FROM runs))');
    }
    const rebuilt = await rollupRows(client, schema);
    return { actual, rebuilt };
  } finally {
    await client.query('ROLLBACK').catch(() => undefined);
    await client.end();
  }
}

/** Run ids of the schema's runs table (hidden ones included), sorted. */
export async function runIdsIn(schema: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: TEST_PG_URL });
  await client.connect();
  try {
    return (await client.query<{ id: string }>(`SELECT id FROM "${schema}".runs ORDER BY id`)).rows.map((row) => row.id);
  } finally {
    await client.end();
  }
}
