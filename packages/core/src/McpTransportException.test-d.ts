import { describe, expectTypeOf, it } from 'vitest';
import { type McpTransportErrorCode, McpTransportException } from './index.js';

describe('McpTransportException types', () => {
  it('code is the union of the stable codes; server a string; isCancellation a boolean', () => {
    const error = McpTransportException.forTimeout('s', 1);
    expectTypeOf(error.code).toEqualTypeOf<McpTransportErrorCode>();
    expectTypeOf<McpTransportErrorCode>().toEqualTypeOf<
      | 'mcp_refused_host'
      | 'mcp_transport_failure'
      | 'mcp_http_status'
      | 'mcp_malformed_response'
      | 'mcp_json_rpc_error'
      | 'mcp_unsupported_content_type'
      | 'mcp_missing_credential'
      | 'mcp_deadline_exhausted'
      | 'mcp_timeout'
      | 'mcp_cancelled'
    >();
    expectTypeOf(error.server).toEqualTypeOf<string>();
    expectTypeOf(error.isCancellation).returns.toEqualTypeOf<boolean>();
    expectTypeOf(error).toMatchTypeOf<Error>();
    // @ts-expect-error code is read-only
    error.code = 'mcp_cancelled';
    // @ts-expect-error a code outside the vocabulary does not compile
    const wrong: McpTransportErrorCode = 'mcp_canceled';
    void wrong;
  });

  it('cannot be constructed directly', () => {
    // @ts-expect-error the constructor is private
    const make = () => new McpTransportException('mcp_cancelled', 's', 'm', true);
    void make;
  });

  it('every factory takes an optional { cause } last', () => {
    expectTypeOf(McpTransportException.forCancelledCall).parameters.toEqualTypeOf<
      [server: string, tool?: string, options?: { readonly cause?: unknown }]
    >();
    expectTypeOf(McpTransportException.forHttpStatus).parameters.toEqualTypeOf<
      [server: string, status: number, body?: string, options?: { readonly cause?: unknown }]
    >();
    McpTransportException.forTimeout('s', 1, { cause: new Error('x') });
    // @ts-expect-error a timeout is given in milliseconds, as a number
    McpTransportException.forTimeout('s', '1s');
  });

  it('McpTransportException.is narrows unknown', () => {
    const value: unknown = new Error('x');
    if (McpTransportException.is(value)) {
      expectTypeOf(value).toEqualTypeOf<McpTransportException>();
      expectTypeOf(value.isCancellation()).toEqualTypeOf<boolean>();
    }
  });
});
