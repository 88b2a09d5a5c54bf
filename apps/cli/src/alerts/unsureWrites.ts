// The reading of the may-have-executed rule: the failed calls of a window that may have run on their
// server unseen. Only a call whose listing already says it could match (failed, for a cause that
// leaves it unanswered) has its step read, and each run's candidates are read together.
import { buildRunTimeline, canSearchRuns, type RunStore, type SearchingRunStore, type StoredToolCall } from '@runledger/trace';
import type { UnsureWriteReading } from './evaluateAlerts.js';

/** The most pages (of 200) one server's listing walks, so that one pass stays bounded on a huge store. */
const MAX_PAGES = 50;
/** The widest range of sequences one step read covers: candidates further apart in a run are read apart. */
const MAX_SPAN = 200;

const memo = new Map<string | null, boolean>();

/**
 * Whether a failed call of this cause would be a write that may have executed, had its step said
 * it writes and was sent: trace's own rule (the timeline's mark) asked about a probe step, so that
 * the listing's cause rules a call out exactly where the rule would.
 */
function causeCanMatch(cause: string | null): boolean {
  let known = memo.get(cause);
  if (known === undefined) {
    const payload = { kind: 'tool', toolWrites: true, toolIsError: true, toolOutcome: 'failed', toolFailureCause: cause };
    const probe = {
      runId: '',
      sequence: 0,
      kind: 'tool',
      round: 0,
      durationMs: 0,
      createdAt: 0,
      payload: JSON.stringify(payload),
      toolServer: null,
      toolOutcome: 'failed' as const,
    };
    known = buildRunTimeline(null, [probe])[0]?.mayHaveExecuted === true;
    memo.set(cause, known);
  }
  return known;
}

/** The failed calls of the window that could match, every server's, in listing order. */
async function candidates(store: SearchingRunStore, since: number): Promise<StoredToolCall[]> {
  const found: StoredToolCall[] = [];
  for (const { server } of await store.serverHealth({ since })) {
    let cursor: string | null = null;
    for (let page = 0; page < MAX_PAGES; page++) {
      const listed = await store.listToolCalls({ server, outcome: 'failed', since, limit: 200, cursor });
      for (const call of listed.calls) if (causeCanMatch(call.cause)) found.push(call);
      cursor = listed.nextCursor;
      if (cursor === null) break;
    }
  }
  return found;
}

/** The sequences of one run, sorted, cut into ranges of at most {@link MAX_SPAN} sequences. */
function ranges(sequences: readonly number[]): Array<{ readonly from: number; readonly limit: number }> {
  const sorted = [...new Set(sequences)].sort((a, b) => a - b);
  const out: Array<{ from: number; limit: number }> = [];
  for (const sequence of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && sequence - last.from < MAX_SPAN) last.limit = sequence - last.from + 1;
    else out.push({ from: sequence, limit: 1 });
  }
  return out;
}

/** Of the candidates, the keys (`<run id>#<sequence>`) of the calls whose step the timeline marks as may-have-executed. */
async function marked(store: RunStore, calls: readonly StoredToolCall[]): Promise<Set<string>> {
  const byRun = new Map<string, number[]>();
  for (const call of calls) {
    const list = byRun.get(call.runId);
    if (list === undefined) byRun.set(call.runId, [call.sequence]);
    else list.push(call.sequence);
  }
  const keys = new Set<string>();
  for (const [runId, sequences] of byRun) {
    const wanted = new Set(sequences);
    for (const { from, limit } of ranges(sequences)) {
      const steps = (await store.readSteps(runId, { fromSequence: from, limit })).filter((s) => wanted.has(s.sequence));
      for (const entry of buildRunTimeline(null, steps)) {
        if (entry.mayHaveExecuted && entry.sequence !== null) keys.add(`${runId}#${entry.sequence}`);
      }
    }
  }
  return keys;
}

/**
 * The failed calls to writing tools since a time that may have executed (never a cancelled one:
 * that was the operator), newest first per server.
 *
 * @remarks
 * A call is listed by its server's failed calls of the window; only one whose cause leaves it
 * unanswered can be marked, so only those have their step read: one `readSteps` per run (per
 * {@link MAX_SPAN} sequences of it), never one per call.
 *
 * @internal
 */
export async function unsureWrites(store: RunStore, since: number): Promise<UnsureWriteReading[]> {
  if (!canSearchRuns(store)) return [];
  const calls = await candidates(store, since);
  const keys = await marked(store, calls);
  return calls
    .filter((call) => keys.has(`${call.runId}#${call.sequence}`))
    .map((call) => ({ runId: call.runId, sequence: call.sequence, server: call.server, tool: call.tool, createdAt: call.createdAt }));
}
