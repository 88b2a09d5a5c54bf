import { describe, expectTypeOf, it } from 'vitest';
import { isToolOutcome, TOOL_OUTCOMES, ToolOutcome } from './index.js';

describe('ToolOutcome types', () => {
  it('is exactly the union of the three strings', () => {
    expectTypeOf<ToolOutcome>().toEqualTypeOf<'ok' | 'failed' | 'cancelled'>();
    expectTypeOf(ToolOutcome.OK).toEqualTypeOf<'ok'>();
    expectTypeOf(ToolOutcome.FAILED).toEqualTypeOf<'failed'>();
    expectTypeOf(ToolOutcome.CANCELLED).toEqualTypeOf<'cancelled'>();
    expectTypeOf(TOOL_OUTCOMES).toEqualTypeOf<readonly ToolOutcome[]>();
  });

  it('a wrong outcome string does not compile', () => {
    // @ts-expect-error 'error' is not an outcome
    const wrong: ToolOutcome = 'error';
    // @ts-expect-error 'canceled' (one l) is not an outcome
    const misspelt: ToolOutcome = 'canceled';
    // @ts-expect-error outcomes are lower case
    const upper: ToolOutcome = 'OK';
    // @ts-expect-error a boolean is not an outcome
    const flag: ToolOutcome = true;
    // @ts-expect-error the const object has no such key
    void ToolOutcome.ERROR;
    const right: ToolOutcome = 'cancelled';
    expectTypeOf([wrong, misspelt, upper, flag, right]).toEqualTypeOf<ToolOutcome[]>();
  });

  it('isToolOutcome narrows unknown to ToolOutcome', () => {
    const value: unknown = 'ok';
    if (isToolOutcome(value)) {
      expectTypeOf(value).toEqualTypeOf<ToolOutcome>();
    }
    expectTypeOf(isToolOutcome).guards.toEqualTypeOf<ToolOutcome>();
  });

  it('a switch over ToolOutcome is exhaustive with three cases', () => {
    const label = (outcome: ToolOutcome): string => {
      switch (outcome) {
        case 'ok':
          return 'ok';
        case 'failed':
          return 'failed';
        case 'cancelled':
          return 'cancelled';
        default: {
          const never: never = outcome;
          return never;
        }
      }
    };
    expectTypeOf(label).parameter(0).toEqualTypeOf<ToolOutcome>();
  });
});
