// appendStep's second look (the sibling of the append statement): an append that named a sequence
// other than the run's next is a repeat of the stored step, or refused.
import { RunStoreError } from '@runledger/trace';
import { type NormalizedAppendStep, sequencePastEndError } from '@runledger/trace/store';
import { ms } from '../postgresRows.js';
import type { TimedQuery } from '../PostgresAccess.js';

/**
 * An append that named a sequence other than the run's next: a repeat of the stored step, or
 * refused. The comparison is made by the server (exact for float8 whatever extra_float_digits).
 *
 * @internal
 */
export async function repeatedAppend(
  q: string,
  query: TimedQuery,
  failure: (what: string, error: unknown) => RunStoreError,
  runId: string,
  input: NormalizedAppendStep,
  sequence: number,
): Promise<number> {
  type Found = { next_sequence: number; present: boolean; same: boolean | null };
  let found: Found | undefined;
  try {
    const result = await query<Found>(
      `SELECT r.next_sequence, s.run_id IS NOT NULL AS present,
              (s.kind = $3 AND s.round = $4 AND s.duration_ms = $5::float8 AND s.created_at = $6::bigint AND s.payload = $7
               AND s.tool_server IS NOT DISTINCT FROM $8 AND s.tool_outcome IS NOT DISTINCT FROM $9) AS same
       FROM ${q}.runs r LEFT JOIN ${q}.steps s ON s.run_id = r.id AND s.sequence = $2
       WHERE r.id = $1 AND r.pruned_at IS NULL`,
      [
        runId,
        sequence,
        input.kind,
        input.round,
        input.durationMs,
        ms(input.createdAt),
        input.payloadText,
        input.toolServer,
        input.toolOutcome,
      ],
    );
    found = result.rows[0];
  } catch (error) {
    throw failure('appendStep', error);
  }
  if (found === undefined) throw RunStoreError.runNotFound(runId);
  if (sequence > found.next_sequence) throw sequencePastEndError(runId, sequence, found.next_sequence);
  if (found.present && found.same === true) return sequence;
  throw RunStoreError.sequenceConflict(runId, sequence);
}
