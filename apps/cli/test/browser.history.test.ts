// A first look with history (issue 40 items 5 and 7), in a real browser: after the demo (its week of
// imported history and its scripted runs, the real demo MCP servers), the servers page opens on the
// week, each demo server's charts are lines (more than one point), a 0 % failure rate is drawn in the
// ok colour and never red, and the runs list's filter boxes suggest the names the store holds — axe-core
// finds nothing, in English and German at 1280 and 420 px. Debian's Chromium, a real SQLite file.
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { HISTORY_CONFIGURATIONS } from '../src/demo/demoHistoryPlan.js';
import { startDemoServers } from '../src/demo/DemoServers.js';
import { runDemo } from '../src/demo/runDemo.js';
import { axeViolations, chromiumAvailable, useBrowserApp } from './browserHarness.js';

const available = chromiumAvailable('a first look with history in a real browser');
/** --ok-fg and --fail-fg of the app's styles, as the browser computes them. */
const OK_GREEN = 'rgb(17, 99, 41)';
const FAIL_RED = 'rgb(164, 14, 38)';

/** The computed colour of each drawn part of a chart: a line's stroke, a dot's fill, by its class. */
function colours(page: Page, selector: string): Promise<{ cls: string; colour: string }[]> {
  return page.locator(selector).evaluateAll((elements) =>
    elements.map((el) => {
      const style = (globalThis as unknown as { getComputedStyle(e: unknown): { stroke: string; fill: string } }).getComputedStyle(el);
      const node = el as unknown as { tagName: string; getAttribute(name: string): string | null };
      return { cls: node.getAttribute('class') ?? '', colour: node.tagName.toLowerCase() === 'circle' ? style.fill : style.stroke };
    }),
  );
}

describe.skipIf(!available)('a first look with history in a real browser', { timeout: 120_000 }, () => {
  const suite = useBrowserApp('history', async (dir) => {
    const servers = await startDemoServers();
    try {
      const { store } = await runDemo({ dbPath: join(dir, 'runledger.db'), servers, history: true });
      return { store, close: () => servers.close() };
    } catch (error) {
      await servers.close();
      throw error;
    }
  });

  for (const lang of ['en', 'de'] as const) {
    for (const width of [1280, 420]) {
      it(`the servers page after the demo opens on the week, lines not dots, 0 % never red: ${lang} at ${width} px`, async () => {
        const page = await suite.context.newPage();
        try {
          await page.setViewportSize({ width, height: 900 });
          await page.goto(`${suite.app.url}servers?lang=${lang}`);
          // no window in the URL: the week the history spans
          expect(await page.locator('nav.pager a[aria-current="true"]').getAttribute('href')).toContain('window=7d');
          for (const server of ['docs', 'flaky', 'slow']) {
            const row = page.locator(`tr[data-server="${server}"]`);
            const points = await row
              .locator('svg.spark.trend-failureRate')
              .evaluate((svg) =>
                [
                  ...(
                    svg as unknown as { querySelectorAll(s: string): Iterable<{ getAttribute(n: string): string | null }> }
                  ).querySelectorAll('.series polyline, .series circle'),
                ]
                  .map((el) => (el.getAttribute('points') ?? 'x').trim().split(/\s+/).length)
                  .reduce((sum, n) => sum + n, 0),
              );
            expect(points, `${server}: the points of its failure-rate chart`).toBeGreaterThan(1);
            expect(points, server).toBeGreaterThanOrEqual(7);
          }
          // the steady docs server's 0 % days are green; the flaky server's bad days red
          const drawn = await colours(page, 'svg.spark.trend-failureRate .series > *');
          const zero = drawn.filter((part) => part.cls === 'zero');
          const value = drawn.filter((part) => part.cls === 'value');
          expect(zero.length).toBeGreaterThan(0);
          expect(value.length).toBeGreaterThan(0);
          for (const part of zero) expect(part.colour).toBe(OK_GREEN);
          for (const part of value) expect(part.colour).toBe(FAIL_RED);
          expect(await axeViolations(page)).toEqual([]);

          // the docs server's page: its large chart on the week, its 0 % dots green
          await page.goto(`${suite.app.url}servers/docs?lang=${lang}`);
          expect(await page.locator('.trend-failureRate .series circle').count()).toBeGreaterThan(1);
          const dots = await colours(page, '.trend-failureRate .series circle');
          for (const dot of dots) expect(dot.colour).toBe(dot.cls === 'zero' ? OK_GREEN : FAIL_RED);
          expect(dots.some((dot) => dot.cls === 'zero')).toBe(true);
          expect(await axeViolations(page)).toEqual([]);
        } finally {
          await page.close();
        }
      });

      it(`the runs list's filter boxes suggest the names the store holds: ${lang} at ${width} px`, async () => {
        const page = await suite.context.newPage();
        try {
          await page.setViewportSize({ width, height: 900 });
          await page.goto(`${suite.app.url}?lang=${lang}`);
          const options = (field: string) =>
            page.locator(`#filter-${field}`).evaluate((input) => {
              const list = (input as unknown as { list: { options: Iterable<{ value: string }> } | null }).list;
              return list === null ? null : [...list.options].map((option) => option.value);
            });
          expect(await options('configuration')).toEqual(
            expect.arrayContaining([
              'support-agent',
              'ops-agent',
              'report-agent',
              HISTORY_CONFIGURATIONS.ops,
              HISTORY_CONFIGURATIONS.report,
            ]),
          );
          expect((await options('server'))?.sort()).toEqual(['docs', 'flaky', 'slow']);
          expect(await options('tool')).toEqual(
            expect.arrayContaining([
              'mcp_docs_search',
              'mcp_docs_read_page',
              'mcp_flaky_fetch_metrics',
              'mcp_slow_export_report',
              'mcp_slow_status',
            ]),
          );
          expect(await axeViolations(page)).toEqual([]);
          // picking a suggestion filters by it (a plain form: no script involved)
          await page.locator('#filter-configuration').fill(HISTORY_CONFIGURATIONS.report);
          await page.locator('form.filters button[type="submit"]').click();
          await page.waitForURL(/configuration=/);
          const configurations = await page.locator('tr[data-run-id] td').allInnerTexts();
          expect(configurations.join('\n')).toContain(HISTORY_CONFIGURATIONS.report);
          expect(await page.locator('tr[data-run-id]').count()).toBeGreaterThan(0);
          expect(await axeViolations(page)).toEqual([]);
        } finally {
          await page.close();
        }
      });
    }
  }
});
