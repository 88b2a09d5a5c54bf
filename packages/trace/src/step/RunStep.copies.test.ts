import { describe, expect, it } from 'vitest';
import { RunStep } from './RunStep.js';

// Two copies of @runledger/trace in one process (two node_modules folders) must recognise each
// other's steps, with `is()` and with `instanceof`: a step recorded by one copy is handed to a store
// or a timeline of the other. A copy is RunStep.ts imported again under another URL (`?copy=N`):
// a distinct module instance, with its own class and its own prototype (the brand lives there).

async function copyOf(n: number): Promise<typeof RunStep> {
  return ((await import(/* @vite-ignore */ `./RunStep.ts?copy=${n}`)) as { RunStep: typeof RunStep }).RunStep;
}

const fields = { kind: 'tool', round: 1, durationMs: 2, toolName: 'mcp_a_b', toolOutcome: 'failed' } as const;

describe('two copies of RunStep', () => {
  it('recognise each other’s steps with is() and instanceof, whichever copy made them', async () => {
    const copies: Array<[string, typeof RunStep]> = [
      ['this module', RunStep],
      ['?copy=1', await copyOf(1)],
      ['?copy=2', await copyOf(2)],
    ];
    expect(copies[1]?.[1]).not.toBe(RunStep);
    expect(copies[1]?.[1].prototype).not.toBe(RunStep.prototype);
    for (const [maker, Made] of copies) {
      const steps = [Made.of(fields), Made.fromPayload(RunStep.of(fields).toPayload())];
      for (const [checker, By] of copies) {
        for (const step of steps) {
          expect(By.is(step), `${checker} RunStep.is() on a step of ${maker}`).toBe(true);
          expect(step instanceof By, `${checker} instanceof RunStep on a step of ${maker}`).toBe(true);
        }
      }
    }
  });

  it('no copy takes a step’s payload, or another object, for a step', async () => {
    const Copy = await copyOf(3);
    for (const value of [RunStep.of(fields).toPayload(), { ...RunStep.of(fields) }, new Error('x'), null, 'step']) {
      expect(RunStep.is(value)).toBe(false);
      expect(Copy.is(value)).toBe(false);
      expect(value instanceof Copy).toBe(false);
    }
  });
});
