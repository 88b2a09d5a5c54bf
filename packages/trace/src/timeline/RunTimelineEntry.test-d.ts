import type { ToolOutcome } from '@runledger/core';
import { expectTypeOf, test } from 'vitest';
import { RunTimelineEntry, type RunTimelineOutcome } from './RunTimelineEntry.js';

test('the OUTCOME_* constants are typed as the ToolOutcome values', () => {
  expectTypeOf(RunTimelineEntry.OUTCOME_OK).toEqualTypeOf<'ok'>();
  expectTypeOf(RunTimelineEntry.OUTCOME_FAILED).toEqualTypeOf<'failed'>();
  expectTypeOf(RunTimelineEntry.OUTCOME_CANCELLED).toEqualTypeOf<'cancelled'>();
  expectTypeOf(RunTimelineEntry.OUTCOME_NONE).toEqualTypeOf<''>();
  expectTypeOf<RunTimelineOutcome>().toEqualTypeOf<ToolOutcome | ''>();
  expectTypeOf<
    typeof RunTimelineEntry.OUTCOME_OK | typeof RunTimelineEntry.OUTCOME_FAILED | typeof RunTimelineEntry.OUTCOME_CANCELLED
  >().toEqualTypeOf<ToolOutcome>();
});
