// Who cancelled, in a real browser (issue 40 item 2): the Cancel form of a running run has a
// labelled reason field; a cancel through it is kept as asked by the access token's name from the
// app, with the reason, and the run page says so next to the cancel time — axe-core finds nothing
// before and after, in English and German at 1280 and 420 px. Debian's Chromium, a real SQLite
// file, the real app server.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteRunStore } from '@runledger/store-sqlite';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunsServer, startRunsServer } from '../src/app/startRunsServer.js';
import { axeViolations, chromiumAvailable, launchChromium } from './browserHarness.js';

const available = chromiumAvailable('who cancelled in a real browser');
const TOKEN = 'browser-secret-token';

describe.skipIf(!available)('who cancelled in a real browser', { timeout: 120_000 }, () => {
  let dir: string;
  let store: SqliteRunStore;
  let app: RunsServer;
  let context: BrowserContext;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'runledger-ui-cancel-who-'));
    const launching = launchChromium(join(dir, 'chromium-profile'));
    store = await SqliteRunStore.open({ path: join(dir, 'runledger.db') });
    app = await startRunsServer({ store, host: '127.0.0.1', port: 0, token: TOKEN, tokenName: 'ops-laptop' });
    context = await launching;
  });

  afterAll(async () => {
    await context?.close();
    await app?.close();
    await store?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  for (const lang of ['en', 'de'] as const) {
    for (const width of [1280, 420]) {
      it(`the Cancel form's reason and who cancelled, ${lang} at ${width} px`, async () => {
        const run = await store.createRun({ configuration: 'support-agent', title: `cancel me (${lang}, ${width})` });
        const page = await context.newPage();
        try {
          await page.setViewportSize({ width, height: 900 });
          await page.goto(`${app.url}runs/${run.id}?lang=${lang}&token=${TOKEN}`);
          const reason = page.getByLabel(lang === 'en' ? 'Reason (optional)' : 'Grund (optional)');
          expect(await reason.isVisible()).toBe(true);
          expect(await axeViolations(page)).toEqual([]);
          await reason.fill('the export takes too long');
          await Promise.all([page.waitForURL(`**/runs/${run.id}?lang=${lang}`), page.locator('button[data-action="cancel"]').click()]);
          const said = page.locator('[data-note="cancel-request"]');
          expect(await said.innerText()).toBe(
            lang === 'en'
              ? 'by ops-laptop from the app: the export takes too long'
              : 'von ops-laptop über die App: the export takes too long',
          );
          expect((await store.getRun(run.id))!.cancelRequest).toMatchObject({
            from: 'app',
            by: 'ops-laptop',
            reason: 'the export takes too long',
          });
          expect(await axeViolations(page)).toEqual([]);
        } finally {
          await page.close();
        }
      });
    }
  }
});
