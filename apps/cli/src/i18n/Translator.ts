import { CATALOGS, type Locale } from './Locale.js';
import type { MessageKey } from './messagesEn.js';

/** Parameters of a message: `{name}` in the text is replaced by the value. @internal */
export type MessageParams = Readonly<Record<string, string | number>>;

/**
 * Messages, dates and numbers of one language; dates and numbers go through `Intl`.
 *
 * @internal
 */
export class Translator {
  readonly locale: Locale;
  private readonly dateTime: Intl.DateTimeFormat;
  private readonly timeMs: Intl.DateTimeFormat;
  private readonly integer: Intl.NumberFormat;
  private readonly fraction: Intl.NumberFormat;
  private readonly percent: Intl.NumberFormat;
  private readonly seconds: Intl.NumberFormat;
  private readonly minutes: Intl.NumberFormat;
  private readonly hours: Intl.NumberFormat;

  constructor(locale: Locale, options: { readonly timeZone?: string } = {}) {
    this.locale = locale;
    const timeZone = options.timeZone;
    this.dateTime = new Intl.DateTimeFormat(locale, {
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      timeZone,
    });
    this.timeMs = new Intl.DateTimeFormat(locale, {
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      fractionalSecondDigits: 3,
      hourCycle: 'h23',
      timeZone,
    });
    this.integer = new Intl.NumberFormat(locale, { maximumFractionDigits: 0 });
    this.fraction = new Intl.NumberFormat(locale, { maximumFractionDigits: 4 });
    this.percent = new Intl.NumberFormat(locale, { style: 'percent', minimumFractionDigits: 1, maximumFractionDigits: 1 });
    this.seconds = new Intl.NumberFormat(locale, { style: 'unit', unit: 'second', unitDisplay: 'short', maximumFractionDigits: 1 });
    this.minutes = new Intl.NumberFormat(locale, { style: 'unit', unit: 'minute', unitDisplay: 'short', maximumFractionDigits: 1 });
    this.hours = new Intl.NumberFormat(locale, { style: 'unit', unit: 'hour', unitDisplay: 'short', maximumFractionDigits: 1 });
  }

  /** The message of a key in this language, with its parameters filled in. */
  t(key: MessageKey, params?: MessageParams): string {
    const text = CATALOGS[this.locale][key];
    if (params === undefined) return text;
    return text.replace(/\{(\w+)\}/g, (whole, name: string) => {
      const value = params[name];
      return value === undefined ? whole : typeof value === 'number' ? this.number(value) : value;
    });
  }

  /** A date and time to the second. */
  date(ms: number): string {
    return this.dateTime.format(ms);
  }

  /** A time of day to the millisecond. */
  time(ms: number): string {
    return this.timeMs.format(ms);
  }

  /** The full ISO timestamp, for a `<time datetime>` attribute. */
  iso(ms: number): string {
    return new Date(ms).toISOString();
  }

  /** An integer with the language's grouping. */
  number(value: number): string {
    return this.integer.format(value);
  }

  /** A number with up to four decimals (costs, non-integer metadata). */
  decimal(value: number): string {
    return Number.isInteger(value) ? this.integer.format(value) : this.fraction.format(value);
  }

  /** A ratio 0..1 as a percentage with one decimal. */
  ratio(value: number): string {
    return this.percent.format(value);
  }

  /** A duration in a readable unit: ms below a second, then seconds, minutes, hours. */
  duration(ms: number): string {
    if (ms < 1000) return `${this.integer.format(Math.max(0, Math.round(ms)))} ms`;
    if (ms < 60_000) return this.seconds.format(ms / 1000);
    if (ms < 3_600_000) return this.minutes.format(ms / 60_000);
    return this.hours.format(ms / 3_600_000);
  }
}
