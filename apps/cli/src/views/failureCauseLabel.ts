import { isMessageKey } from '../i18n/messagesEn.js';
import type { Translator } from '../i18n/Translator.js';

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
