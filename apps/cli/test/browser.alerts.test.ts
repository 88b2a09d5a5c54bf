// The alerts on the servers page (issue 41 item 2), in a real browser: with the evaluator's state
// file (as `serve --alerts` gives it) the page lists the alerts firing now and the recent changes —
// fired and resolved, each delivered, owed or without webhook — in English and German at 1280 and
// 420 px, no sideways scroll, axe-core finds nothing; without it, one line pointing at the docs.
// Debian's Chromium, a real SQLite file, a real state file written by AlertStateFile.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { transitionId } from '../src/alertState/alertNotification.js';
import { AlertStateFile } from '../src/alertState/AlertStateFile.js';
import type { ActiveAlert, AlertFacts, AlertTransition } from '../src/alerts/evaluateAlerts.js';
import { axeViolations, chromiumAvailable, expectNoSidewaysScroll, pageWithoutDialogs, storeIn, useBrowserApp } from './browserHarness.js';
import { seedRun } from './seedRun.js';

const available = chromiumAvailable('the alerts on the servers page in a real browser');
const NOW = Date.now();

const alert = (
  ruleId: string,
  kind: ActiveAlert['kind'],
  subject: string,
  since: number,
  summary: string,
  facts?: AlertFacts,
): ActiveAlert => ({
  key: `${ruleId}|${subject}`,
  ruleId,
  kind,
  subject,
  since,
  value: null,
  summary,
  ...(facts !== undefined && { facts }),
});
// Two alerts the evaluator saved with their facts (the page says them in its language), one saved
// before facts were kept (the page shows its English summary, marked as English).
const flaky = alert(
  'flaky',
  'flaky',
  'search',
  NOW - 3_600_000,
  'server search is flaky: 100.0% of 5 answered calls failed in the last 1 hr',
  { kind: 'flaky', server: 'search', failureRate: 1, answered: 5, windowMs: 3_600_000 },
);
const stuck = alert(
  'stuck',
  'stalled-run',
  'run-0b5c8e2f-7a41-4f3e-9d2c-5f1e8a6b3c70',
  NOW - 600_000,
  'run run-0b5c8e2f-7a41-4f3e-9d2c-5f1e8a6b3c70 (nightly) is running with no sign of life for 20 min (rule: 10 min)',
  {
    kind: 'stalled-run',
    runId: 'run-0b5c8e2f-7a41-4f3e-9d2c-5f1e8a6b3c70',
    configuration: 'nightly',
    silentMs: 1_200_000,
    afterMs: 600_000,
  },
);
const slow = alert('p95', 'p95', 'docs', NOW - 7_200_000, 'server docs: p95 2.5s in the last 1h (above 2s)');
const fired = (a: ActiveAlert): AlertTransition => ({ type: 'firing', alert: a, at: a.since });
const resolved: AlertTransition = { type: 'resolved', alert: slow, at: NOW - 60_000 };

describe.skipIf(!available)('the alerts on the servers page in a real browser', { timeout: 120_000 }, () => {
  const suite = useBrowserApp('alerts', async (dir) => {
    const store = await storeIn(dir);
    await seedRun(store, {
      configuration: 'nightly',
      createdAt: NOW - 120_000,
      calls: [
        { server: 'search', tool: 'query', outcome: 'failed', cause: 'server_error' },
        { server: 'docs', tool: 'read', outcome: 'ok' },
      ],
    });
    const alertStateFile = join(dir, 'rules.json.state.json');
    // two firing, one resolved: the stuck run still owed to one webhook, its resolve too
    new AlertStateFile(alertStateFile).save({
      states: { [flaky.key]: flaky, [stuck.key]: stuck },
      outbox: [
        { id: transitionId(fired(stuck)), webhook: 'ops', transition: fired(stuck) },
        { id: transitionId(resolved), webhook: 'ops', transition: resolved },
      ],
      history: [
        { transition: fired(slow), webhooks: 0 },
        { transition: fired(flaky), webhooks: 2 },
        { transition: fired(stuck), webhooks: 2 },
        { transition: resolved, webhooks: 2 },
      ],
    });
    return { store, alertStateFile };
  });

  const words = {
    en: {
      firing: '2 alerts firing',
      resolved: 'resolved',
      owed: 'owed to 1 webhook',
      delivered: 'delivered',
      none: 'no webhook',
      flaky: 'server search is flaky: 100.0% of 5 answered calls failed in the last 1 hr',
      stuck: 'run run-0b5c8e2f-7a41-4f3e-9d2c-5f1e8a6b3c70 (nightly) is running with no sign of life for 20 min (rule: 10 min)',
    },
    de: {
      flaky: 'Server search ist unzuverlässig: 100,0\u00a0% von 5 beantworteten Aufrufen in den letzten 1 Std. fehlgeschlagen',
      stuck: 'Lauf run-0b5c8e2f-7a41-4f3e-9d2c-5f1e8a6b3c70 (nightly) läuft seit 20 Min. ohne Lebenszeichen (Regel: 10 Min.)',
      firing: '2 Alarme ausgelöst',
      resolved: 'aufgehoben',
      owed: 'an 1 Webhook ausstehend',
      delivered: 'zugestellt',
      none: 'kein Webhook',
    },
  };
  for (const lang of ['en', 'de'] as const) {
    for (const width of [1280, 420]) {
      it(`lists the firing alerts and the changes, delivered or owed: ${lang} at ${width} px`, async () => {
        const page = await pageWithoutDialogs(suite.context);
        try {
          await page.setViewportSize({ width, height: 900 });
          await page.goto(`${suite.app.url}servers?lang=${lang}`);
          const section = page.locator('section[data-section="alerts"]');
          expect(await section.getAttribute('data-alerts')).toBe('on');
          expect(await section.locator('h3').first().textContent()).toBe(words[lang].firing);
          expect(
            await section
              .locator('ul.alert-list li')
              .evaluateAll((lis) => lis.map((li) => (li as unknown as { dataset: { rule: string } }).dataset.rule)),
          ).toEqual(['flaky', 'stuck']);
          const changes = section.locator('ol.alert-changes li');
          expect(
            await changes.evaluateAll((lis) =>
              lis.map((li) => {
                const d = (li as unknown as { dataset: Record<string, string> }).dataset;
                return `${d['change']} ${d['rule']} ${d['delivery']}`;
              }),
            ),
          ).toEqual(['resolved p95 owed', 'firing stuck owed', 'firing flaky delivered', 'firing p95 noWebhook']);
          const first = (await changes.first().textContent()) ?? '';
          expect(first).toContain(words[lang].resolved);
          expect(first).toContain(words[lang].owed);
          expect(await changes.nth(2).locator('.delivery').textContent()).toBe(words[lang].delivered);
          expect(await changes.nth(3).locator('.delivery').textContent()).toBe(words[lang].none);
          // each alert's sentence in the page's language; one saved without facts in English, marked so
          const sentences = await section
            .locator('ul.alert-list li small')
            .evaluateAll((smalls) => smalls.map((el) => [el.textContent, el.getAttribute('lang')]));
          expect(sentences).toEqual([
            [words[lang].flaky, null],
            [words[lang].stuck, null],
          ]);
          expect(await changes.first().locator('small').getAttribute('lang')).toBe('en');
          expect(await changes.first().locator('small').textContent()).toBe(slow.summary);
          await expectNoSidewaysScroll(page, `the servers page with alerts (${lang}, ${width} px)`);
          expect(await axeViolations(page)).toEqual([]);
        } finally {
          await page.close();
        }
      });
    }
  }
});

describe.skipIf(!available)('the servers page of an app without --alerts in a real browser', { timeout: 120_000 }, () => {
  const suite = useBrowserApp('no-alerts');
  for (const lang of ['en', 'de'] as const) {
    it(`says in one line that alerts are off and where to read about them: ${lang}`, async () => {
      const page = await pageWithoutDialogs(suite.context);
      try {
        await page.setViewportSize({ width: 420, height: 900 });
        await page.goto(`${suite.app.url}servers?lang=${lang}`);
        const section = page.locator('section[data-section="alerts"]');
        expect(await section.getAttribute('data-alerts')).toBe('off');
        expect(await section.locator('p').textContent()).toContain('docs/alerts.md');
        expect(await section.locator('li').count()).toBe(0);
        expect(await axeViolations(page)).toEqual([]);
      } finally {
        await page.close();
      }
    });
  }
});
