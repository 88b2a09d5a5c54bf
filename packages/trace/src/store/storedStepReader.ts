// Steps read back from a SQL store's rows: every SQL store names its steps' columns alike and maps
// them through this one reader, so a damaged row reads the same way from every store.
import type { StoredStep } from '@runledger/trace';
import type { ToolOutcome } from '@runledger/core';

/**
 * A step's row as a SQL store reads it: the columns every store's `steps` table names alike. The
 * values are whatever the driver returned; {@link storedStepReader} reads them safely.
 *
 * @public
 */
export interface StoredStepRow {
  readonly sequence: number;
  readonly kind: unknown;
  readonly round: unknown;
  readonly duration_ms: unknown;
  readonly created_at: unknown;
  readonly payload: unknown;
  readonly tool_server: unknown;
  readonly tool_outcome: unknown;
}

/** The most distinct short strings one reader shares. */
const MAX_SHARED = 1024;
/** Longer strings are not shared (a kind, a server name and an outcome are short). */
const MAX_SHARED_LENGTH = 64;
const utf8 = new TextDecoder();

/**
 * A reader of one run's step rows: each row as the frozen {@link StoredStep} a caller sees.
 *
 * @remarks
 * The row is read, never cast: a binary payload reads as its UTF-8 text (the timeline then shows
 * it unreadable when it is no JSON object), a number stored as text as the number, an outcome that
 * is not a `ToolOutcome` and a server that is not text as null. The few distinct kinds and servers
 * of a run are shared between its steps (one copy each): a driver makes a fresh string per row, and
 * a timeline of 10 000 steps would otherwise keep 20 000 of them alive.
 *
 * @public
 */
export function storedStepReader(runId: string): (row: StoredStepRow) => StoredStep {
  const shared = new Map<string, string>();
  const share = (text: string): string => {
    if (text.length > MAX_SHARED_LENGTH) return text;
    const known = shared.get(text);
    if (known !== undefined) return known;
    if (shared.size < MAX_SHARED) shared.set(text, text);
    return text;
  };
  return (row) => {
    const { kind, round, duration_ms: durationMs, created_at: createdAt, payload, tool_server: toolServer } = row;
    return Object.freeze({
      runId,
      sequence: row.sequence,
      kind: typeof kind === 'string' ? share(kind) : String(kind),
      round: typeof round === 'number' ? round : Number(round),
      durationMs: typeof durationMs === 'number' ? durationMs : Number(durationMs),
      createdAt: typeof createdAt === 'number' ? createdAt : Number(createdAt),
      payload: typeof payload === 'string' ? payload : payload instanceof Uint8Array ? utf8.decode(payload) : String(payload),
      toolServer: typeof toolServer === 'string' ? share(toolServer) : null,
      toolOutcome: toolOutcomeOf(row.tool_outcome),
    });
  };
}

function toolOutcomeOf(value: unknown): ToolOutcome | null {
  return value === 'ok' || value === 'failed' || value === 'cancelled' ? value : null;
}
