import type { Locale } from '../i18n/Locale.js';
import type { Translator } from '../i18n/Translator.js';

/**
 * What every view renders with: the language, the request's address and a link builder that
 * keeps an explicitly chosen language.
 *
 * @internal
 */
export class ViewContext {
  readonly t: Translator;
  /** The `?lang=` the request carried, kept on every link; null when the language came from the browser. */
  readonly explicitLang: Locale | null;
  readonly path: string;
  readonly query: URLSearchParams;

  constructor(options: { t: Translator; explicitLang: Locale | null; path: string; query: URLSearchParams }) {
    this.t = options.t;
    this.explicitLang = options.explicitLang;
    this.path = options.path;
    this.query = options.query;
  }

  get locale(): Locale {
    return this.t.locale;
  }

  /** A link to `path` with query parameters (empty values left out) and the chosen language. */
  href(path: string, params: Readonly<Record<string, string | number | null | undefined>> = {}): string {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(params)) {
      if (value !== null && value !== undefined && value !== '') query.set(name, String(value));
    }
    if (this.explicitLang !== null && !query.has('lang')) query.set('lang', this.explicitLang);
    const text = query.toString();
    return text === '' ? path : `${path}?${text}`;
  }

  /** This page in another language. */
  hrefInLanguage(locale: Locale): string {
    const query = new URLSearchParams(this.query);
    query.set('lang', locale);
    return `${this.path}?${query.toString()}`;
  }
}
