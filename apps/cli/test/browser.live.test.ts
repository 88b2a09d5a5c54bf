// Live pages in a real browser (issue 40 item 3): the running run's page and the runs list update in
// place through the app's one same-origin script — no reload, no <meta http-equiv="refresh"> — keep the
// Cancel button's focus and the reader's text selection, can be paused, and axe finds nothing on them in
// English and German at 1280 and 420 px. Debian's Chromium, a real SQLite file, the real app server.
import type { AppendStepInput } from '@runledger/trace';
import type { Page } from 'playwright-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { axeViolations, chromiumAvailable, expectNoSidewaysScroll, pageWithoutDialogs, useBrowserApp } from './browserHarness.js';

const available = chromiumAvailable('live pages in a real browser');

describe.skipIf(!available)('live pages in a real browser', { timeout: 60_000 }, () => {
  const suite = useBrowserApp('live');
  let page: Page;

  beforeEach(async () => {
    page = await pageWithoutDialogs(suite.context);
  });

  afterEach(async () => {
    await page?.close();
  });

  async function appendTool(runId: string, tool: string, callId: string): Promise<void> {
    const step: AppendStepInput = {
      kind: 'tool',
      round: 1,
      durationMs: 120,
      createdAt: Date.now(),
      toolServer: 'docs',
      toolOutcome: 'ok',
      payload: {
        kind: 'tool',
        toolName: tool,
        toolServer: 'docs',
        toolCallId: callId,
        round: 1,
        durationMs: 120,
        toolIsError: false,
        toolOutcome: 'ok',
      },
    };
    await suite.store.appendStep(runId, step);
  }

  /** Marks the open document; true afterwards only while no reload or navigation replaced it. */
  async function markDocument(): Promise<void> {
    await page.evaluate(() => Object.assign(globalThis, { __sameDocument: true }));
  }
  async function sameDocument(): Promise<boolean> {
    return (await page.evaluate(() => (globalThis as { __sameDocument?: boolean }).__sameDocument)) === true;
  }
  function activeAction(): Promise<string | null> {
    return page.evaluate(() =>
      (
        globalThis as unknown as { document: { activeElement: { getAttribute(name: string): string | null } } }
      ).document.activeElement.getAttribute('data-action'),
    );
  }

  it("the running run's page takes in new steps and its end in place; the Cancel button keeps the focus; no meta refresh", async () => {
    const run = await suite.store.createRun({ configuration: 'live-run', actor: 'browser test' });
    await appendTool(run.id, 'search', 'call-1');
    await page.goto(`${suite.app.url}runs/${run.id}`);
    expect(await page.locator('meta[http-equiv="refresh"]').count()).toBe(0);
    const note = page.locator('[data-live-note]');
    await expect.poll(() => note.isVisible()).toBe(true);
    expect(await page.locator('[data-live-state]').innerText()).toBe('Updates live every 2 seconds.');
    expect(await page.locator('noscript').count()).toBe(1);
    await markDocument();
    await page.locator('button[data-action="cancel"]').focus();
    await appendTool(run.id, 'fetch', 'call-2');
    await expect.poll(() => page.locator('table.timeline tr[data-sequence="1"]').count(), { timeout: 10_000 }).toBe(1);
    expect(await page.locator('dl.summary').innerText()).toMatch(/Steps\s+2/);
    expect(await activeAction()).toBe('cancel');
    expect(await sameDocument()).toBe(true);
    await suite.store.finishRun(run.id, { status: 'completed', finishedAt: Date.now() });
    await expect.poll(() => page.locator('dl.summary .badge[data-status]').innerText(), { timeout: 10_000 }).toContain('completed');
    expect(await page.locator('[data-live-state]').innerText()).toBe('The run has ended; the page shows how.');
    expect(await page.locator('button[data-live-toggle]').isVisible()).toBe(false);
    expect(await page.locator('button[data-action="cancel"]').count()).toBe(0);
    expect(await sameDocument()).toBe(true);
  });

  it('pauses on its button (kept for the tab) and, resumed, catches up; a text selection holds its region until it is let go', async () => {
    const run = await suite.store.createRun({ configuration: 'live-pause', actor: 'browser test' });
    await appendTool(run.id, 'search', 'call-1');
    try {
      await page.goto(`${suite.app.url}runs/${run.id}?lang=de`);
      const toggle = page.locator('button[data-live-toggle]');
      await expect.poll(() => toggle.isVisible()).toBe(true);
      expect(await toggle.getAttribute('aria-pressed')).toBe('false');
      expect(await toggle.innerText()).toBe('Aktualisierung anhalten');
      await toggle.click();
      expect(await toggle.getAttribute('aria-pressed')).toBe('true');
      expect(await toggle.innerText()).toBe('Aktualisierung fortsetzen');
      expect(await page.locator('[data-live-state]').innerText()).toBe('Aktualisierung angehalten.');
      await markDocument();
      await appendTool(run.id, 'fetch', 'call-2');
      // two and a half update intervals: paused, nothing comes in
      await page.waitForTimeout(5_000);
      expect(await page.locator('table.timeline tr[data-sequence="1"]').count()).toBe(0);
      // the pause holds across a reload in this tab
      await page.reload();
      await expect.poll(() => page.locator('button[data-live-toggle]').getAttribute('aria-pressed')).toBe('true');
      await page.locator('button[data-live-toggle]').click();
      await expect.poll(() => page.locator('table.timeline tr[data-sequence="1"]').count(), { timeout: 10_000 }).toBe(1);
      // the reader selects text in the timeline: a new step waits until the selection is let go
      await markDocument();
      await page.locator('table.timeline tr[data-sequence="0"] td.details').selectText();
      await appendTool(run.id, 'export', 'call-3');
      await page.waitForTimeout(5_000);
      expect(await page.locator('table.timeline tr[data-sequence="2"]').count()).toBe(0);
      // the summary is its own region: its step count came in meanwhile
      expect(await page.locator('dl.summary').innerText()).toMatch(/Schritte\s+3/);
      await page.evaluate(() =>
        (globalThis as unknown as { getSelection(): { removeAllRanges(): void } }).getSelection().removeAllRanges(),
      );
      await expect.poll(() => page.locator('table.timeline tr[data-sequence="2"]').count(), { timeout: 10_000 }).toBe(1);
      expect(await sameDocument()).toBe(true);
    } finally {
      await suite.store.finishRun(run.id, { status: 'completed', finishedAt: Date.now() });
    }
  });

  it('the runs list takes in a new run in place, leaves the filter form alone, and says when none runs any more', async () => {
    const first = await suite.store.createRun({ configuration: 'live-list', actor: 'browser test' });
    await page.goto(`${suite.app.url}?configuration=live-list`);
    await expect.poll(() => page.locator('[data-live-note]').isVisible()).toBe(true);
    expect(await page.locator('[data-live-state]').innerText()).toBe('Updates live every 5 seconds.');
    await markDocument();
    // the reader is typing a filter: the update does not touch it
    await page.locator('#filter-title').fill('half-typed');
    await page.locator('#filter-title').focus();
    const second = await suite.store.createRun({ configuration: 'live-list', actor: 'browser test' });
    const rows = () => page.locator('tr[data-run-id]').evaluateAll((found) => found.map((row) => row.getAttribute('data-run-id')));
    await expect.poll(rows, { timeout: 15_000 }).toEqual([second.id, first.id]);
    expect(await page.locator('#filter-title').inputValue()).toBe('half-typed');
    expect(
      await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { id: string } } }).document.activeElement.id),
    ).toBe('filter-title');
    await suite.store.finishRun(first.id, { status: 'completed', finishedAt: Date.now() });
    await suite.store.finishRun(second.id, { status: 'cancelled', finishedAt: Date.now() });
    await expect
      .poll(() => page.locator('[data-live-state]').innerText(), { timeout: 15_000 })
      .toBe('No run on this page is running any more; updates stopped.');
    expect(await page.locator('tr[data-status="cancelled"]').count()).toBe(1);
    expect(await sameDocument()).toBe(true);
  });

  describe('axe finds nothing on live pages', () => {
    for (const width of [1280, 420]) {
      for (const lang of ['en', 'de']) {
        it(`the running run's page and the runs list while it runs (${width} px, ${lang})`, async () => {
          const run = await suite.store.createRun({ configuration: `live-axe-${width}-${lang}`, actor: 'browser test' });
          await appendTool(run.id, 'search', 'call-1');
          try {
            await page.setViewportSize({ width, height: 900 });
            for (const path of [`runs/${run.id}`, `?configuration=live-axe-${width}-${lang}`]) {
              await page.goto(`${suite.app.url}${path}${path.includes('?') ? '&' : '?'}lang=${lang}`);
              await expect.poll(() => page.locator('[data-live-note]').isVisible()).toBe(true);
              expect(await page.locator('meta[http-equiv="refresh"]').count()).toBe(0);
              expect(await axeViolations(page), `axe on ${path} (${width} px, ${lang})`).toEqual([]);
              await expectNoSidewaysScroll(page, `${path} at ${width} px`);
            }
          } finally {
            await suite.store.finishRun(run.id, { status: 'completed', finishedAt: Date.now() });
          }
        });
      }
    }
  });
});
