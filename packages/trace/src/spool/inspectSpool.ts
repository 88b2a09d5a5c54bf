import { basename } from 'node:path';
import { defaultSpoolDir, isAlive, listSpoolFiles, readSpoolFile, spoolFileOwner } from './RunSpool.js';

/**
 * One spool file and what waits in it.
 *
 * @public
 */
export interface SpoolFileSummary {
  /** The spool file. */
  readonly path: string;
  /** The process that wrote it. */
  readonly pid: number | null;
  /** True while that process is alive on this machine (it delivers its own file). */
  readonly alive: boolean;
  /** Steps waiting (some may have reached the store already: delivery skips those). */
  readonly steps: number;
  /** Final statuses waiting. */
  readonly finishes: number;
  /** The runs they belong to. */
  readonly runs: number;
  /** A last line cut short: by a crash (never acknowledged), or where the file was cut (see `lost`). */
  readonly torn: number;
  /** Lines that could not be read. */
  readonly unreadable: number;
  /**
   * Entries that were acknowledged (their record call resolved) but are not in the file any more:
   * it was cut short after them. 0 for a whole file (and for a file written before spool files
   * counted their entries).
   */
  readonly lost: number;
}

/**
 * Lists the spool files of a folder (default {@link defaultSpoolDir}) with what waits in each,
 * oldest first; reads only.
 *
 * @public
 */
export async function inspectSpool(dir: string = defaultSpoolDir()): Promise<readonly SpoolFileSummary[]> {
  const summaries: SpoolFileSummary[] = [];
  for (const path of await listSpoolFiles(dir)) {
    let read: Awaited<ReturnType<typeof readSpoolFile>>;
    try {
      read = await readSpoolFile(path);
    } catch (error) {
      if ((error as { code?: string }).code === 'ENOENT') continue; // delivered meanwhile
      throw error;
    }
    const pid = spoolFileOwner(basename(path));
    summaries.push({
      path,
      pid,
      alive: pid !== null && isAlive(pid),
      steps: read.entries.filter((entry) => entry.type === 'step').length,
      finishes: read.entries.filter((entry) => entry.type === 'finish').length,
      runs: new Set(read.entries.map((entry) => entry.runId)).size,
      torn: read.torn,
      unreadable: read.unreadable,
      lost: read.lost,
    });
  }
  return summaries;
}
