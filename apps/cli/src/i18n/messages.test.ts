import { TOOL_OUTCOMES, ToolOutcome } from '@runledger/core';
import { RUN_STATUSES, RUN_STEP_KINDS } from '@runledger/trace';
import { describe, expect, it } from 'vitest';
import { outcomeBadge } from '../views/badges.js';
import { kindText } from '../views/kindText.js';
import { CATALOGS, LOCALES, negotiateLocale } from './Locale.js';
import { messagesDe as de } from './messagesDe.js';
import { en } from './messagesEn.js';
import { entryTexts } from './PluralForms.js';
import { Translator } from './Translator.js';

describe('message catalogs', () => {
  it('have exactly the same key set in English and German', () => {
    expect(Object.keys(de).sort()).toEqual(Object.keys(en).sort());
    for (const locale of LOCALES) {
      for (const [key, entry] of Object.entries(CATALOGS[locale])) {
        for (const text of entryTexts(entry)) expect(text.trim(), `${locale} ${key}`).not.toBe('');
      }
    }
  });

  it('have the same parameters in both languages', () => {
    const params = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    for (const key of Object.keys(en) as (keyof typeof en)[]) {
      const german = entryTexts(de[key]);
      const english = entryTexts(en[key]);
      // a message that names a count has its plural forms in both languages, each with the same parameters
      expect(german.length, key).toBe(english.length);
      english.forEach((text, form) => expect(params(german[form] ?? ''), key).toEqual(params(text)));
      if (english.length > 1) expect(params(english[0] ?? ''), key).toContain('count');
    }
  });

  it('has the key runs.detail.outcome.<value> for every ToolOutcome value, in every language', () => {
    expect(TOOL_OUTCOMES).toEqual(['ok', 'failed', 'cancelled']);
    for (const locale of LOCALES) {
      for (const outcome of TOOL_OUTCOMES) {
        expect(Object.keys(CATALOGS[locale])).toContain(`runs.detail.outcome.${outcome}`);
      }
    }
    for (const status of RUN_STATUSES) expect(Object.keys(en)).toContain(`runs.status.${status}`);
  });

  it('names every step kind in words in every language, never as the stored string', () => {
    expect(RUN_STEP_KINDS.length).toBeGreaterThan(0);
    for (const locale of LOCALES) {
      const t = new Translator(locale);
      const labels = new Set<string>();
      for (const kind of RUN_STEP_KINDS) {
        expect(Object.keys(CATALOGS[locale]), `${locale} ${kind}`).toContain(`runs.detail.kind.${kind}`);
        const label = kindText(t, kind);
        expect(label, `${locale} ${kind}`).not.toBe(kind);
        expect(label, `${locale} ${kind}`).not.toMatch(/_/);
        labels.add(label);
      }
      // two kinds never read the same
      expect(labels.size, locale).toBe(RUN_STEP_KINDS.length);
    }
    expect(kindText(new Translator('en'), 'tool_start')).toBe('tool call sent');
    // a kind this version does not know is shown as stored
    expect(kindText(new Translator('de'), 'future_kind')).toBe('future_kind');
  });

  it('renders every outcome in both languages', () => {
    const expected = {
      en: { ok: 'ok', failed: 'failed', cancelled: 'cancelled' },
      de: { ok: 'ok', failed: 'fehlgeschlagen', cancelled: 'abgebrochen' },
    } as const;
    for (const locale of LOCALES) {
      const t = new Translator(locale);
      for (const outcome of TOOL_OUTCOMES) {
        const badge = outcomeBadge(t, outcome).value;
        expect(badge).toContain(`>${expected[locale][outcome]}</span>`);
        expect(badge).toContain(`data-outcome="${outcome}"`);
        expect(badge).toContain(`badge-${outcome}`);
      }
    }
    expect(outcomeBadge(new Translator('de'), ToolOutcome.CANCELLED).value).toContain('abgebrochen');
  });
});

describe('negotiateLocale', () => {
  it('takes a valid ?lang= first', () => {
    expect(negotiateLocale('de', 'en-US')).toBe('de');
    expect(negotiateLocale('EN', 'de')).toBe('en');
  });
  it('ignores an unknown ?lang= and falls back to Accept-Language', () => {
    expect(negotiateLocale('fr', 'de-DE,de;q=0.9')).toBe('de');
  });
  it('picks the best supported Accept-Language by quality', () => {
    expect(negotiateLocale(null, 'fr-CH, fr;q=0.9, de;q=0.8, en;q=0.7')).toBe('de');
    expect(negotiateLocale(null, 'en;q=0.5, de-AT;q=0.9')).toBe('de');
    expect(negotiateLocale(null, 'de;q=0, en')).toBe('en');
  });
  it('defaults to English', () => {
    expect(negotiateLocale(undefined, undefined)).toBe('en');
    expect(negotiateLocale(null, 'fr, ja')).toBe('en');
    expect(negotiateLocale(null, 'garbage;;;q=x')).toBe('en');
  });
});

describe('Translator', () => {
  it('formats dates, numbers and durations through Intl', () => {
    const en = new Translator('en', { timeZone: 'UTC' });
    const de = new Translator('de', { timeZone: 'UTC' });
    const at = Date.UTC(2026, 10, 29, 14, 5, 7, 42);
    expect(en.time(at)).toBe('14:05:07.042');
    expect(de.time(at)).toBe('14:05:07,042');
    expect(de.date(at)).toBe('29.11.2026, 14:05:07');
    expect(en.number(12345)).toBe('12,345');
    expect(de.number(12345)).toBe('12.345');
    expect(de.ratio(1 / 3)).toMatch(/^33,3\s%$/);
    expect(en.ratio(1 / 3)).toBe('33.3%');
    expect(en.duration(250)).toBe('250 ms');
    expect(de.duration(2500)).toMatch(/^2,5\sSek\.$/);
  });
  it('formats every duration one way: ms, then seconds to the ms, then minutes and seconds, hours and minutes', () => {
    const en = new Translator('en');
    const de = new Translator('de');
    const cases: [number, string, string][] = [
      [0, '0 ms', '0 ms'],
      [999.4, '999 ms', '999 ms'],
      [999.6, '1 sec', '1 Sek.'],
      [1_234, '1.234 sec', '1,234 Sek.'],
      [59_999.6, '1 min', '1 Min.'],
      [125_400, '2 min 5 sec', '2 Min. 5 Sek.'],
      [3_599_600, '1 hr', '1 Std.'],
      [3_661_000, '1 hr 1 min', '1 Std. 1 Min.'],
      [-5, '0 ms', '0 ms'],
      [Number.NaN, '0 ms', '0 ms'],
    ];
    for (const [ms, english, german] of cases) {
      expect(en.duration(ms).replace(/\s/g, ' '), String(ms)).toBe(english);
      expect(de.duration(ms).replace(/\s/g, ' '), String(ms)).toBe(german);
    }
  });
  it('fills parameters and leaves unknown ones visible', () => {
    const t = new Translator('en');
    expect(t.t('runs.page.shown', { count: 1200 })).toBe('1,200 runs on this page');
    expect(t.t('runs.page.shown', { count: 1 })).toBe('1 run on this page');
    expect(t.t('runs.detail.title')).toBe('Run {id}');
  });
});
