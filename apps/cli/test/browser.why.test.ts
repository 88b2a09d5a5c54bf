// Why a call failed, in a real browser (issue 40 item 1): a run recorded at `redacted` shows each
// failed call's cause with what the transport knew and its error message, its arguments and result
// folded in a disclosure, and a server's page lists the why per failed call — axe-core finds nothing,
// folded and opened, in English and German at 1280 and 420 px, and no page scrolls sideways.
// Debian's Chromium, a real SQLite file, the real app server.
import { describe, expect, it } from 'vitest';
import { axeViolations, chromiumAvailable, expectNoSidewaysScroll, storeIn, useBrowserApp } from './browserHarness.js';
import { recordDecidedCalls, recordFailedCalls } from './failedCallsRun.js';

const available = chromiumAvailable('why a call failed in a real browser');

describe.skipIf(!available)('why a call failed in a real browser', { timeout: 120_000 }, () => {
  let runId: string;
  let decidedRunId: string;
  const suite = useBrowserApp('why', async (dir) => {
    const store = await storeIn(dir);
    runId = await recordFailedCalls(store, 'redacted');
    decidedRunId = await recordDecidedCalls(store, 'redacted');
    return { store };
  });

  for (const lang of ['en', 'de'] as const) {
    for (const width of [1280, 420]) {
      it(`the run page and the server page, ${lang} at ${width} px`, async () => {
        const page = await suite.context.newPage();
        try {
          await page.setViewportSize({ width, height: 900 });
          await page.goto(`${suite.app.url}runs/${runId}?lang=${lang}`);
          const status = page.locator('tr[data-sequence="0"]');
          await expect.poll(() => status.locator('[data-error-message]').innerText()).toContain('token=[secret]');
          expect(await status.innerText()).toContain(lang === 'en' ? 'answered 503' : 'antwortete 503');
          const folded = status.locator('details[data-step-content]');
          expect(await folded.evaluate((el) => (el as unknown as { open: boolean }).open)).toBe(false);
          expect(await folded.locator('pre[data-content="arguments"]').isVisible()).toBe(false);
          expect(await axeViolations(page)).toEqual([]);
          await expectNoSidewaysScroll(page);
          await folded.locator('summary').click();
          expect(await folded.locator('pre[data-content="arguments"]').innerText()).toContain('"password": "[secret]"');
          expect(await axeViolations(page)).toEqual([]);
          await expectNoSidewaysScroll(page);

          await page.goto(`${suite.app.url}servers/flaky?window=all&lang=${lang}`);
          const why = await page.locator('table.failing-calls [data-why]').allInnerTexts();
          expect(why).toEqual(
            lang === 'en'
              ? ['answered isError', 'ECONNRESET', 'JSON-RPC -32603', 'answered 503']
              : ['antwortete isError', 'ECONNRESET', 'JSON-RPC -32603', 'antwortete 503'],
          );
          expect(await axeViolations(page)).toEqual([]);
          await expectNoSidewaysScroll(page);

          // who approved or refused a call (issue 40 item 2)
          await page.goto(`${suite.app.url}runs/${decidedRunId}?lang=${lang}`);
          expect(await page.locator('tr[data-sequence="1"]').innerText()).toContain(
            lang === 'en' ? 'Refused by bob: too risky' : 'Abgelehnt von bob: too risky',
          );
          expect(await page.locator('tr[data-sequence="0"]').innerText()).toContain(
            lang === 'en' ? 'Approved by alice' : 'Freigegeben von alice',
          );
          expect(await axeViolations(page)).toEqual([]);
          await expectNoSidewaysScroll(page);
        } finally {
          await page.close();
        }
      });
    }
  }
});
