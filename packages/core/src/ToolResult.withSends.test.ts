// How many times a call's request left: stated by the tool, kept by every transformation, refused
// when it is not a small non-negative integer.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ToolArtifact, ToolFailureCause, ToolOutcome, ToolResult } from './index.js';

const results = fc.oneof(
  fc.string().map((c) => ToolResult.text(c)),
  fc.string().map((c) => ToolResult.text(c, ToolArtifact.text('a', c))),
  fc.string().map((c) => ToolResult.error(c)),
  fc.string().map((c) => ToolResult.failure(c, ToolFailureCause.TRANSPORT_FAILURE)),
  fc.string().map((c) => ToolResult.cancelled(c)),
);

describe('ToolResult.sends', () => {
  it('is null on every result a factory makes: only the tool that sent the call knows it', () => {
    fc.assert(fc.property(results, (result) => result.sends === null));
  });

  it('withSends keeps everything else, and withBoundedChannels keeps the sends', () => {
    fc.assert(
      fc.property(results, fc.integer({ min: 0, max: 1000 }), (result, sends) => {
        const sent = result.withSends(sends);
        expect(sent.sends).toBe(sends);
        expect([sent.content, sent.outcome, sent.artifacts, sent.writeTarget, sent.failureCause]).toEqual([
          result.content,
          result.outcome,
          result.artifacts,
          result.writeTarget,
          result.failureCause,
        ]);
        expect(Object.isFrozen(sent)).toBe(true);
        expect(ToolResult.is(sent)).toBe(true);
        expect(sent.withBoundedChannels({ contentBytes: 8, artifactBytes: 64 }).sends).toBe(sends);
        expect(sent.withSends(sends)).toBe(sent);
      }),
    );
  });

  it('refuses a count that is not an integer from 0 to 1000, naming the method and the rule', () => {
    const result = ToolResult.cancelled('stopped');
    for (const bad of [-1, 1.5, 1001, Number.NaN, Number.POSITIVE_INFINITY, '1', null]) {
      expect(() => result.withSends(bad as number)).toThrow(
        `ToolResult.withSends sends must be an integer from 0 to 1000, got ${String(bad)}`,
      );
    }
  });

  it('a cancelled result may say it never left', () => {
    const never = ToolResult.cancelled('cancelled before sending').withSends(0);
    expect([never.outcome, never.sends, never.isError]).toEqual([ToolOutcome.CANCELLED, 0, true]);
  });
});
