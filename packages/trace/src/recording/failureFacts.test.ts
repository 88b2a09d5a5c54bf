// Why a call failed, as step metadata: the failure facts of a ToolResult (JSON-RPC code, HTTP
// status, error class, the server's isError) and its cause are recorded at every privacy level,
// read back from the payload, and refused where they do not belong; the caller's own error is
// the cause recorder_error.
import { ToolFailureCause, ToolResult } from '@runledger/core';
import { describe, expect, it } from 'vitest';
import { PRIVACY_LEVELS, type PrivacyLevel } from '../privacy/PrivacyLevel.js';
import { RunStep } from '../step/RunStep.js';
import { RunTrace } from './RunTrace.js';

async function recorded(level: PrivacyLevel, result: ToolResult): Promise<Readonly<Record<string, unknown>>> {
  const payloads: Readonly<Record<string, unknown>>[] = [];
  const trace = RunTrace.create({ privacy: level, onRecord: (_step, record) => void payloads.push(record.payload) });
  await trace.recordToolResult({ toolName: 'mcp_flaky_lookup', toolServer: 'flaky', toolArguments: { q: 'x' }, result });
  return payloads[0]!;
}

describe('failure facts as step metadata', () => {
  it('keeps the cause and each fact at every privacy level, none included', async () => {
    const cases: [ToolFailureCause, Parameters<typeof ToolResult.failure>[2]][] = [
      [ToolFailureCause.HTTP_STATUS, { httpStatus: 503 }],
      [ToolFailureCause.JSON_RPC_ERROR, { jsonRpcCode: -32603 }],
      [ToolFailureCause.TRANSPORT_FAILURE, { errorClass: 'ECONNRESET' }],
      [ToolFailureCause.SERVER_ERROR, { serverIsError: true }],
    ];
    for (const level of PRIVACY_LEVELS) {
      for (const [cause, facts] of cases) {
        const payload = await recorded(level, ToolResult.failure('MCP server "flaky" answered with HTTP status 503', cause, facts));
        expect(payload, `${level} ${cause}`).toMatchObject({ toolOutcome: 'failed', toolFailureCause: cause, toolFailureFacts: facts });
        const back = RunStep.fromPayload(JSON.parse(JSON.stringify(payload)));
        expect(back.toolFailureFacts).toEqual(facts);
        expect(back.toolFailureCause).toBe(cause);
      }
    }
  });

  it("records the caller's own ToolResult.error and the boolean form as recorder_error, never unknown", async () => {
    expect(await recorded('metadata', ToolResult.error('rate limited'))).toMatchObject({ toolFailureCause: 'recorder_error' });
    const payloads: Readonly<Record<string, unknown>>[] = [];
    const trace = RunTrace.create({ onRecord: (_step, record) => void payloads.push(record.payload) });
    await trace.recordToolExecution({ toolName: 'lookup', toolResult: 'rate limited', isError: true });
    await trace.recordToolExecution({ toolName: 'lookup', toolResult: 'fine', isError: false });
    expect(payloads[0]).toMatchObject({ toolOutcome: 'failed', toolFailureCause: 'recorder_error' });
    expect(payloads[1]!['toolFailureCause']).toBeUndefined();
  });

  it('refuses facts on a step that did not fail, and a fact that breaks its rule, naming it', () => {
    const base = { kind: 'tool', round: 0, durationMs: 1, toolName: 't' } as const;
    expect(() => RunStep.of({ ...base, toolOutcome: 'ok', toolFailureFacts: { httpStatus: 503 } })).toThrow(
      'RunStep.toolFailureFacts must be set only when RunStep.toolOutcome is "failed", got facts on "ok"',
    );
    expect(() => RunStep.of({ ...base, toolOutcome: 'failed', toolFailureFacts: { httpStatus: 42 } })).toThrow(
      'RunStep.toolFailureFacts.httpStatus must be an integer from 100 to 599, got 42',
    );
    expect(() => RunStep.of({ ...base, toolOutcome: 'failed', toolFailureFacts: { errorClass: 'a b' } })).toThrow(
      /^RunStep\.toolFailureFacts\.errorClass must be 1 to 64 letters/,
    );
    expect(RunStep.of({ ...base, toolOutcome: 'failed', toolFailureFacts: {} }).toolFailureFacts).toBeUndefined();
  });

  it('reads stored facts that break their rules (a newer or a damaged writer) as not recorded, the step whole', () => {
    const step = RunStep.fromPayload({
      kind: 'tool',
      round: 0,
      durationMs: 1,
      toolOutcome: 'failed',
      toolFailureFacts: { httpStatus: 'x' },
    });
    expect(step.toolOutcome).toBe('failed');
    expect(step.toolFailureFacts).toBeUndefined();
  });
});
