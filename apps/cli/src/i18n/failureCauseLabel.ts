import { isMessageKey } from './messagesEn.js';
import type { Translator } from './Translator.js';

/**
 * The words for a failure cause (`failureCause.<cause>`); a cause this version has no words for
 * shows as it is.
 *
 * @internal
 */
export function failureCauseLabel(t: Translator, cause: string): string {
  const key = `failureCause.${cause}`;
  return isMessageKey(key) ? t.t(key) : cause;
}

/** The facts of a failed call as a timeline entry's details or a listed call carry them. */
export interface FailureWhyFacts {
  readonly httpStatus?: unknown;
  readonly jsonRpcCode?: unknown;
  readonly errorClass?: unknown;
  readonly serverIsError?: unknown;
}

/**
 * What the transport knew about why a call failed, in words — `answered 503`, `JSON-RPC -32603`,
 * `ECONNRESET`, `answered isError` — or null when nothing is known. Metadata, shown at every
 * privacy level.
 *
 * @internal
 */
export function failureWhyText(t: Translator, facts: FailureWhyFacts | null | undefined): string | null {
  if (facts === null || facts === undefined) return null;
  const parts: string[] = [];
  if (typeof facts.httpStatus === 'number') parts.push(t.t('failure.why.httpStatus', { status: String(facts.httpStatus) }));
  if (typeof facts.jsonRpcCode === 'number') parts.push(t.t('failure.why.jsonRpcCode', { code: String(facts.jsonRpcCode) }));
  if (typeof facts.errorClass === 'string') parts.push(facts.errorClass);
  if (facts.serverIsError === true) parts.push(t.t('failure.why.serverIsError'));
  return parts.length === 0 ? null : parts.join(', ');
}
