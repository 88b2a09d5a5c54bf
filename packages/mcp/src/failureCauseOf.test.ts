// The failure cause of an answered error and of a JSON-RPC error, for every text: an SDK's refusal
// of the arguments (SDK 1.x and 2.x forms) is the caller's invalid arguments, anything else the
// server's. The real servers that send these forms are in McpTool.invalid-arguments.test.ts.
import { McpTransportException, ToolFailureCause } from '@runledger/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { answeredFailureCause, isArgumentRefusal, isToolNotFound, transportFailureCause } from './failureCauseOf.js';

const REFUSAL_STARTS = ['Input validation error: ', 'Invalid arguments for tool '];
const SDK1 = 'MCP error -32602: ';

function rpcError(code: number, message: string): McpTransportException {
  return McpTransportException.forJsonRpcError('fx', code, message, { cause: Object.assign(new Error(message), { code }) });
}

describe('failure causes of refused arguments', () => {
  it('an SDK refusal of the arguments, 2.x or 1.x form, is invalid_arguments whatever follows', () => {
    fc.assert(
      fc.property(fc.constantFrom(...REFUSAL_STARTS), fc.boolean(), fc.string(), (start, sdk1, rest) => {
        const text = `${sdk1 ? SDK1 : ''}${start}${rest}`;
        expect(answeredFailureCause(text)).toBe(ToolFailureCause.INVALID_ARGUMENTS);
        expect(transportFailureCause(rpcError(-32602, text))).toBe(ToolFailureCause.INVALID_ARGUMENTS);
      }),
    );
  });

  it('any other answered error text is the server error', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        fc.pre(!isArgumentRefusal(text) && !(text.startsWith(SDK1) && isToolNotFound(text)));
        expect(answeredFailureCause(text)).toBe(ToolFailureCause.SERVER_ERROR);
      }),
    );
    for (const text of [
      'MCP error -32602: Output validation error: Invalid structured content for tool t: …',
      'MCP error -32603: Input validation error: not the SDK 1.x -32602 prefix',
      ' Input validation error: not at the start',
      // a tool's own error text that happens to read like the SDK's: no SDK 1.x -32602 prefix
      'Tool t not found',
      'MCP error -32603: Tool t not found',
      'MCP error -32602: Tool t not found, try again',
    ]) {
      expect(answeredFailureCause(text), text).toBe(ToolFailureCause.SERVER_ERROR);
    }
  });

  it('JSON-RPC -32602 is invalid_arguments, except the SDK output validation error, which is the server breaking its schema', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.string(), (sdk1, rest) => {
        const output = `${sdk1 ? SDK1 : ''}Output validation error:${rest}`;
        expect(transportFailureCause(rpcError(-32602, output))).toBe(ToolFailureCause.JSON_RPC_ERROR);
        fc.pre(
          !rest.startsWith('Output validation error:') && !rest.startsWith(`${SDK1}Output validation error:`) && !isToolNotFound(rest),
        );
        expect(transportFailureCause(rpcError(-32602, rest))).toBe(ToolFailureCause.INVALID_ARGUMENTS);
      }),
    );
    expect(transportFailureCause(rpcError(-32603, 'Input validation error: x'))).toBe(ToolFailureCause.JSON_RPC_ERROR);
  });
});

describe('failure causes of a tool the server does not have', () => {
  /** A tool name as a model or a stale configuration may give it: any text without a line break. */
  const toolName = fc.string().filter((name) => !name.includes('\n'));

  it("the SDKs' 'Tool X not found' / 'Tool X disabled' is tool_not_found: SDK 1.x isError text, JSON-RPC -32602 of 1.x and 2.x", () => {
    fc.assert(
      fc.property(toolName, fc.constantFrom('not found', 'disabled'), fc.boolean(), (name, state, sdk1) => {
        const message = `Tool ${name} ${state}`;
        expect(answeredFailureCause(`${SDK1}${message}`)).toBe(ToolFailureCause.TOOL_NOT_FOUND);
        expect(transportFailureCause(rpcError(-32602, `${sdk1 ? SDK1 : ''}${message}`))).toBe(ToolFailureCause.TOOL_NOT_FOUND);
        // another JSON-RPC code is no such answer of an MCP SDK
        expect(transportFailureCause(rpcError(-32601, message))).toBe(ToolFailureCause.JSON_RPC_ERROR);
      }),
    );
  });

  it('stays linear on a long hostile name', () => {
    const name = `${'Tool '.repeat(20_000)}x`;
    const started = performance.now();
    expect(isToolNotFound(`Tool ${name} not found`)).toBe(true);
    expect(isToolNotFound(`Tool ${name} not foun`)).toBe(false);
    expect(performance.now() - started).toBeLessThan(500);
  });
});
