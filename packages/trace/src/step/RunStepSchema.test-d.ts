import { expectTypeOf, test } from 'vitest';
import type { RunStep, RunStepFields, RunStepPayload } from './RunStep.js';
import type { RunStepKey, RunStepSchema } from './RunStepSchema.js';
import type { z } from 'zod';

type FieldKeys = { [K in keyof RunStep]: RunStep[K] extends (...args: never[]) => unknown ? never : K }[keyof RunStep];

// The published field types are frozen by the API report (their members listed one by one), so they
// stay written out; these pins keep them to the schema: the same keys, and what the reader gives is a
// valid RunStep.of input.
test('the published step types have exactly the schema keys', () => {
  expectTypeOf<keyof RunStepFields>().toEqualTypeOf<RunStepKey>();
  expectTypeOf<keyof RunStepPayload>().toEqualTypeOf<RunStepKey>();
  expectTypeOf<FieldKeys>().toEqualTypeOf<RunStepKey>();
});

test('what the schema reads is what RunStep.of takes, and its outcome is ToolOutcome', () => {
  expectTypeOf<z.output<typeof RunStepSchema>>().toExtend<RunStepFields>();
  expectTypeOf<NonNullable<z.output<typeof RunStepSchema>['toolOutcome']>>().toEqualTypeOf<NonNullable<RunStepPayload['toolOutcome']>>();
  expectTypeOf<z.output<typeof RunStepSchema>['kind']>().toEqualTypeOf<RunStepPayload['kind']>();
});
