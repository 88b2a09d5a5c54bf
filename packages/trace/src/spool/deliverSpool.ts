import { unlink } from 'node:fs/promises';
import { basename } from 'node:path';
import { defaultSpoolDir, isAlive, listSpoolFiles, readSpoolFile, spoolFileOwner } from './RunSpool.js';
import type { RunStore } from '../store/RunStore.js';
import { RunStoreError } from '../store/RunStoreError.js';

/**
 * Options of {@link deliverSpool}.
 *
 * @public
 */
export interface DeliverSpoolOptions {
  /** The spool folder; default {@link defaultSpoolDir}. */
  readonly dir?: string;
  /**
   * Also deliver the files of processes that are still alive on this machine (they deliver their
   * own when their store is back); default false.
   */
  readonly includeLiveProcesses?: boolean;
}

/**
 * What one spool file gave.
 *
 * @public
 */
export interface SpoolFileDelivery {
  /** The spool file. */
  readonly path: string;
  /** The process that wrote it. */
  readonly pid: number | null;
  /**
   * `delivered`: every entry is in the store and the file was removed (a live process's file
   * stays, see `problem`); `skipped`: its process is alive; `kept`: something is left (see
   * `problem`).
   */
  readonly state: 'delivered' | 'skipped' | 'kept';
  /** Steps now in the store (stored now or found stored already). */
  readonly steps: number;
  /** Final statuses written. */
  readonly finishes: number;
  /** A last line cut short by a crash (never acknowledged, so nothing lost). */
  readonly torn: number;
  /** Lines that could not be read. */
  readonly unreadable: number;
  /** Why the file was kept, or null. */
  readonly problem: string | null;
}

/**
 * What {@link deliverSpool} did.
 *
 * @public
 */
export interface SpoolDeliveryResult {
  /** The spool folder that was read. */
  readonly dir: string;
  /** Each spool file found, oldest first. */
  readonly files: readonly SpoolFileDelivery[];
}

/**
 * Delivers the spool files of a folder to a store: each run's steps in order with the sequences
 * they were recorded with, then its final status; removes every file that was delivered whole.
 *
 * @remarks
 * Delivery is idempotent: a step that reached the store already (an earlier delivery, or the
 * process itself) is recognised by its sequence and not stored twice, so a delivery that stops
 * half-way can simply be run again. A file whose entries cannot all be delivered is kept, with
 * the reason. Files of processes alive on this machine are skipped unless asked for: they
 * deliver their own.
 *
 * @public
 */
export async function deliverSpool(store: RunStore, options: DeliverSpoolOptions = {}): Promise<SpoolDeliveryResult> {
  const dir = options.dir ?? defaultSpoolDir();
  const files: SpoolFileDelivery[] = [];
  for (const path of await listSpoolFiles(dir)) {
    const pid = spoolFileOwner(basename(path));
    const live = pid !== null && (pid === process.pid || isAlive(pid));
    // this process delivers its own files itself; others only when asked
    if (live && (pid === process.pid || !options.includeLiveProcesses)) {
      files.push({ path, pid, state: 'skipped', steps: 0, finishes: 0, torn: 0, unreadable: 0, problem: `process ${pid} is alive` });
      continue;
    }
    const delivery = await deliverFile(store, path, pid, live);
    if (delivery !== null) files.push(delivery);
  }
  return { dir, files };
}

/**
 * Delivers one file; null when it is gone already (its process delivered it meanwhile). A run
 * whose entry the store refuses is left there (the rest of that run waits), the other runs go
 * on. The file of a live process is never removed: the process still writes to it.
 */
async function deliverFile(store: RunStore, path: string, pid: number | null, live: boolean): Promise<SpoolFileDelivery | null> {
  let read: Awaited<ReturnType<typeof readSpoolFile>>;
  try {
    read = await readSpoolFile(path);
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return null;
    throw error;
  }
  const { entries, torn, unreadable } = read;
  let steps = 0;
  let finishes = 0;
  const problems: string[] = unreadable > 0 ? [`${unreadable} lines could not be read`] : [];
  const stopped = new Set<string>();
  for (const entry of entries) {
    if (stopped.has(entry.runId)) continue;
    try {
      if (entry.type === 'step') {
        await store.appendStep(entry.runId, { ...entry.step, sequence: entry.sequence });
        steps++;
      } else {
        await store.finishRun(entry.runId, entry.finish);
        finishes++;
      }
    } catch (error) {
      const what = entry.type === 'step' ? `step ${entry.sequence} of run ${entry.runId}` : `the final status of run ${entry.runId}`;
      problems.push(`${what}: ${RunStoreError.is(error) ? `${error.code}: ${error.message}` : String(error)}`);
      stopped.add(entry.runId);
    }
  }
  const problem = problems.length === 0 ? null : problems.join('; ');
  if (problem !== null) return { path, pid, state: 'kept', steps, finishes, torn, unreadable, problem };
  if (live)
    return {
      path,
      pid,
      state: 'delivered',
      steps,
      finishes,
      torn,
      unreadable,
      problem: `file kept: process ${pid} is alive and still writes to it`,
    };
  await unlink(path).catch((error: unknown) => {
    if ((error as { code?: string }).code !== 'ENOENT') throw error;
  });
  return { path, pid, state: 'delivered', steps, finishes, torn, unreadable, problem };
}
