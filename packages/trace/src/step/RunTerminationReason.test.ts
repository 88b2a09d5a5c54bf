import { describe, expect, it } from 'vitest';
import { checkFinishRun } from '../store/storeInputChecks.js';
import { InMemoryRunStore } from '../store/InMemoryRunStore.js';
import { terminationTextOfColumns } from '../store/storedTermination.js';
import { RUN_STATUSES, type TerminalRunStatus } from './RunStatus.js';
import {
  cancelWhileRunningReason,
  readRunTerminationReason,
  recoveryReason,
  RunTerminationKind,
  RunTerminationReason,
} from './RunTerminationReason.js';

const T = Date.UTC(2026, 0, 1);

describe('run termination reasons: spelled once, read back by readRunTerminationReason', () => {
  it('reads the cancels startRun writes, the text of older versions too', () => {
    expect(readRunTerminationReason(RunTerminationReason.OPERATOR_CANCEL)).toEqual({ kind: 'operator_cancel' });
    expect(readRunTerminationReason(RunTerminationReason.STORE_CANCEL)).toEqual({ kind: 'store_cancel' });
    expect(readRunTerminationReason('cancel requested through the store')).toEqual({ kind: 'store_cancel' });
  });

  it('reads back what the composers write, for every reported status, with and without a reason', () => {
    const reported = RUN_STATUSES.filter((status): status is TerminalRunStatus => status !== 'running');
    for (const status of reported) {
      for (const reason of [null, 'tool broke: (x)', RunTerminationReason.STORE_CANCEL, 'line\nbreak']) {
        expect(readRunTerminationReason(cancelWhileRunningReason(status, reason))).toEqual({
          kind: RunTerminationKind.CANCEL_WHILE_RUNNING,
          reported: status,
          reason,
        });
      }
    }
    for (const cancelRequested of [false, true]) {
      expect(readRunTerminationReason(recoveryReason(T + 123, cancelRequested))).toEqual({
        kind: RunTerminationKind.NO_SIGN_OF_LIFE,
        since: T + 123,
        cancelRequested,
      });
    }
  });

  it('keeps the texts stored rows already hold', () => {
    expect(cancelWhileRunningReason('completed', null)).toBe('cancel requested while the run was running (the run reported "completed")');
    expect(cancelWhileRunningReason('failed', 'boom')).toBe('cancel requested while the run was running (the run reported "failed": boom)');
    expect(recoveryReason(T, false)).toBe('no sign of life since 2026-01-01T00:00:00.000Z');
    expect(recoveryReason(T, true)).toBe('cancel requested; no sign of life since 2026-01-01T00:00:00.000Z');
  });

  it('reads any other text as the agent’s own, also one that only looks like runledger’s', () => {
    for (const text of [
      'tool broke',
      '',
      'cancelled by the operator!',
      'cancel requested while the run was running (the run reported "running")',
      'cancel requested while the run was running (the run reported "completed"',
      'no sign of life since yesterday',
      'cancel requested; tool broke',
    ]) {
      expect(readRunTerminationReason(text)).toEqual({ kind: RunTerminationKind.OTHER, text });
    }
  });

  it('is what the store input checks and the in-memory store write', async () => {
    const cancelled = checkFinishRun({ status: 'failed', terminationReason: 'boom' }, T).cancelledTermination;
    expect(terminationTextOfColumns(cancelled)).toBe(cancelWhileRunningReason('failed', 'boom'));
    const store = InMemoryRunStore.create({ clock: () => T });
    const run = await store.createRun({ configuration: 'c', createdAt: T });
    await store.requestCancel(run.id, T + 1);
    await store.recoverInterrupted(T + 10);
    const recovered = (await store.getRun(run.id))!;
    expect(recovered.termination).toEqual({ kind: RunTerminationKind.NO_SIGN_OF_LIFE, since: T, cancelRequested: true });
    expect(readRunTerminationReason(recovered.terminationReason!)).toEqual(recovered.termination);
  });
});
