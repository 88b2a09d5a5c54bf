import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolResult } from '@runledger/core';
import { SqliteRunStore } from '@runledger/store-sqlite';
import { buildRunTimeline, copyRuns, type RunStore, startRun, type StoredRun, type StoredStep } from '@runledger/trace';
import { serverHealth } from '@runledger/trace/store';
import { afterAll, describe, expect, it } from 'vitest';
import { connectTestStore, dropSchema, randomSchema } from './testing/pgTest.js';

const schema = randomSchema('rl_copy');
const dir = mkdtempSync(join(tmpdir(), 'runledger-copy-'));
afterAll(async () => {
  await dropSchema(schema);
  rmSync(dir, { recursive: true, force: true });
});

async function everything(store: RunStore): Promise<{ runs: StoredRun[]; steps: Map<string, readonly StoredStep[]> }> {
  const runs: StoredRun[] = [];
  let cursor: string | null = null;
  do {
    const page = await store.listRuns({ limit: 7, cursor });
    runs.push(...page.runs);
    cursor = page.nextCursor;
  } while (cursor !== null);
  const steps = new Map<string, readonly StoredStep[]>();
  for (const run of runs) steps.set(run.id, await store.readSteps(run.id));
  return { runs, steps };
}

describe('copying a SQLite store into PostgreSQL', () => {
  it('copies runs, steps, sequences, times, payload text and health completely, and a second copy changes nothing', async () => {
    const sqlite = await SqliteRunStore.open({ path: join(dir, 'runledger.db') });
    const base = Date.UTC(2026, 2, 1, 8, 0, 0);
    try {
      // runs recorded the way the app records them: startRun → RunTrace → store
      for (let r = 0; r < 12; r++) {
        const run = await startRun(sqlite, {
          configuration: r % 3 === 0 ? 'triage' : 'support',
          actor: r % 2 ? 'ops' : null,
          heartbeatMs: 0,
        });
        for (let i = 0; i < 25; i++) {
          const server = ['github', 'jira', 'slack'][i % 3]!;
          const result =
            i % 11 === 5
              ? ToolResult.cancelled('stopped')
              : i % 4 === 1
                ? ToolResult.error('HTTP 502 from upstream')
                : ToolResult.text(`ok ${i} ünïcödé`);
          await run.trace.recordToolResult({
            toolName: `mcp_${server}_op${i}`,
            toolServer: server,
            result,
            round: Math.floor(i / 5),
            durationMs: 3 + ((i * 37 + r) % 400),
          });
          if (i % 6 === 0)
            await run.trace.recordLlmCall({
              round: Math.floor(i / 5),
              durationMs: 800,
              model: 'm',
              promptTokens: 100 + i,
              completionTokens: 20,
              finishReason: 'tool_calls',
            });
        }
        if (r % 4 === 0) await run.fail(new Error('boom'));
        else if (r % 4 === 1) {
          await run.cancel('operator');
          expect((await run.complete()).status).toBe('cancelled');
        } else if (r % 4 === 2) await run.complete();
        // r % 4 === 3 stays running
        if (r % 4 !== 3) await run.finished;
      }
      // a legacy-shaped step and a damaged one, written directly
      const legacy = await sqlite.createRun({ configuration: 'legacy', createdAt: base });
      await sqlite.appendStep(legacy.id, {
        kind: 'tool',
        round: 0,
        durationMs: 12,
        createdAt: base + 1,
        payload: { kind: 'tool', round: 0, durationMs: 12, toolName: 'mcp_github_search', toolIsError: true },
        toolServer: null,
        toolOutcome: null,
      });
      await sqlite.finishRun(legacy.id, { status: 'completed', finishedAt: base + 2 });

      const source = await everything(sqlite);
      const pg = await connectTestStore(schema);
      try {
        const progress: number[] = [];
        const first = await copyRuns(sqlite, pg, { onProgress: (p) => progress.push(p.runsSeen) });
        expect(first).toMatchObject({ runsSeen: 13, runsCopied: 13, runsSkipped: 0 });
        expect(first.stepsCopied).toBe([...source.steps.values()].reduce((n, s) => n + s.length, 0));
        expect(progress).toEqual(Array.from({ length: 13 }, (_, i) => i + 1));

        const copied = await everything(pg);
        expect(copied.runs).toEqual(source.runs);
        for (const run of source.runs) expect(copied.steps.get(run.id), run.id).toEqual(source.steps.get(run.id));

        // the same timeline, and the same health as the pure definition and as SQLite reports it
        for (const run of source.runs) {
          expect(buildRunTimeline(run, copied.steps.get(run.id)!)).toEqual(buildRunTimeline(run, source.steps.get(run.id)!));
        }
        const allSteps = [...source.steps.values()].flat();
        expect(await pg.serverHealth()).toEqual(serverHealth(allSteps));
        expect(await pg.serverHealth()).toEqual(await sqlite.serverHealth());
        expect(await pg.serverHealth({ since: base + 1 })).toEqual(await sqlite.serverHealth({ since: base + 1 }));

        // idempotent: a second copy skips everything and changes nothing
        const second = await copyRuns(sqlite, pg);
        expect(second).toMatchObject({ runsSeen: 13, runsCopied: 0, runsSkipped: 13, stepsCopied: 0 });
        expect(await everything(pg)).toEqual(copied);
        expect(await pg.serverHealth()).toEqual(serverHealth(allSteps));

        // a copied running run goes on in PostgreSQL with the next sequence
        const running = source.runs.find((r) => r.status === 'running' && r.configuration !== 'legacy')!;
        const next = await pg.appendStep(running.id, {
          kind: 'tool',
          round: 9,
          durationMs: 1,
          createdAt: Date.now(),
          payload: { kind: 'tool' },
          toolServer: 'github',
          toolOutcome: 'ok',
        });
        expect(next).toBe(running.stepCount);
      } finally {
        await pg.close();
      }
    } finally {
      await sqlite.close();
    }
  }, 60_000);
});
