import { messagesDe as de } from './messagesDe.js';
import { en, type MessageCatalog } from './messagesEn.js';

/**
 * The languages the app speaks.
 *
 * @internal
 */
export const Locale = {
  EN: 'en',
  DE: 'de',
} as const;

/** One of the language codes of {@link (Locale:variable)}. @internal */
export type Locale = (typeof Locale)[keyof typeof Locale];

/** Every language, English (the default) first. @internal */
export const LOCALES: readonly Locale[] = Object.freeze([Locale.EN, Locale.DE]);

/** Each language's catalog. @internal */
export const CATALOGS: Readonly<Record<Locale, MessageCatalog>> = Object.freeze({ en, de });

/** Tells whether a value is a supported language code. @internal */
export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALES as readonly string[]).includes(value);
}

/**
 * Picks the language of a request: a valid `?lang=` wins, then the best `Accept-Language` match
 * by quality, then English.
 *
 * @internal
 */
export function negotiateLocale(queryLang: string | null | undefined, acceptLanguage: string | undefined): Locale {
  if (queryLang !== null && queryLang !== undefined) {
    const lang = queryLang.trim().toLowerCase();
    if (isLocale(lang)) return lang;
  }
  if (acceptLanguage === undefined || acceptLanguage.trim() === '') return Locale.EN;
  const ranges = acceptLanguage
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      let quality = 1;
      for (const param of params) {
        const [name, value] = param.trim().split('=');
        if (name?.trim() === 'q' && value !== undefined) {
          const parsed = Number(value.trim());
          quality = Number.isFinite(parsed) ? parsed : 0;
        }
      }
      return { primary: tag.trim().toLowerCase().split('-')[0] ?? '', quality, index };
    })
    .filter((range) => range.quality > 0)
    .sort((a, b) => b.quality - a.quality || a.index - b.index);
  for (const range of ranges) {
    if (isLocale(range.primary)) return range.primary;
  }
  return Locale.EN;
}
