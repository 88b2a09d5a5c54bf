import { describe, expect, it } from 'vitest';
import { RunTerminationKind, RunTerminationReason, runTerminationText, type RunTermination } from '../step/RunTerminationReason.js';
import { RunStoreError } from './RunStoreError.js';
import { checkFinishRun } from './storeInputChecks.js';
import {
  checkTermination,
  NO_TERMINATION,
  runTerminationOf,
  terminationColumns,
  terminationColumnsOfText,
  terminationOfColumns,
  terminationTextOfColumns,
} from './storedTermination.js';
import { storedRunOfRow } from './storedRunOfRow.js';

const T = Date.UTC(2026, 0, 1);
const TERMINATIONS: readonly RunTermination[] = [
  { kind: RunTerminationKind.OPERATOR_CANCEL },
  { kind: RunTerminationKind.STORE_CANCEL },
  { kind: RunTerminationKind.CANCEL_WHILE_RUNNING, reported: 'failed', reason: 'boom' },
  { kind: RunTerminationKind.CANCEL_WHILE_RUNNING, reported: 'completed', reason: null },
  { kind: RunTerminationKind.NO_SIGN_OF_LIFE, since: T + 5, cancelRequested: false },
  { kind: RunTerminationKind.NO_SIGN_OF_LIFE, since: T, cancelRequested: true },
  { kind: RunTerminationKind.OTHER, text: 'tool broke' },
];

describe('a termination as columns', () => {
  it('keeps the kind and its facts, and reads them back with the same sentence', () => {
    for (const termination of TERMINATIONS) {
      const columns = terminationColumns(termination);
      expect(columns.termination_kind).toBe(termination.kind);
      expect(columns.termination_reason).toBeNull();
      expect(terminationOfColumns(columns)).toEqual(termination);
      expect(terminationTextOfColumns(columns)).toBe(runTerminationText(termination));
    }
    expect(terminationColumns({ kind: 'no_sign_of_life', since: T, cancelRequested: true }).termination_facts).toBe(
      `{"since":${T},"cancelRequested":true}`,
    );
    expect(terminationOfColumns(NO_TERMINATION)).toBeNull();
    expect(terminationTextOfColumns(NO_TERMINATION)).toBeNull();
  });

  it('reads the prose older versions stored into the same data, keeping words the sentence would not repeat', () => {
    for (const termination of TERMINATIONS) {
      expect(terminationColumnsOfText(runTerminationText(termination))).toEqual(terminationColumns(termination));
    }
    const old = terminationColumnsOfText(RunTerminationReason.OLD_STORE_CANCEL);
    expect(old).toEqual({
      termination_kind: 'store_cancel',
      termination_facts: '{}',
      termination_reason: 'cancel requested through the store',
    });
    expect(terminationTextOfColumns(old)).toBe('cancel requested through the store');
    const seconds = terminationColumnsOfText('no sign of life since 2026-01-01T00:00:00Z');
    expect(terminationOfColumns(seconds)).toEqual({ kind: 'no_sign_of_life', since: T, cancelRequested: false });
    expect(terminationTextOfColumns(seconds)).toBe('no sign of life since 2026-01-01T00:00:00Z');
  });

  it('reads a row without a kind by its prose, and a damaged kind or facts as other', () => {
    expect(terminationOfColumns({ termination_reason: 'cancelled by the operator' })).toEqual({ kind: 'operator_cancel' });
    expect(terminationOfColumns({ termination_kind: 'exploded', termination_facts: '{}', termination_reason: null })).toEqual({
      kind: 'other',
      text: '{}',
    });
    expect(terminationOfColumns({ termination_kind: 'other', termination_facts: '{bad', termination_reason: null })).toEqual({
      kind: 'other',
      text: '{bad',
    });
    const row = { id: 'r', status: 'failed', configuration: 'c', actor: null, created_at: T, started_at: T, finished_at: T + 1 };
    const counts = { cancel_requested_at: null, heartbeat_at: null, step_count: 0, ok_count: 0, failed_count: 0, cancelled_count: 0 };
    const run = storedRunOfRow({
      ...row,
      ...counts,
      ...terminationColumns({ kind: 'cancel_while_running', reported: 'failed', reason: 'x' }),
      unstored_steps: 0,
      late_finish_status: null,
      late_finish_at: null,
    });
    expect(run.termination).toEqual({ kind: 'cancel_while_running', reported: 'failed', reason: 'x' });
    expect(run.terminationReason).toBe('cancel requested while the run was running (the run reported "failed": x)');
    expect(runTerminationOf(run)).toBe(run.termination);
    expect(runTerminationOf({ ...run, termination: undefined, terminationReason: 'cancelled by the operator' })).toEqual({
      kind: 'operator_cancel',
    });
  });
});

describe('a finish', () => {
  it('stores the termination given as data over the words, and says what the run reported when a cancel came first', () => {
    const input = checkFinishRun({ status: 'failed', terminationReason: 'ignored', termination: { kind: 'other', text: 'boom' } }, T);
    expect(terminationOfColumns(input.termination)).toEqual({ kind: 'other', text: 'boom' });
    expect(terminationOfColumns(input.cancelledTermination)).toEqual({ kind: 'cancel_while_running', reported: 'failed', reason: 'boom' });
    const cancelled = checkFinishRun({ status: 'cancelled', termination: { kind: 'store_cancel' } }, T);
    expect(cancelled.cancelledTermination).toEqual(cancelled.termination);
    expect(checkFinishRun({ status: 'completed' }, T).termination).toEqual(NO_TERMINATION);
  });

  it('refuses a termination that is not one', () => {
    for (const bad of [
      null,
      'x',
      { kind: 'nope' },
      { kind: 'other' },
      { kind: 'other', text: 'a\0' },
      { kind: 'no_sign_of_life', since: 'now' },
    ]) {
      expect(() => checkTermination(bad, 'FinishRunInput.termination')).toThrow(RunStoreError);
    }
    expect(checkTermination({ kind: 'cancel_while_running', reported: 'completed' }, 'f')).toEqual({
      kind: 'cancel_while_running',
      reported: 'completed',
      reason: null,
    });
  });
});
