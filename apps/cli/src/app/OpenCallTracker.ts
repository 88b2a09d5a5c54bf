import { canReadOpenCalls, OpenCallSet, RunStatus, type RunStore, type StoredRun, type StoredStep } from '@runledger/trace';

/** What a tracker knows of one running run: every step before `next` has been taken into `open`. */
interface Followed {
  next: number;
  /** The `tool_start` steps of the calls not ended yet (and the ends that came before their start). */
  readonly open: OpenCallSet<StoredStep>;
  /** The read in progress, so two requests for one run read its tail once. */
  pending: Promise<void> | null;
}

/** Calls on the wire of a running run as a tracker saw them. @internal */
export interface OpenCalls {
  /** The `tool_start` steps of the calls on the wire, in sequence order. */
  readonly starts: readonly StoredStep[];
  /** Every step before this sequence was read. */
  readonly readTo: number;
}

/** Steps read at a time from a followed run's tail. */
const TAIL_CHUNK = 5_000;

/**
 * Knows the calls on the wire of the running runs the app shows, reading each run's steps once:
 * the first view of a running run asks the store for its open calls (`readOpenCalls`, which costs
 * the open calls; a store without it has the run read whole), every later view reads only the
 * steps appended since (steps are append-only and numbered from 0). Without it, every view of a
 * running 100 000-step run read the whole run (about 450 ms). Keeps at most `maxRuns` runs (least
 * recently viewed goes first) and forgets a run once it has ended; per run it holds only the open
 * calls' start steps.
 *
 * Call ids are unique within a run (the recorder makes them so); a run that reused one would show
 * here the last start of that id, where the whole run's timeline hides every start of an id that
 * some step ended.
 *
 * @internal
 */
export class OpenCallTracker {
  private readonly runs = new Map<string, Followed>();

  constructor(private readonly maxRuns = 64) {}

  /** The calls on the wire of `run` (a running run) after reading the steps appended since the last view. */
  async openCalls(store: RunStore, run: StoredRun): Promise<OpenCalls> {
    if (run.status !== RunStatus.RUNNING) {
      this.runs.delete(run.id);
      throw new Error(`OpenCallTracker follows running runs; run ${run.id} is ${run.status}`);
    }
    let followed = this.runs.get(run.id);
    if (followed === undefined) {
      followed = { next: 0, open: new OpenCallSet(), pending: null };
    } else {
      this.runs.delete(run.id); // re-inserted below: the map's order is the order of the last view
    }
    this.runs.set(run.id, followed);
    while (this.runs.size > this.maxRuns) this.runs.delete(this.runs.keys().next().value!);
    while (followed.pending !== null) await followed.pending.catch(() => undefined);
    const reading = this.read(store, run.id, followed);
    followed.pending = reading;
    try {
      await reading;
    } catch (error) {
      this.runs.delete(run.id); // a failed read may have stopped mid-chunk: start over next time
      throw error;
    } finally {
      followed.pending = null;
    }
    return { starts: followed.open.values(), readTo: followed.next };
  }

  /** Forgets a run (it ended, or was deleted). */
  forget(runId: string): void {
    this.runs.delete(runId);
  }

  /** How many runs it follows now. */
  get size(): number {
    return this.runs.size;
  }

  /** A run followed from its start: the store's open calls (when it keeps them), then the steps appended since. */
  private async read(store: RunStore, runId: string, followed: Followed): Promise<void> {
    if (followed.next === 0 && followed.open.size === 0 && canReadOpenCalls(store)) {
      const read = await store.readOpenCalls(runId);
      if (read !== null) {
        for (const id of read.endedFirst) followed.open.end(id);
        for (const start of read.starts) followed.open.add(start, start);
        followed.next = read.readTo;
      }
    }
    await this.readTail(store, runId, followed);
  }

  private async readTail(store: RunStore, runId: string, followed: Followed): Promise<void> {
    for (;;) {
      const chunk = await store.readSteps(runId, { fromSequence: followed.next, limit: TAIL_CHUNK });
      for (const step of chunk) followed.open.add(step, step);
      if (chunk.length > 0) followed.next = chunk[chunk.length - 1]!.sequence + 1;
      if (chunk.length < TAIL_CHUNK) return;
    }
  }
}
