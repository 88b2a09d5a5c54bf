import { describe, expect, it } from 'vitest';
import { copyRuns, type CopyRunsProgress } from './copyRuns.js';
import { InMemoryRunStore } from './InMemoryRunStore.js';

describe('copyRuns', () => {
  it('copies every run with its steps exactly, pages through both, and skips what the target has', async () => {
    const source = InMemoryRunStore.create();
    const ids: string[] = [];
    for (let r = 0; r < 230; r++) {
      const run = await source.createRun({ configuration: r % 2 ? 'a' : 'b', createdAt: 1_000 + r });
      ids.push(run.id);
      const steps = r === 7 ? 1_500 : r % 5;
      for (let s = 0; s < steps; s++) {
        await source.appendStep(run.id, {
          kind: 'tool',
          round: 0,
          durationMs: s,
          createdAt: 2_000 + s,
          payload: { kind: 'tool', toolName: 'mcp_x_y', toolIsError: s % 2 === 1, toolOutcome: s % 2 ? 'failed' : 'ok', s },
          toolServer: 'x',
          toolOutcome: s % 2 ? 'failed' : 'ok',
        });
      }
      if (r % 3 === 0) await source.finishRun(run.id, { status: 'completed', finishedAt: 3_000 });
    }
    const target = InMemoryRunStore.create();
    const progress: CopyRunsProgress[] = [];
    const result = await copyRuns(source, target, { onProgress: (p) => progress.push(p), stepPageSize: 1000 });
    const expectedSteps = 1_500 + ids.reduce((sum, _, r) => sum + (r === 7 ? 0 : r % 5), 0);
    expect(result).toEqual({ runsSeen: 230, runsCopied: 230, runsSkipped: 0, stepsCopied: expectedSteps });
    expect(progress).toHaveLength(230);
    expect(progress.at(-1)).toMatchObject({ runsSeen: 230, runsCopied: 230, stepsCopied: expectedSteps });
    for (const id of ids) {
      expect(await target.getRun(id)).toEqual(await source.getRun(id));
      expect(await target.readSteps(id)).toEqual(await source.readSteps(id));
    }
    expect(await target.serverHealth()).toEqual(await source.serverHealth());

    const again = await copyRuns(source, target);
    expect(again).toEqual({ runsSeen: 230, runsCopied: 0, runsSkipped: 230, stepsCopied: 0 });

    const filtered = await copyRuns(source, InMemoryRunStore.create(), { filter: { configuration: 'a' } });
    expect(filtered.runsCopied).toBe(115);
  });

  it('stops between runs when its signal is aborted', async () => {
    const source = InMemoryRunStore.create();
    for (let i = 0; i < 5; i++) await source.createRun({ configuration: 'c', createdAt: i });
    const controller = new AbortController();
    const target = InMemoryRunStore.create();
    await expect(
      copyRuns(source, target, { signal: controller.signal, onProgress: (p) => p.runsSeen === 2 && controller.abort(new Error('stop')) }),
    ).rejects.toThrow('stop');
    expect((await target.listRuns()).runs).toHaveLength(2);
    await expect(copyRuns(source, target, { stepPageSize: 0 })).rejects.toThrow(RangeError);
  });
});
