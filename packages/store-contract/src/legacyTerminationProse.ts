// The sentences stores kept as a run's termination reason before termination became data (SQLite
// schema 19, PostgreSQL schema 14), and the kind and facts each one's migration must read it into:
// the one fixture of both stores' migration tests.

/** The time the "no sign of life" sentences name (2026-01-01T00:00:00Z). */
export const LEGACY_PROSE_TIME = Date.UTC(2026, 0, 1);

/** Each stored sentence, and the termination (kind and facts) it reads as. */
export const LEGACY_TERMINATION_PROSE = [
  ['cancelled by the operator', { kind: 'operator_cancel' }],
  [
    'cancelled by an operator from outside the run (the app’s Cancel button, or another process through the store)',
    { kind: 'store_cancel' },
  ],
  ['cancel requested through the store', { kind: 'store_cancel' }],
  [
    'cancel requested while the run was running (the run reported "failed": boom)',
    { kind: 'cancel_while_running', reported: 'failed', reason: 'boom' },
  ],
  [
    'cancel requested while the run was running (the run reported "completed")',
    { kind: 'cancel_while_running', reported: 'completed', reason: null },
  ],
  ['no sign of life since 2026-01-01T00:00:00.000Z', { kind: 'no_sign_of_life', since: LEGACY_PROSE_TIME, cancelRequested: false }],
  [
    'cancel requested; no sign of life since 2026-01-01T00:00:00Z',
    { kind: 'no_sign_of_life', since: LEGACY_PROSE_TIME, cancelRequested: true },
  ],
  ['the model went away', { kind: 'other', text: 'the model went away' }],
] as const;
