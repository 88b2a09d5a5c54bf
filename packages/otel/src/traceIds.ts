import { createHash } from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A hex id that is not all zeros (OpenTelemetry treats all-zero ids as invalid). */
function nonZero(hex: string): string {
  return /^0+$/.test(hex) ? `${hex.slice(0, -1)}1` : hex;
}

/** The trace id of a run in batch export: its UUID's 32 hex digits, else the first 16 bytes of SHA-256 of the id. */
export function traceIdOf(runId: string): string {
  const hex = UUID.test(runId)
    ? runId.replaceAll('-', '').toLowerCase()
    : createHash('sha256').update(`runledger/${runId}`).digest('hex').slice(0, 32);
  return nonZero(hex);
}

/** The span id of a run's root span (`'run'`) or of a step (its sequence): the first 8 bytes of SHA-256. */
export function spanIdOf(runId: string, key: 'run' | number): string {
  return nonZero(createHash('sha256').update(`runledger/${runId}/${key}`).digest('hex').slice(0, 16));
}
