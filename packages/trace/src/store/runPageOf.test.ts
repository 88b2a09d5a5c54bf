import { describe, expect, it } from 'vitest';
import { pageOfRuns, runPageOf } from './runPageOf.js';
import { storedRunOfRow } from './storedRunOfRow.js';
import { decodeRunCursor } from './runCursor.js';
import type { StoredRunRow } from './storedRunOfRow.js';

const ROW: StoredRunRow = {
  id: '0b6f0c8e-7d0e-4f2a-9a53-2f1f3c7a9e01',
  status: 'completed',
  configuration: 'triage',
  actor: null,
  created_at: 1_000,
  started_at: 1_000,
  finished_at: 2_000,
  termination_reason: null,
  cancel_requested_at: null,
  heartbeat_at: null,
  step_count: 0,
  ok_count: 0,
  failed_count: 0,
  cancelled_count: 0,
  unstored_steps: 0,
  late_finish_status: null,
  late_finish_at: null,
};

describe('runPageOf', () => {
  const rows = [0, 1, 2].map((i) => ({ ...ROW, id: `0b6f0c8e-7d0e-4f2a-9a53-2f1f3c7a9e0${i}`, created_at: 3_000 - i }));

  it('gives the cursor of the last run of the page when a row past it was read', () => {
    const page = runPageOf(rows, 2);
    expect(page.runs.map((run) => run.id)).toEqual([rows[0]!.id, rows[1]!.id]);
    expect(decodeRunCursor(page.nextCursor!)).toEqual({ createdAt: rows[1]!.created_at, id: rows[1]!.id });
  });

  it('has no next page when no row past the page was read', () => {
    expect(runPageOf(rows, 3).nextCursor).toBeNull();
    expect(runPageOf([], 3)).toEqual({ runs: [], nextCursor: null });
  });
});

describe('pageOfRuns (the page of a store that keeps runs, not rows)', () => {
  const runs = [0, 1, 2].map((i) => storedRunOfRow({ ...ROW, id: `0b6f0c8e-7d0e-4f2a-9a53-2f1f3c7a9e0${i}`, created_at: 3_000 - i }));

  it('reads each run of the page with runOf and gives the cursor runPageOf gives', () => {
    const seen: string[] = [];
    const page = pageOfRuns(runs, 2, (run) => (seen.push(run.id), run));
    expect(seen).toEqual([runs[0]!.id, runs[1]!.id]);
    expect(decodeRunCursor(page.nextCursor!)).toEqual({ createdAt: runs[1]!.createdAt, id: runs[1]!.id });
    expect(pageOfRuns(runs, 3, (run) => run).nextCursor).toBeNull();
  });
});
