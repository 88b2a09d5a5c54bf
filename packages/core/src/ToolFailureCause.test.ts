import { describe, expect, it } from 'vitest';
import { McpTransportErrorCode } from './McpTransportException.js';
import { isToolFailureCause, TOOL_FAILURE_CAUSES, ToolFailureCause } from './ToolFailureCause.js';
import { ToolResult } from './ToolResult.js';

describe('ToolFailureCause', () => {
  it('holds the server error, invalid arguments, a tool not found, the causes of a call not sent and every transport code but the cancellation', () => {
    const transport = Object.values(McpTransportErrorCode).filter((code) => code !== McpTransportErrorCode.CANCELLED);
    const notSent = ['unknown_tool', 'malformed_arguments', 'not_approved'];
    expect([...TOOL_FAILURE_CAUSES].sort()).toEqual(
      ['invalid_arguments', 'server_error', 'tool_not_found', 'recorder_error', ...notSent, ...transport].sort(),
    );
    expect(isToolFailureCause('mcp_cancelled')).toBe(false);
    expect(isToolFailureCause('unknown')).toBe(false);
    expect(isToolFailureCause(ToolFailureCause.TIMEOUT)).toBe(true);
  });
});

describe('ToolResult.failure', () => {
  it('is a failed, fail-closed result that carries its cause through withBoundedChannels', () => {
    const result = ToolResult.failure('x'.repeat(100), ToolFailureCause.INVALID_ARGUMENTS);
    expect(result.outcome).toBe('failed');
    expect(result.isError).toBe(true);
    expect(result.failureCause).toBe('invalid_arguments');
    const bounded = result.withBoundedChannels({ contentBytes: 20 });
    expect(bounded).not.toBe(result);
    expect(bounded.failureCause).toBe('invalid_arguments');
  });

  it("gives the caller's own ToolResult.error() the cause recorder_error, kept through the bounds and sends", () => {
    const result = ToolResult.error('rate limited');
    expect(result.failureCause).toBe(ToolFailureCause.RECORDER_ERROR);
    expect(result.failureFacts).toBeNull();
    expect(result.withBoundedChannels({ contentBytes: 4 }).withSends(1).failureCause).toBe('recorder_error');
  });

  it('leaves every other result without a cause and refuses a cause that is not one', () => {
    expect(ToolResult.text('t').failureCause).toBeNull();
    expect(ToolResult.cancelled('c').failureCause).toBeNull();
    expect(() => ToolResult.failure('e', 'mcp_cancelled' as ToolFailureCause)).toThrow(TypeError);
  });
});
