// Why a call failed, in a real browser (issue 40 item 1): a run recorded at `redacted` shows each
// failed call's cause with what the transport knew and its error message, its arguments and result
// folded in a disclosure, and a server's page lists the why per failed call — axe-core finds nothing,
// folded and opened, in English and German at 1280 and 420 px, and no page scrolls sideways.
// Debian's Chromium, a real SQLite file, the real app server.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteRunStore } from '@runledger/store-sqlite';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunsServer, startRunsServer } from '../src/app/startRunsServer.js';
import { axeViolations, chromiumAvailable, launchChromium } from './browserHarness.js';
import { recordFailedCalls } from './failedCallsRun.js';

const available = chromiumAvailable('why a call failed in a real browser');

describe.skipIf(!available)('why a call failed in a real browser', { timeout: 120_000 }, () => {
  let dir: string;
  let store: SqliteRunStore;
  let app: RunsServer;
  let context: BrowserContext;
  let runId: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'runledger-ui-why-'));
    const launching = launchChromium(join(dir, 'chromium-profile'));
    store = await SqliteRunStore.open({ path: join(dir, 'runledger.db') });
    runId = await recordFailedCalls(store, 'redacted');
    app = await startRunsServer({ store, host: '127.0.0.1', port: 0 });
    context = await launching;
  });

  afterAll(async () => {
    await context?.close();
    await app?.close();
    await store?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  async function fits(page: Page): Promise<void> {
    const size = await page.evaluate(() => {
      const doc = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document;
      return { scroll: doc.documentElement.scrollWidth, client: doc.documentElement.clientWidth };
    });
    expect(size.scroll).toBeLessThanOrEqual(size.client);
  }

  for (const lang of ['en', 'de'] as const) {
    for (const width of [1280, 420]) {
      it(`the run page and the server page, ${lang} at ${width} px`, async () => {
        const page = await context.newPage();
        try {
          await page.setViewportSize({ width, height: 900 });
          await page.goto(`${app.url}runs/${runId}?lang=${lang}`);
          const status = page.locator('tr[data-sequence="0"]');
          await expect.poll(() => status.locator('[data-error-message]').innerText()).toContain('token=[secret]');
          expect(await status.innerText()).toContain(lang === 'en' ? 'answered 503' : 'antwortete 503');
          const folded = status.locator('details[data-step-content]');
          expect(await folded.evaluate((el) => (el as unknown as { open: boolean }).open)).toBe(false);
          expect(await folded.locator('pre[data-content="arguments"]').isVisible()).toBe(false);
          expect(await axeViolations(page)).toEqual([]);
          await fits(page);
          await folded.locator('summary').click();
          expect(await folded.locator('pre[data-content="arguments"]').innerText()).toContain('"password": "[secret]"');
          expect(await axeViolations(page)).toEqual([]);
          await fits(page);

          await page.goto(`${app.url}servers/flaky?window=all&lang=${lang}`);
          const why = await page.locator('table.failing-calls [data-why]').allInnerTexts();
          expect(why).toEqual(
            lang === 'en'
              ? ['answered isError', 'ECONNRESET', 'JSON-RPC -32603', 'answered 503']
              : ['antwortete isError', 'ECONNRESET', 'JSON-RPC -32603', 'antwortete 503'],
          );
          expect(await axeViolations(page)).toEqual([]);
          await fits(page);
        } finally {
          await page.close();
        }
      });
    }
  }
});
