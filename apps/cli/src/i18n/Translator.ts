import { CATALOGS, type Locale } from './Locale.js';
import type { MessageKey } from './messagesEn.js';
import type { CatalogEntry, PluralForms } from './PluralForms.js';

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
  private readonly hourStart: Intl.DateTimeFormat;
  private readonly utcDay: Intl.DateTimeFormat;
  private readonly integer: Intl.NumberFormat;
  private readonly fraction: Intl.NumberFormat;
  private readonly percent: Intl.NumberFormat;
  private readonly milliseconds: Intl.NumberFormat;
  private readonly seconds: Intl.NumberFormat;
  private readonly minutes: Intl.NumberFormat;
  private readonly hours: Intl.NumberFormat;
  private readonly plurals: Intl.PluralRules;

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
    this.hourStart = new Intl.DateTimeFormat(locale, {
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
      timeZone,
    });
    this.utcDay = new Intl.DateTimeFormat(locale, { year: 'numeric', month: '2-digit', day: '2-digit', timeZone: 'UTC' });
    this.integer = new Intl.NumberFormat(locale, { maximumFractionDigits: 0 });
    this.fraction = new Intl.NumberFormat(locale, { maximumFractionDigits: 4 });
    this.percent = new Intl.NumberFormat(locale, { style: 'percent', minimumFractionDigits: 1, maximumFractionDigits: 1 });
    const unit = (name: string, maximumFractionDigits = 0) =>
      new Intl.NumberFormat(locale, { style: 'unit', unit: name, unitDisplay: 'short', maximumFractionDigits });
    this.milliseconds = unit('millisecond');
    this.seconds = unit('second', 3);
    this.minutes = unit('minute');
    this.hours = unit('hour');
    this.plurals = new Intl.PluralRules(locale);
  }

  /**
   * The message of a key in this language, with its parameters filled in. A message that names a
   * count (a `PluralKey`) takes the plural form `Intl.PluralRules` picks for its `count`.
   */
  t(key: MessageKey, params?: MessageParams): string {
    const entry: CatalogEntry = CATALOGS[this.locale][key];
    const text = typeof entry === 'string' ? entry : entry[this.pluralForm(params?.['count'])];
    if (params === undefined) return text;
    return text.replace(/\{(\w+)\}/g, (whole, name: string) => {
      const value = params[name];
      return value === undefined ? whole : typeof value === 'number' ? this.number(value) : value;
    });
  }

  /** A count's plural form in this language: `one` or `other` (a count that is not a number: `other`). */
  pluralForm(count: unknown): keyof PluralForms {
    return typeof count === 'number' && this.plurals.select(count) === 'one' ? 'one' : 'other';
  }

  /** A date and time to the second. */
  date(ms: number): string {
    return this.dateTime.format(ms);
  }

  /**
   * The start of a chart's bucket: an hour to the minute in the app's time zone, a day (a whole
   * UTC day, as the charts count them) as its date alone.
   */
  bucket(ms: number, unit: 'hour' | 'day'): string {
    return unit === 'day' ? this.utcDay.format(ms) : this.hourStart.format(ms);
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

  /**
   * A duration in the one format every view and the command line show: whole milliseconds below a
   * second (`812 ms`), seconds to the millisecond below a minute (`1.234 sec`), then minutes and
   * whole seconds (`2 min 5 sec`), then hours and whole minutes (`3 hr 12 min`).
   *
   * @remarks
   * The unit is chosen after rounding, so 59 999.6 ms reads `1 min`, never `60 sec`. Below a minute
   * it is exact to the millisecond, as the timeline table needs; above, the rest is rounded away.
   */
  duration(ms: number): string {
    const whole = Number.isFinite(ms) ? Math.max(0, Math.round(ms)) : 0;
    if (whole < 1000) return this.milliseconds.format(whole);
    if (whole < 60_000) return this.seconds.format(whole / 1000);
    const seconds = Math.round(whole / 1000);
    if (seconds < 3600) return this.#pair(this.minutes, Math.floor(seconds / 60), this.seconds, seconds % 60);
    const minutes = Math.round(whole / 60_000);
    return this.#pair(this.hours, Math.floor(minutes / 60), this.minutes, minutes % 60);
  }

  /** `2 min 5 sec`, or `2 min` when the smaller part is zero. */
  #pair(big: Intl.NumberFormat, bigValue: number, small: Intl.NumberFormat, smallValue: number): string {
    return smallValue === 0 ? big.format(bigValue) : `${big.format(bigValue)} ${small.format(smallValue)}`;
  }
}
