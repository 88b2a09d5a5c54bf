import { isMessageKey } from '../i18n/messagesEn.js';
import type { Translator } from '../i18n/Translator.js';

/**
 * A step kind in words (`runs.detail.kind.<kind>`); a kind this version does not know is shown as stored.
 *
 * @internal
 */
export function kindText(t: Translator, kind: string): string {
  const key = `runs.detail.kind.${kind}`;
  return isMessageKey(key) ? t.t(key) : kind;
}
