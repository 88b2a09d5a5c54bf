// startRun (from @runledger/trace) with a bounded trace, against a real SQLite file: the steps the
// trace no longer holds are read back from the store, exactly as recorded. (Here and not in trace,
// which cannot depend on this package: it depends on trace.)
import { ToolResult } from '@runledger/core';
import { RunStep, startRun } from '@runledger/trace';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteRunStore } from './SqliteRunStore.js';
import { tempFolder } from './testing/tempDatabase.js';

let folder: ReturnType<typeof tempFolder>;
beforeEach(() => {
  folder = tempFolder();
});
afterEach(() => folder.remove());

describe('startRun with keepSteps on SQLite', () => {
  it('reads back from the file every step recorded, equal to what was recorded, while the trace keeps a window', async () => {
    const store = await SqliteRunStore.open({ path: folder.file() });
    try {
      const run = await startRun(store, { configuration: 'c', heartbeatMs: 0, keepSteps: 5, privacy: 'full', spoolDir: false });
      const recorded: RunStep[] = [];
      recorded.push(await run.trace.recordRequest({ content: 'find the bug' }));
      for (let i = 0; i < 40; i++) {
        const result = i % 7 === 3 ? ToolResult.error(`no ${i}`) : ToolResult.text(`hit ${i}`);
        recorded.push(
          await run.trace.recordToolResult({ toolName: `mcp_s${i % 3}_search`, toolArguments: { q: i }, result, round: i, durationMs: i }),
        );
      }
      expect(run.trace.steps).toEqual(recorded.slice(-5));
      expect(run.trace.stepCount).toBe(41);

      const read = [];
      for await (const step of run.readSteps({ pageSize: 8 })) read.push(step);
      expect(read.map((s) => s.sequence)).toEqual(recorded.map((_s, i) => i));
      expect(read.map((s) => RunStep.fromPayload(s.payload))).toEqual(recorded);
      expect(read.map((s) => [s.kind, s.round, s.toolServer, s.toolOutcome])).toEqual(
        recorded.map((s) => [s.kind, s.round, s.toolServer ?? null, s.toolOutcome ?? null]),
      );
      expect((await run.complete()).stepCount).toBe(41);
    } finally {
      await store.close();
    }
  });
});
