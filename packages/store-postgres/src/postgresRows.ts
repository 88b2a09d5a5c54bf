// The columns of the store's tables (their rows read back through trace's storedRunOfRow and
// storedStepReader, @runledger/trace/store, as every SQL store's do) and its times in milliseconds.

export const RUN_COLUMNS =
  'id, status, configuration, actor, title, created_at, started_at, finished_at, termination_reason, termination_kind, termination_facts, cancel_requested_at, heartbeat_at, next_sequence AS step_count, ok_count, failed_count, cancelled_count, tokens, unstored_steps, late_finish_status, late_finish_at, cancel_from, cancel_by, cancel_reason';
export const STEP_COLUMNS = 'run_id, sequence, kind, round, duration_ms, created_at, payload, tool_server, tool_outcome';

/** Times are kept in whole milliseconds. */
export function ms(value: number): number {
  return Math.floor(value);
}

export function msOrNull(value: number | null | undefined): number | null {
  return value === null || value === undefined ? null : ms(value);
}
