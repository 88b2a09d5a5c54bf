/**
 * The forms of a message that names a count: `one` for a count the language says in the singular
 * (1 in English and German), `other` for every other count (0, 2, 1.5, …). Which one a count takes
 * is `Intl.PluralRules`' choice, never a rule of our own.
 *
 * @internal
 */
export interface PluralForms {
  readonly one: string;
  readonly other: string;
}

/** What a catalog holds for a key: one text, or the forms of a message that names a count. @internal */
export type CatalogEntry = string | PluralForms;

/** Every text of a catalog entry: the text itself, or each of its plural forms. @internal */
export function entryTexts(entry: CatalogEntry): readonly string[] {
  return typeof entry === 'string' ? [entry] : [entry.one, entry.other];
}
