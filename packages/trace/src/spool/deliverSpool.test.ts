// Delivering spool files by hand (`runledger spool deliver`, deliverSpool in code): a final status
// that arrives late, a file cut mid-line, a file that can never be delivered.
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { deliverSpool } from './deliverSpool.js';
import { inspectSpool } from './inspectSpool.js';
import { SpoolWriter } from './RunSpool.js';
import { InMemoryRunStore } from '../store/InMemoryRunStore.js';

const dirs: string[] = [];
function spoolDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'runledger-deliver-test-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const STEP = { kind: 'llm', round: 0, durationMs: 1, createdAt: 5, payload: { kind: 'llm' }, toolServer: null, toolOutcome: null };
const line = (entry: object): string => `${JSON.stringify({ v: 1, ...entry })}\n`;

describe('deliverSpool', () => {
  it('says when a final status arrived after the run had ended, keeps it on the run and counts its unstored steps, once', async () => {
    const dir = spoolDir();
    const store = InMemoryRunStore.create();
    const run = await store.createRun({ configuration: 'c', createdAt: 1_000 });
    await store.recoverInterrupted(Date.now() + 1); // its process looked dead: recovery ended it
    const file = join(dir, 'spool-999999995-1-000000dd.jsonl');
    const finish = { status: 'completed', finishedAt: 1_500, terminationReason: null, unstoredSteps: 2 };
    writeFileSync(file, line({ type: 'step', runId: run.id, sequence: 0, step: STEP }) + line({ type: 'finish', runId: run.id, finish }));
    copyFileSync(file, `${file}.copy`);
    const result = await deliverSpool(store, { dir });
    expect(result.files).toEqual([
      expect.objectContaining({
        state: 'delivered',
        steps: 1,
        finishes: 0,
        lateFinishes: [{ runId: run.id, status: 'completed', finishedAt: 1_500, runStatus: 'interrupted', unstoredSteps: 2 }],
        problem: null,
      }),
    ]);
    expect(await store.getRun(run.id)).toMatchObject({
      status: 'interrupted',
      unstoredSteps: 2,
      lateFinishStatus: 'completed',
      lateFinishAt: 1_500,
      stepCount: 1,
    });
    // the same file again (a copy left behind): nothing counted twice
    copyFileSync(`${file}.copy`, file);
    await deliverSpool(store, { dir });
    expect((await store.getRun(run.id))?.unstoredSteps).toBe(2);
  });

  it('counts the acknowledged entries lost after a cut mid-line, and keeps the file', async () => {
    const dir = spoolDir();
    const store = InMemoryRunStore.create();
    const run = await store.createRun({ configuration: 'c', createdAt: 1_000 });
    const writer = SpoolWriter.forDir(join(dir, 'writer'));
    for (let sequence = 0; sequence < 5; sequence++) await writer.write({ type: 'step', runId: run.id, sequence, step: STEP });
    const written = readFileSync(writer.path!, 'utf8');
    // the file as a process that died left it, then cut in the middle of its third entry
    const orphan = join(dir, 'spool-999999994-1-000000ee.jsonl');
    copyFileSync(writer.path!, orphan);
    await writer.delivered(5);
    const third = written.indexOf(`"sequence":2`);
    truncateSync(orphan, third + 5);
    expect(statSync(orphan).size).toBeLessThan(written.length);
    const [summary] = await inspectSpool(dir);
    expect(summary).toMatchObject({ steps: 2, lost: 3 });
    const result = await deliverSpool(store, { dir });
    expect(result.files).toEqual([expect.objectContaining({ state: 'kept', steps: 2, lost: 3 })]);
    expect(result.files[0]!.problem).toMatch(/3 acknowledged entries were lost/);
    expect(readdirSync(dir)).toContain('spool-999999994-1-000000ee.jsonl');
    expect((await store.getRun(run.id))?.stepCount).toBe(2);
  });

  it('counts nothing lost for a last line a crash tore before it was acknowledged', async () => {
    const dir = spoolDir();
    const store = InMemoryRunStore.create();
    const run = await store.createRun({ configuration: 'c', createdAt: 1_000 });
    const writer = SpoolWriter.forDir(join(dir, 'writer-torn'));
    for (let sequence = 0; sequence < 2; sequence++) await writer.write({ type: 'step', runId: run.id, sequence, step: STEP });
    const orphan = join(dir, 'spool-999999993-1-000000ef.jsonl');
    // the write in flight when the machine lost power: part of its line, never acknowledged
    writeFileSync(orphan, `${readFileSync(writer.path!, 'utf8')}{"v":1,"type":"step","runId":"${run.id}","seq`);
    await writer.delivered(2);
    const result = await deliverSpool(store, { dir });
    expect(result.files).toEqual([expect.objectContaining({ state: 'delivered', steps: 2, torn: 1, lost: 0, problem: null })]);
    expect(readdirSync(dir).filter((name) => name.endsWith('.jsonl'))).toEqual([]);
  });

  it('sets aside a file that can never be delivered (its run is gone) when asked, and only then', async () => {
    const dir = spoolDir();
    const store = InMemoryRunStore.create();
    const gone = '00000000-0000-4000-8000-0000000000f1';
    const name = 'spool-999999992-1-000000f1.jsonl';
    writeFileSync(join(dir, name), line({ type: 'step', runId: gone, sequence: 0, step: STEP }));
    expect((await deliverSpool(store, { dir })).files[0]).toMatchObject({ state: 'kept' });
    expect(readdirSync(dir)).toEqual([name]);
    const result = await deliverSpool(store, { dir, setAside: true });
    expect(result.files[0]).toMatchObject({ state: 'set_aside' });
    expect(result.files[0]!.problem).toContain(`set aside as ${join(dir, `${name}.set-aside`)}`);
    expect(readdirSync(dir)).toEqual([`${name}.set-aside`]);
    // no longer listed nor delivered
    expect(await inspectSpool(dir)).toEqual([]);
    expect((await deliverSpool(store, { dir })).files).toEqual([]);
  });
});
