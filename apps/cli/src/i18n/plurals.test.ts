// Every message that names a count says it grammatically in both languages: `1 run`, `2 runs`,
// `0 runs`, `1 Lauf`, `2 Läufe`, never `1 runs` (issue 40 item 6). The forms are Intl.PluralRules'
// choice; this test holds them to the nouns each language needs for every count.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LOCALES, type Locale } from './Locale.js';
import { en, type PluralKey } from './messagesEn.js';
import { Translator } from './Translator.js';

/** For each message that names a count, per language, the words that must follow for one and for any other count. */
const NOUNS: Readonly<Record<PluralKey, Readonly<Record<Locale, readonly [one: string, other: string]>>>> = {
  'runs.page.shown': { en: ['run on', 'runs on'], de: ['Lauf auf', 'Läufe auf'] },
  'runs.filter.error.tooLong': { en: ['character.', 'characters.'], de: ['Zeichen.', 'Zeichen.'] },
  'runs.filter.error.tooShort': { en: ['character.', 'characters.'], de: ['Zeichen.', 'Zeichen.'] },
  'runs.totals.runs': { en: ['run', 'runs'], de: ['Lauf', 'Läufe'] },
  'runs.totals.tokens': { en: ['token', 'tokens'], de: ['Token', 'Tokens'] },
  'runs.refresh.start': { en: ['second', 'seconds'], de: ['Sekunde live', 'Sekunden live'] },
  'live.on': { en: ['second.', 'seconds.'], de: ['Sekunde aktualisiert.', 'Sekunden aktualisiert.'] },
  'runs.detail.unstoredNote': {
    en: ['step of this run was', 'steps of this run were'],
    de: ['Schritt dieses Laufs wurde', 'Schritte dieses Laufs wurden'],
  },
  'runs.detail.ambiguousId': { en: ['run:', 'runs:'], de: ['Lauf:', 'Läufen:'] },
  'servers.notChargedBeside': {
    en: ['call not charged', 'calls not charged'],
    de: ['Aufruf nicht angerechnet', 'Aufrufe nicht angerechnet'],
  },
  'servers.answeredBeside': { en: ['answered call', 'answered calls'], de: ['beantworteten Aufruf', 'beantwortete Aufrufe'] },
  'servers.alerts.owed': { en: ['webhook', 'webhooks'], de: ['Webhook', 'Webhooks'] },
  'trend.gaps.hour': { en: ['hour', 'hours'], de: ['Stunde', 'Stunden'] },
  'trend.gaps.day': { en: ['day', 'days'], de: ['Tag', 'Tagen'] },
  'trend.empty.hour': { en: ['hour', 'hours'], de: ['Stunde', 'Stunden'] },
  'trend.empty.day': { en: ['day', 'days'], de: ['Tag', 'Tagen'] },
  'server.failing.shown': { en: ['failed call on', 'failed calls on'], de: ['fehlgeschlagener Aufruf auf', 'fehlgeschlagene Aufrufe auf'] },
  'count.runs': { en: ['run', 'runs'], de: ['Lauf', 'Läufe'] },
  'count.demoRuns': { en: ['demo run', 'demo runs'], de: ['Demo-Lauf', 'Demo-Läufe'] },
  'count.steps': { en: ['step', 'steps'], de: ['Schritt', 'Schritte'] },
  'count.unstoredSteps': { en: ['unstored step', 'unstored steps'], de: ['nicht gespeicherter Schritt', 'nicht gespeicherte Schritte'] },
  'count.spans': { en: ['span', 'spans'], de: ['Span', 'Spans'] },
  'count.toolCalls': { en: ['tool call', 'tool calls'], de: ['Tool-Aufruf', 'Tool-Aufrufe'] },
  'count.batches': { en: ['batch', 'batches'], de: ['Stapel', 'Stapel'] },
  'count.finalStatuses': { en: ['final status', 'final statuses'], de: ['Endstatus', 'Endstatus'] },
  'count.lateFinalStatuses': { en: ['late final status', 'late final statuses'], de: ['später Endstatus', 'späte Endstatus'] },
  'count.tornLines': { en: ['torn last line', 'torn last lines'], de: ['abgerissene letzte Zeile', 'abgerissene letzte Zeilen'] },
  'count.tools': { en: ['tool', 'tools'], de: ['Tool', 'Tools'] },
  'count.alertsFiring': { en: ['alert firing', 'alerts firing'], de: ['Alarm ausgelöst', 'Alarme ausgelöst'] },
  'alerts.summary.flaky': { en: ['answered call', 'answered calls'], de: ['beantworteten Aufruf', 'beantworteten Aufrufen'] },
  'alerts.summary.failureRate': { en: ['answered call', 'answered calls'], de: ['beantworteten Aufruf', 'beantworteten Aufrufen'] },
  'alerts.summary.p95': { en: ['answered call', 'answered calls'], de: ['beantworteten Aufruf', 'beantwortete Aufrufe'] },
};

const PLURAL_KEYS = Object.keys(NOUNS) as PluralKey[];

/** The message with its count, as the app and the CLI say it. */
function say(t: Translator, key: PluralKey, count: number): string {
  return t.t(key, { count, gaps: 0, id: 'run-1', ids: 'run-1' });
}

/** True when `text` has `count` (as the language writes it) followed by `words`, as whole words. */
function countThen(t: Translator, text: string, count: number, words: string): boolean {
  const escaped = `${t.number(count)} ${words}`.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^\\p{L}\\d.,])${escaped}(?![\\p{L}])`, 'u').test(text);
}

describe('messages that name a count', () => {
  it('are exactly the catalog entries with plural forms: every one is checked here', () => {
    const plural = Object.entries(en)
      .filter(([, entry]) => typeof entry !== 'string')
      .map(([key]) => key);
    expect(PLURAL_KEYS.sort()).toEqual(plural.sort());
  });

  it('say every count 0..N grammatically in English and German: never "1 runs", "2 run", "1 Läufe" or "2 Lauf"', () => {
    const translators = LOCALES.map((locale) => new Translator(locale));
    const check = (count: number) => {
      for (const t of translators) {
        for (const key of PLURAL_KEYS) {
          const [one, other] = NOUNS[key][t.locale];
          const text = say(t, key, count);
          // the count stands right before its noun, in the form the count needs, and only that form
          expect(countThen(t, text, count, count === 1 ? one : other), `${t.locale} ${key} ${count}: ${text}`).toBe(true);
          if (one !== other)
            expect(countThen(t, text, count, count === 1 ? other : one), `${t.locale} ${key} ${count}: ${text}`).toBe(false);
        }
      }
    };
    // the small counts one by one (where languages differ), then any count
    for (let count = 0; count <= 30; count++) check(count);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), (count) => check(count)),
      { numRuns: 100 },
    );
  });

  it('say the samples the issue names', () => {
    const english = new Translator('en');
    const german = new Translator('de');
    expect(english.t('runs.totals.runs', { count: 1 })).toBe('1 run');
    expect(english.t('runs.totals.runs', { count: 2 })).toBe('2 runs');
    expect(english.t('runs.totals.runs', { count: 0 })).toBe('0 runs');
    expect(german.t('runs.totals.runs', { count: 1 })).toBe('1 Lauf');
    expect(german.t('runs.totals.runs', { count: 2 })).toBe('2 Läufe');
    expect(german.t('runs.totals.runs', { count: 1200 })).toBe('1.200 Läufe');
  });
});
