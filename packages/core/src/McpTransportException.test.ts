import { describe, expect, it } from 'vitest';
import { McpTransportErrorCode, McpTransportException } from './index.js';

type Factory = {
  name: string;
  make: (server: string, remote: string) => McpTransportException;
  code: McpTransportErrorCode;
  /** What the message must say happened, beside the server. */
  says: RegExp;
  /** Whether the factory repeats remote text (then it must be clipped and flattened). */
  repeatsRemote: boolean;
};

const FACTORIES: readonly Factory[] = [
  {
    name: 'forRefusedHost',
    make: (s, r) => McpTransportException.forRefusedHost(s, r),
    code: 'mcp_refused_host',
    says: /refused to connect to host/,
    repeatsRemote: true,
  },
  {
    name: 'forTransportFailure',
    make: (s, r) => McpTransportException.forTransportFailure(s, r),
    code: 'mcp_transport_failure',
    says: /transport failed/,
    repeatsRemote: true,
  },
  {
    name: 'forHttpStatus',
    make: (s, r) => McpTransportException.forHttpStatus(s, 502, r),
    code: 'mcp_http_status',
    says: /HTTP status 502/,
    repeatsRemote: true,
  },
  {
    name: 'forMalformedResponse',
    make: (s, r) => McpTransportException.forMalformedResponse(s, r),
    code: 'mcp_malformed_response',
    says: /malformed response/,
    repeatsRemote: true,
  },
  {
    name: 'forJsonRpcError',
    make: (s, r) => McpTransportException.forJsonRpcError(s, -32601, r),
    code: 'mcp_json_rpc_error',
    says: /JSON-RPC error -32601/,
    repeatsRemote: true,
  },
  {
    name: 'forUnsupportedContentType',
    make: (s, r) => McpTransportException.forUnsupportedContentType(s, r),
    code: 'mcp_unsupported_content_type',
    says: /unsupported content type/,
    repeatsRemote: true,
  },
  {
    name: 'forMissingCredential',
    make: (s, r) => McpTransportException.forMissingCredential(s, r),
    code: 'mcp_missing_credential',
    says: /credential .* not set/,
    repeatsRemote: true,
  },
  {
    name: 'forExhaustedDeadline',
    make: (s) => McpTransportException.forExhaustedDeadline(s, 30_000),
    code: 'mcp_deadline_exhausted',
    says: /deadline of 30000 ms/,
    repeatsRemote: false,
  },
  {
    name: 'forTimeout',
    make: (s) => McpTransportException.forTimeout(s, 1500),
    code: 'mcp_timeout',
    says: /did not answer within 1500 ms/,
    repeatsRemote: false,
  },
  {
    name: 'forCancelledCall',
    make: (s, r) => McpTransportException.forCancelledCall(s, r),
    code: 'mcp_cancelled',
    says: /was cancelled by the caller/,
    repeatsRemote: true,
  },
];

describe('McpTransportException factories', () => {
  it('there is one factory per code, and every code is distinct and stable', () => {
    expect(McpTransportErrorCode).toEqual({
      REFUSED_HOST: 'mcp_refused_host',
      TRANSPORT_FAILURE: 'mcp_transport_failure',
      HTTP_STATUS: 'mcp_http_status',
      MALFORMED_RESPONSE: 'mcp_malformed_response',
      JSON_RPC_ERROR: 'mcp_json_rpc_error',
      UNSUPPORTED_CONTENT_TYPE: 'mcp_unsupported_content_type',
      MISSING_CREDENTIAL: 'mcp_missing_credential',
      DEADLINE_EXHAUSTED: 'mcp_deadline_exhausted',
      TIMEOUT: 'mcp_timeout',
      CANCELLED: 'mcp_cancelled',
    });
    expect(new Set(FACTORIES.map((f) => f.code))).toEqual(new Set(Object.values(McpTransportErrorCode)));
    const statics = Object.getOwnPropertyNames(McpTransportException).filter((name) => name.startsWith('for'));
    expect(statics.sort()).toEqual(FACTORIES.map((f) => f.name).sort());
  });

  it.each(FACTORIES)('$name has code "$code", names the server and what happened', ({ make, code, says }) => {
    const error = make('github', 'detail');
    expect(error.code).toBe(code);
    expect(error.server).toBe('github');
    expect(error.message).toMatch(/^MCP server "github"/);
    expect(error.message).toMatch(says);
    expect(error.name).toBe('McpTransportException');
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(McpTransportException);
    expect(McpTransportException.is(error)).toBe(true);
    expect(Object.getPrototypeOf(error)).toBe(McpTransportException.prototype);
    expect(error.stack).toContain('McpTransportException');
    expect(String(error)).toBe(`McpTransportException: ${error.message}`);
  });

  it.each(FACTORIES.filter((f) => f.repeatsRemote))(
    '$name clips remote text to 200 characters and collapses control characters',
    ({ make }) => {
      const flat = make('srv', 'line one\r\n\tline\u0000\u0007two\u001b[31m\u0085\u2028three\u007f');
      expect(flat.message).toContain('line one line two [31m three');
      expect(flat.message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);

      const long = make('srv', 'x'.repeat(5000));
      expect(long.message).toContain(`${'x'.repeat(200)}…`);
      expect(long.message).not.toContain('x'.repeat(201));

      const exact = make('srv', 'y'.repeat(200));
      expect(exact.message).toContain('y'.repeat(200));
      expect(exact.message).not.toContain('…');

      // Bidirectional overrides cannot make the message read differently; lone surrogates are replaced.
      const bidi = make('srv', 'safe\u202Eexe.txt\u2066x\u2069 \uD800end');
      expect(bidi.message).toContain('safe exe.txt x  \uFFFDend');
      expect(bidi.message).not.toMatch(/[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/);
      expect(Buffer.from(bidi.message, 'utf8').toString('utf8')).toBe(bidi.message);
      // Emoji joined by ZWJ stay intact.
      expect(make('srv', 'team 👩‍👩‍👧').message).toContain('team 👩‍👩‍👧');

      // Clipping counts characters, never cutting a surrogate pair.
      const emoji = make('srv', '😀'.repeat(300));
      expect(emoji.message).toContain(`${'😀'.repeat(200)}…`);
      expect(emoji.message).not.toContain('😀'.repeat(201));
      expect(Buffer.from(emoji.message, 'utf8').toString('utf8')).toBe(emoji.message);
    },
  );

  it('clips and flattens the server name in the message too, but keeps it whole in `server`', () => {
    const server = `evil\n${'s'.repeat(300)}`;
    const error = McpTransportException.forTimeout(server, 10);
    expect(error.server).toBe(server);
    expect(error.message).toContain(`MCP server "evil ${'s'.repeat(195)}…"`);
    expect(error.message).not.toContain('\n');
  });

  it('forHttpStatus leaves out an empty body', () => {
    expect(McpTransportException.forHttpStatus('s', 503).message).toBe('MCP server "s" answered with HTTP status 503');
    expect(McpTransportException.forHttpStatus('s', 503, '  \n ').message).toBe('MCP server "s" answered with HTTP status 503');
    expect(McpTransportException.forHttpStatus('s', 503, 'Service Unavailable').message).toBe(
      'MCP server "s" answered with HTTP status 503: Service Unavailable',
    );
  });

  it('forCancelledCall names the tool when given, and says the server may have acted', () => {
    expect(McpTransportException.forCancelledCall('s').message).toBe(
      'MCP server "s": the call was cancelled by the caller; whether the server already acted on it is not known',
    );
    expect(McpTransportException.forCancelledCall('s', 'create_issue').message).toContain('the call of "create_issue" was cancelled');
  });

  it.each(FACTORIES)('$name keeps the cause when given, and has none otherwise', ({ name, make }) => {
    const cause = new Error('socket hang up');
    const factory = (McpTransportException as unknown as Record<string, (...args: unknown[]) => McpTransportException>)[name] as (
      ...args: unknown[]
    ) => McpTransportException;
    const withoutCause = make('s', 'r');
    expect('cause' in withoutCause).toBe(false);
    // The options object is the last parameter of every factory.
    const args: unknown[] =
      name === 'forHttpStatus'
        ? ['s', 500, 'body']
        : name === 'forJsonRpcError'
          ? ['s', -1, 'msg']
          : ['s', name === 'forTimeout' || name === 'forExhaustedDeadline' ? 5 : 'r'];
    const withCause = factory.call(McpTransportException, ...args, { cause });
    expect(withCause.cause).toBe(cause);
    expect(withCause.code).toBe(withoutCause.code);
    const undefinedCause = factory.call(McpTransportException, ...args, { cause: undefined });
    expect('cause' in undefinedCause).toBe(true);
    expect(undefinedCause.cause).toBeUndefined();
  });
});

describe('McpTransportException.isCancellation', () => {
  it.each(FACTORIES)('$name: isCancellation() is true only for forCancelledCall', ({ name, make }) => {
    expect(make('s', 'r').isCancellation()).toBe(name === 'forCancelledCall');
  });

  it.each(FACTORIES.filter((f) => f.name === 'forTimeout' || f.name === 'forExhaustedDeadline'))(
    '$name is never a cancellation and never says "cancel"',
    ({ make }) => {
      for (const server of ['s', 'github', 'a server']) {
        const error = make(server, '');
        expect(error.isCancellation()).toBe(false);
        expect(error.code).not.toBe(McpTransportErrorCode.CANCELLED);
        expect(error.message).not.toMatch(/cancel/i);
        expect(String(error)).not.toMatch(/cancel/i);
      }
    },
  );

  it('reads a private flag, not the code: the code cannot be rewritten into a cancellation', () => {
    const timeout = McpTransportException.forTimeout('s', 10);
    expect(() => {
      (timeout as { code: string }).code = McpTransportErrorCode.CANCELLED;
    }).toThrow(TypeError);
    expect(() => Object.defineProperty(timeout, 'code', { value: McpTransportErrorCode.CANCELLED })).toThrow(TypeError);
    expect(() => {
      (timeout as { server: string }).server = 'other';
    }).toThrow(TypeError);
    expect(timeout.code).toBe('mcp_timeout');
    expect(timeout.server).toBe('s');
    expect(timeout.isCancellation()).toBe(false);
    // Even an object that claims the cancelled code, with the right prototype, has no flag to read.
    const forged = Object.setPrototypeOf({ code: 'mcp_cancelled', server: 's' }, McpTransportException.prototype) as McpTransportException;
    expect(() => forged.isCancellation()).toThrow(TypeError);
    expect(McpTransportException.is(forged)).toBe(false);
    expect(forged instanceof McpTransportException).toBe(false);
  });

  it('the method borrowed onto another exception reads that exception’s own flag', () => {
    const { isCancellation } = McpTransportException.prototype;
    expect(isCancellation.call(McpTransportException.forTimeout('s', 1))).toBe(false);
    expect(isCancellation.call(McpTransportException.forCancelledCall('s'))).toBe(true);
  });
});

describe('McpTransportException cannot be constructed directly or subclassed', () => {
  const Ctor = McpTransportException as unknown as new (...args: unknown[]) => McpTransportException;

  it('direct construction through a cast throws', () => {
    expect(() => new Ctor('mcp_cancelled', 's', 'message', true)).toThrow(TypeError);
    expect(() => new Ctor(Symbol('McpTransportException.construct'), 'mcp_cancelled', 's', 'm', true, undefined)).toThrow(
      /made through its factories and cannot be subclassed/,
    );
    expect(() => Reflect.construct(Ctor, [Symbol.for('McpTransportException.construct'), 'mcp_cancelled', 's', 'm', true])).toThrow(
      TypeError,
    );
  });

  it('a subclass cannot be instantiated', () => {
    class AlwaysCancelled extends Ctor {
      override isCancellation(): boolean {
        return true;
      }
    }
    expect(() => new AlwaysCancelled('mcp_timeout', 's', 'm', false)).toThrow(TypeError);
    const Sub = class extends Ctor {};
    expect(() => new Sub()).toThrow(TypeError);
    // Reflect.construct with the base as the constructor but a subclass as new.target is refused too.
    expect(() => Reflect.construct(Ctor, [], Sub)).toThrow(TypeError);
  });

  it('a factory called on a subclass still makes a plain McpTransportException', () => {
    class Sub extends Ctor {
      override isCancellation(): boolean {
        return true;
      }
    }
    const error = (Sub as unknown as typeof McpTransportException).forTimeout('s', 1);
    expect(Object.getPrototypeOf(error)).toBe(McpTransportException.prototype);
    expect(error).not.toBeInstanceOf(Sub);
    expect(error.isCancellation()).toBe(false);
  });
});

describe('McpTransportException.is', () => {
  it('recognises only exceptions made by the factories', () => {
    const brand = Symbol.for('@runledger/core/McpTransportException');
    for (const value of [
      null,
      undefined,
      0,
      'mcp_timeout',
      new Error('x'),
      { code: 'mcp_timeout', server: 's' },
      Object.create(McpTransportException.prototype),
      { [brand]: 'yes' },
    ]) {
      expect(McpTransportException.is(value)).toBe(false);
      expect(value instanceof McpTransportException).toBe(false);
    }
  });

  it('the brand is not enumerable and not visible in JSON', () => {
    const error = McpTransportException.forTimeout('s', 1);
    expect(Object.keys(error)).not.toContain(Symbol.for('@runledger/core/McpTransportException').toString());
    expect(Object.getOwnPropertySymbols(error).every((symbol) => !Object.getOwnPropertyDescriptor(error, symbol)?.enumerable)).toBe(true);
    expect(JSON.parse(JSON.stringify(error))).toEqual({ code: 'mcp_timeout', server: 's', name: 'McpTransportException' });
  });
});
