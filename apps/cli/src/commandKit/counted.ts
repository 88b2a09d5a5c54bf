// How the command line says a count beside its own words: through the app's catalog and
// Intl.PluralRules (`1 run`, `2 runs`, `1,200 steps`), never a plural made by hand.
import type { PluralKey } from '../i18n/messagesEn.js';
import { Translator } from '../i18n/Translator.js';

/** The command line's language: English, with the app's catalog and number formats. @internal */
export const cliTranslator = new Translator('en');

/** A catalog key of a count with its noun (`count.runs`, `count.steps`, …). @internal */
export type CountKey = Extract<PluralKey, `count.${string}`>;

/** A count with its noun, in the form the count needs: `1 run`, `0 runs`, `1,200 runs`. @internal */
export function counted(key: CountKey, count: number): string {
  return cliTranslator.t(key, { count });
}
