// The ledger on a full disk: a real 8 MiB tmpfs under the SQLite file (mounting needs root; the
// test says so when it is skipped). Steps the file cannot take wait in the spool on another disk
// and are delivered once there is room; steps that can be neither stored nor spooled are counted
// on the run and reported. See docs/reliability.md.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRun } from '@runledger/trace';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SqliteRunStore } from './SqliteRunStore.js';

const isRoot = process.getuid?.() === 0;
if (!isRoot) {
  console.log('SqliteRunStore.faults: SKIPPED the full-disk tests: mounting a tmpfs needs root (CI runs as root)');
}

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  // every cleanup runs, whatever the one before it threw (a store on a full disk may fail to
  // close): a tmpfs is never left mounted
  for (const cleanup of cleanups.splice(0).reverse()) {
    try {
      await cleanup();
    } catch (error) {
      console.log(`SqliteRunStore.faults: a cleanup failed (the next ones still ran): ${String(error)}`);
    }
  }
});

/** A fresh 8 MiB tmpfs; unmounted after the test. */
function smallDisk(): string {
  const dir = mkdtempSync(join(tmpdir(), 'runledger-full-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', dir]);
  cleanups.push(() => {
    execFileSync('umount', ['-l', dir]);
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

/** Fills a disk up but for a little room; returns a function that frees the space again. */
function fill(dir: string): () => void {
  const fillers: string[] = [];
  for (let i = 0; ; i++) {
    const path = join(dir, `filler-${i}`);
    try {
      writeFileSync(path, Buffer.alloc(16 * 1024));
      fillers.push(path);
    } catch {
      rmSync(path, { force: true });
      break;
    }
  }
  return () => {
    for (const path of fillers) rmSync(path, { force: true });
  };
}

describe.skipIf(!isRoot)('SQLite on a full disk', () => {
  it('spools the steps the full file refuses and delivers them once there is room: none lost', async () => {
    const disk = smallDisk();
    const spool = mkdtempSync(join(tmpdir(), 'runledger-spool-'));
    cleanups.push(() => rmSync(spool, { recursive: true, force: true }));
    const store = await SqliteRunStore.open({ path: join(disk, 'runs.db'), busyTimeoutMs: 200 });
    cleanups.push(() => store.close());
    const run = await startRun(store, {
      configuration: 'full-disk',
      heartbeatMs: 0,
      spoolDir: spool,
      retry: { attempts: 3, initialDelayMs: 5 },
    });
    const free = fill(disk);
    const content = 'x'.repeat(1_000);
    for (let i = 0; i < 300; i++) await run.trace.recordRequest({ content: `${i} ${content}` });
    expect(run.trace.recordFailures).toBe(0);
    expect(readdirSync(spool).length).toBe(1); // the disk was full: steps wait in the spool
    const storedWhileFull = (await store.getRun(run.id))!.stepCount;
    expect(storedWhileFull).toBeLessThan(300);
    free();
    const done = await run.complete().catch(async () => run.finished);
    expect(done).toMatchObject({ status: 'completed', stepCount: 300, unstoredSteps: 0 });
    expect((await store.readSteps(run.id)).map((step) => step.sequence)).toEqual(Array.from({ length: 300 }, (_, i) => i));
    for (let i = 0; i < 100 && readdirSync(spool).length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(readdirSync(spool)).toEqual([]);
    console.log(`full disk: ${300 - storedWhileFull} of 300 steps went to the spool while the disk was full; 300 stored after`);
  });

  it('counts and reports the steps that can be neither stored nor spooled (the spool on the full disk too)', async () => {
    const disk = smallDisk();
    const spool = join(disk, 'spool');
    mkdirSync(spool);
    const store = await SqliteRunStore.open({ path: join(disk, 'runs.db'), busyTimeoutMs: 200 });
    cleanups.push(() => store.close());
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const run = await startRun(store, {
      configuration: 'full-disk',
      heartbeatMs: 0,
      spoolDir: spool,
      retry: { attempts: 2, initialDelayMs: 5 },
    });
    const free = fill(disk);
    const content = 'x'.repeat(1_000);
    for (let i = 0; i < 300; i++) await run.trace.recordRequest({ content: `${i} ${content}` });
    const lost = run.trace.recordFailures;
    expect(lost).toBeGreaterThan(0);
    const reports = stderr.mock.calls.map(([text]) => String(text)).filter((text) => text.includes('was NOT stored'));
    expect(reports).toHaveLength(lost);
    free();
    const done = await run.complete();
    expect(done).toMatchObject({ status: 'completed', unstoredSteps: lost });
    expect(done.stepCount + lost).toBe(300);
    expect((await store.readSteps(run.id)).map((step) => step.sequence)).toEqual(Array.from({ length: done.stepCount }, (_, i) => i));
    console.log(`full disk, spool full too: ${lost} of 300 steps lost, each reported and counted on the run`);
  });
  it('with group commit, a batch the full disk refuses is refused whole: stored steps are exactly the acknowledged ones', async () => {
    const disk = smallDisk();
    const store = await SqliteRunStore.open({ path: join(disk, 'runs.db'), busyTimeoutMs: 200 });
    cleanups.push(() => store.close());
    const runs = await Promise.all(Array.from({ length: 16 }, (_, i) => store.createRun({ configuration: `full-${i}` })));
    const free = fill(disk);
    // room for a few batches, not for all: some commit, the rest are refused
    for (let i = 0; i < 12; i++) rmSync(join(disk, `filler-${i}`), { force: true });
    const content = 'x'.repeat(1_000);
    const step = (r: number, i: number) => ({
      kind: 'tool',
      round: i,
      durationMs: 1,
      createdAt: Date.now(),
      payload: { kind: 'tool', r, i, content, toolName: 'mcp_disk_write', toolServer: 'disk', toolIsError: false, toolOutcome: 'ok' },
      toolServer: 'disk',
      toolOutcome: 'ok' as const,
    });
    const acknowledged = runs.map(() => 0);
    let refused = 0;
    await Promise.all(
      runs.map(async (run, r) => {
        for (let i = 0; i < 20; i++) {
          try {
            // sequences stay gap-free: a refused append takes none
            expect(await store.appendStep(run.id, step(r, i))).toBe(acknowledged[r]);
            acknowledged[r]!++;
          } catch (error) {
            expect(error).toMatchObject({ code: 'storage_failure' });
            refused++;
          }
        }
      }),
    );
    expect(refused).toBeGreaterThan(0);
    expect(refused).toBeLessThan(320);
    free();
    for (const [r, run] of runs.entries()) {
      expect((await store.readSteps(run.id)).map((stored) => stored.sequence)).toEqual(
        Array.from({ length: acknowledged[r]! }, (_, i) => i),
      );
      // with room again, the run goes on where its acknowledged steps end
      expect(await store.appendStep(run.id, step(r, 99))).toBe(acknowledged[r]);
    }
    console.log(
      `full disk, group commit: ${320 - refused} of 320 concurrent appends stored, ${refused} refused; the stored ones are exactly the acknowledged ones`,
    );
  });
});
