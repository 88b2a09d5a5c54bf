/**
 * Where a run stands: `running`, or one of the terminal statuses. Terminal is terminal: a run
 * that reached one never leaves it.
 *
 * @public
 */
export const RunStatus = {
  RUNNING: 'running',
  COMPLETED: 'completed',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
  /** The process running it died; set by a recovery call on a run whose heartbeat went stale. */
  INTERRUPTED: 'interrupted',
} as const;

/**
 * One of the status strings of {@link (RunStatus:variable)}.
 *
 * @public
 */
export type RunStatus = (typeof RunStatus)[keyof typeof RunStatus];

/**
 * A status a finished run can have.
 *
 * @public
 */
export type TerminalRunStatus = Exclude<RunStatus, 'running'>;

/**
 * Every status, `running` first.
 *
 * @public
 */
export const RUN_STATUSES: readonly RunStatus[] = Object.freeze([
  RunStatus.RUNNING,
  RunStatus.COMPLETED,
  RunStatus.FAILED,
  RunStatus.CANCELLED,
  RunStatus.INTERRUPTED,
]);

/**
 * Tells whether a value is one of the run status strings.
 *
 * @public
 */
export function isRunStatus(value: unknown): value is RunStatus {
  return typeof value === 'string' && (RUN_STATUSES as readonly string[]).includes(value);
}

/**
 * Tells whether a status is terminal (anything but `running`).
 *
 * @public
 */
export function isTerminalRunStatus(value: unknown): value is TerminalRunStatus {
  return isRunStatus(value) && value !== RunStatus.RUNNING;
}
