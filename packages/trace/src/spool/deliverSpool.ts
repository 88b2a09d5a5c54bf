import { rename, unlink } from 'node:fs/promises';
import { basename } from 'node:path';
import {
  defaultSpoolDir,
  isAlive,
  listSpoolFiles,
  readSpoolFile,
  SET_ASIDE_SUFFIX,
  spoolFileOwner,
  type SpoolFileRead,
} from './RunSpool.js';
import { isRetryable } from '../store/RecordRetry.js';
import type { RunStatus, TerminalRunStatus } from '../step/RunStatus.js';
import type { FinishRunInput, RunStore, StoredRun } from '../store/RunStore.js';
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
  /**
   * Set aside a file that can never be delivered — what is left of it the store refuses for good
   * (its run is gone: pruned, or the wrong store), or lines of it are unreadable or lost — by
   * renaming it to its name + `.set-aside` in the same folder, where deliveries and listings no
   * longer look; default false (such a file is kept, and reported, at every delivery). A file kept
   * because the store failed (it may take it later) is never set aside.
   */
  readonly setAside?: boolean;
}

/**
 * A final status that reached the store after its run had ended already (say, recovery marked it
 * `interrupted` while the status waited in the spool): the store keeps it as the run's
 * `lateFinishStatus` and counts its unstored steps, but the run stays as it ended.
 *
 * @public
 */
export interface SpoolLateFinish {
  /** The run. */
  readonly runId: string;
  /** The status the spooled final status asked for. */
  readonly status: TerminalRunStatus;
  /** When the run's process decided it; null in a file written before spool files kept it. */
  readonly finishedAt: number | null;
  /** How the run had ended, and stays. */
  readonly runStatus: RunStatus;
  /** The unstored steps it brought, added to the run's count. */
  readonly unstoredSteps: number;
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
   * `problem`); `set_aside`: something is left that can never be delivered, and the file was
   * renamed out of the way (`DeliverSpoolOptions.setAside`; `problem` says why and where).
   */
  readonly state: 'delivered' | 'skipped' | 'kept' | 'set_aside';
  /** Steps now in the store (stored now or found stored already). */
  readonly steps: number;
  /** Final statuses now in the store as how their run ended (stored now or found stored already). */
  readonly finishes: number;
  /** Final statuses that arrived after their run had ended otherwise: kept on the run as late ones. */
  readonly lateFinishes: readonly SpoolLateFinish[];
  /** A last line cut short: by a crash (never acknowledged), or where the file was cut (see `lost`). */
  readonly torn: number;
  /** Lines that could not be read. */
  readonly unreadable: number;
  /** Acknowledged entries that are not in the file any more: it was cut short after them. */
  readonly lost: number;
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
 * half-way can simply be run again, and so is a final status (recognised by its status and time).
 * A final status whose run had ended otherwise meanwhile (recovery) is kept by the store as the
 * run's late finish and listed in `lateFinishes`. A file whose entries cannot all be delivered, or
 * that was cut short after acknowledged entries (`lost`), is kept with the reason — or set aside
 * (`setAside`) when nothing left in it can ever be delivered. Files of processes alive on this
 * machine are skipped unless asked for: they deliver their own.
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
      files.push({
        path,
        pid,
        state: 'skipped',
        steps: 0,
        finishes: 0,
        lateFinishes: [],
        torn: 0,
        unreadable: 0,
        lost: 0,
        problem: `process ${pid} is alive`,
      });
      continue;
    }
    const delivery = await deliverFile(store, path, pid, live, options.setAside === true);
    if (delivery !== null) files.push(delivery);
  }
  return { dir, files };
}

/**
 * Delivers one file; null when it is gone already (its process delivered it meanwhile). A run
 * whose entry the store refuses is left there (the rest of that run waits), the other runs go
 * on. The file of a live process is never removed: the process still writes to it.
 */
async function deliverFile(
  store: RunStore,
  path: string,
  pid: number | null,
  live: boolean,
  setAside: boolean,
): Promise<SpoolFileDelivery | null> {
  let read: SpoolFileRead;
  try {
    read = await readSpoolFile(path);
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return null;
    throw error;
  }
  const { entries, torn, unreadable, lost } = read;
  let steps = 0;
  let finishes = 0;
  const lateFinishes: SpoolLateFinish[] = [];
  const problems: string[] = unreadable > 0 ? [`${unreadable} lines could not be read`] : [];
  if (lost > 0)
    problems.push(
      `${lost} acknowledged entries were lost: the file was cut short after the ${entries.length + unreadable} it still holds (their runs miss them for good)`,
    );
  /** A problem that waiting may fix (the store failed): the file must stay where it is. */
  let transient = false;
  const stopped = new Set<string>();
  for (const entry of entries) {
    if (stopped.has(entry.runId)) continue;
    try {
      if (entry.type === 'step') {
        await store.appendStep(entry.runId, { ...entry.step, sequence: entry.sequence });
        steps++;
      } else {
        const asked = Date.now();
        const run = await store.finishRun(entry.runId, entry.finish);
        if (endedBy(run, entry.finish, asked)) finishes++;
        else
          lateFinishes.push({
            runId: entry.runId,
            status: entry.finish.status,
            finishedAt: entry.finish.finishedAt ?? null,
            runStatus: run.status,
            unstoredSteps: entry.finish.unstoredSteps ?? 0,
          });
      }
    } catch (error) {
      const what = entry.type === 'step' ? `step ${entry.sequence} of run ${entry.runId}` : `the final status of run ${entry.runId}`;
      problems.push(`${what}: ${RunStoreError.is(error) ? `${error.code}: ${error.message}` : String(error)}`);
      if (isRetryable(error)) transient = true;
      stopped.add(entry.runId);
    }
  }
  const counts = { steps, finishes, lateFinishes, torn, unreadable, lost };
  const problem = problems.length === 0 ? null : problems.join('; ');
  if (problem !== null) {
    if (!setAside || transient || live) return { path, pid, state: 'kept', ...counts, problem };
    const aside = `${path}${SET_ASIDE_SUFFIX}`;
    await rename(path, aside);
    return { path, pid, state: 'set_aside', ...counts, problem: `${problem}; set aside as ${aside}` };
  }
  if (live) return { path, pid, state: 'delivered', ...counts, problem: `file kept: process ${pid} is alive and still writes to it` };
  await unlink(path).catch((error: unknown) => {
    if ((error as { code?: string }).code !== 'ENOENT') throw error;
  });
  return { path, pid, state: 'delivered', ...counts, problem };
}

/**
 * Tells whether a run as stored after a finish ended with that finish (stored now, or found
 * stored already), rather than keeping it as a late one. A finish without its time (a file of an
 * earlier version) is late when the store kept a late finish at or after the moment it was asked.
 */
function endedBy(run: StoredRun, finish: FinishRunInput, asked: number): boolean {
  if (finish.finishedAt === undefined) return run.lateFinishAt === undefined || run.lateFinishAt === null || run.lateFinishAt < asked;
  return run.finishedAt === finish.finishedAt && (run.status === finish.status || run.status === 'cancelled');
}
