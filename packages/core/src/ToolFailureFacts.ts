/**
 * What the transport knew about why a call failed, beside its {@link (ToolFailureCause:type)}:
 * metadata, never content, so it is kept at every privacy level.
 *
 * @remarks
 * Each fact is present only when the tool saw it: `jsonRpcCode` when the server answered with a
 * JSON-RPC error, `httpStatus` when it answered with an HTTP status that is not a success,
 * `errorClass` when the connection or the process failed (a system error code such as
 * `ECONNRESET`, else the class of the error, e.g. `ConnectionClosed`), `serverIsError` when the
 * server answered the call with `isError: true`.
 *
 * @public
 */
export interface ToolFailureFacts {
  /** The JSON-RPC error code the server answered with (an integer). */
  readonly jsonRpcCode?: number;
  /** The HTTP status the server answered with (an integer from 100 to 599). */
  readonly httpStatus?: number;
  /** The class of the transport's error: 1 to 64 letters, digits and `_ . : -`, starting with a letter. */
  readonly errorClass?: string;
  /** True when the server answered the call with `isError: true`. */
  readonly serverIsError?: boolean;
}

const ERROR_CLASS = /^[A-Za-z][A-Za-z0-9_.:-]{0,63}$/;
const KEYS: ReadonlySet<string> = new Set(['jsonRpcCode', 'httpStatus', 'errorClass', 'serverIsError']);

/**
 * Checks failure facts and returns a frozen copy holding only the facts that are set, or `null`
 * when none is; `where` names the field in the message (`ToolResult.failure facts`).
 *
 * @throws TypeError naming `where` and the fact when a fact breaks its rule or is not a fact.
 * @internal
 */
export function checkToolFailureFacts(value: unknown, where: string): ToolFailureFacts | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new TypeError(`${where} must be an object of failure facts, got ${Array.isArray(value) ? 'an array' : typeof value}`);
  }
  const facts = value as Record<string, unknown>;
  for (const key of Object.keys(facts)) {
    if (!KEYS.has(key))
      throw new TypeError(`${where} has no fact "${key}": the facts are jsonRpcCode, httpStatus, errorClass, serverIsError`);
  }
  const out: { jsonRpcCode?: number; httpStatus?: number; errorClass?: string; serverIsError?: boolean } = {};
  const { jsonRpcCode, httpStatus, errorClass, serverIsError } = facts;
  if (jsonRpcCode !== undefined) {
    if (typeof jsonRpcCode !== 'number' || !Number.isSafeInteger(jsonRpcCode)) {
      throw new TypeError(`${where}.jsonRpcCode must be an integer, got ${String(jsonRpcCode)}`);
    }
    out.jsonRpcCode = jsonRpcCode;
  }
  if (httpStatus !== undefined) {
    if (typeof httpStatus !== 'number' || !Number.isInteger(httpStatus) || httpStatus < 100 || httpStatus > 599) {
      throw new TypeError(`${where}.httpStatus must be an integer from 100 to 599, got ${String(httpStatus)}`);
    }
    out.httpStatus = httpStatus;
  }
  if (errorClass !== undefined) {
    if (typeof errorClass !== 'string' || !ERROR_CLASS.test(errorClass)) {
      throw new TypeError(
        `${where}.errorClass must be 1 to 64 letters, digits and "_ . : -" starting with a letter, got ${JSON.stringify(String(errorClass)).slice(0, 80)}`,
      );
    }
    out.errorClass = errorClass;
  }
  if (serverIsError !== undefined) {
    if (typeof serverIsError !== 'boolean') throw new TypeError(`${where}.serverIsError must be a boolean, got ${String(serverIsError)}`);
    out.serverIsError = serverIsError;
  }
  return Object.keys(out).length === 0 ? null : Object.freeze(out);
}

/**
 * Tells whether a value is a valid class of a transport error for {@link ToolFailureFacts.errorClass}.
 *
 * @public
 */
export function isToolErrorClass(value: unknown): value is string {
  return typeof value === 'string' && ERROR_CLASS.test(value);
}
