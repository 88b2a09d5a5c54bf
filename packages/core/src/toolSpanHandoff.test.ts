// The execute_tool span hand-off between @runledger/otel and @runledger/mcp: its key is what two
// copies of the packages (and two releases) meet under, so it is pinned here as written.
import { afterEach, describe, expect, it } from 'vitest';
import { claimToolSpan, offerToolSpan, type OpenToolSpan, TOOL_SPAN_HANDOFF, withdrawToolSpan } from './toolSpanHandoff.js';

const holder = globalThis as { [TOOL_SPAN_HANDOFF]?: unknown };
const offer = (span: string | undefined, toolCallId?: string): OpenToolSpan<string> =>
  Object.assign(() => span, toolCallId === undefined ? {} : { toolCallId });

afterEach(() => {
  delete holder[TOOL_SPAN_HANDOFF];
});

describe('the execute_tool span hand-off', () => {
  it('keeps the registry key every released copy uses', () => {
    expect(TOOL_SPAN_HANDOFF).toBe(Symbol.for('@runledger/otel.execute_tool-handoff.v1'));
  });

  it('gives the oldest offer of the tool to a claim without an id, and leaves no empty queue', () => {
    offerToolSpan('fx', 'echo', offer('first'));
    offerToolSpan('fx', 'echo', offer('second'));
    offerToolSpan('fx', 'other', offer('other'));
    expect(claimToolSpan('fx', 'echo', undefined)).toBe('first');
    expect(claimToolSpan('fx', 'echo', undefined)).toBe('second');
    expect(claimToolSpan('fx', 'echo', undefined)).toBeUndefined();
    expect([...(holder[TOOL_SPAN_HANDOFF] as Map<string, unknown>).keys()]).toEqual(['fx\nother']);
  });

  it('gives a claim with an id only its own call’s offer, never another’s', () => {
    offerToolSpan('fx', 'echo', offer('a', 'call-a'));
    offerToolSpan('fx', 'echo', offer('b', 'call-b'));
    expect(claimToolSpan('fx', 'echo', 'call-b')).toBe('b');
    expect(claimToolSpan('fx', 'echo', 'call-c')).toBeUndefined();
    expect(claimToolSpan('fx', 'echo', 'call-a')).toBe('a');
  });

  it('skips offers whose call has ended (they open no span)', () => {
    offerToolSpan('fx', 'echo', offer(undefined));
    offerToolSpan('fx', 'echo', offer('live'));
    expect(claimToolSpan('fx', 'echo', undefined)).toBe('live');
  });

  it('withdraws an unclaimed offer', () => {
    const open = offer('x');
    offerToolSpan('fx', 'echo', open);
    withdrawToolSpan('fx', 'echo', open);
    withdrawToolSpan('fx', 'echo', open);
    expect(claimToolSpan('fx', 'echo', undefined)).toBeUndefined();
    expect((holder[TOOL_SPAN_HANDOFF] as Map<string, unknown>).size).toBe(0);
  });

  it('claims nothing from a map another copy left in a shape it does not know', () => {
    holder[TOOL_SPAN_HANDOFF] = { not: 'a map' };
    expect(claimToolSpan('fx', 'echo', undefined)).toBeUndefined();
    holder[TOOL_SPAN_HANDOFF] = new Map([['fx\necho', 'not a queue']]);
    expect(claimToolSpan('fx', 'echo', undefined)).toBeUndefined();
  });
});
