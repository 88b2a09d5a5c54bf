// A waterfall you can read, in a real browser (issue 40 item 4): each bar labelled with its tool
// and server where the label fits (inside the bar, else beside it, never over another bar or
// label), a call that may have executed marked on its bar, the cancel request a labelled line, the
// timeline's Start and End columns, and a zoomed range of a long run with its links — axe-core
// finds nothing, in English and German at 1280 and 420 px, and no page scrolls sideways; a bad
// range is a 400 page axe finds nothing on. Debian's Chromium, a real SQLite file, the real app.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ToolOutcome } from '@runledger/core';
import type { SqliteRunStore } from '@runledger/store-sqlite';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { axeViolations, chromiumAvailable, expectNoSidewaysScroll, storeIn, useBrowserApp } from './browserHarness.js';
import { seedRun } from './seedRun.js';

const available = chromiumAvailable('a readable waterfall in a real browser');
const SCREENSHOTS = process.env['RUNLEDGER_SCREENSHOTS'] === '1';
const IMAGES = fileURLToPath(new URL('../../../docs/images', import.meta.url));

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

describe.skipIf(!available)('a readable waterfall in a real browser', { timeout: 120_000 }, () => {
  let store: SqliteRunStore;
  let runId: string;
  let longId: string;
  let t0: number;

  /** A tool step as the recorder stores it, stamped at its end (`at`). */
  async function tool(
    at: number,
    durationMs: number,
    name: string,
    outcome: ToolOutcome,
    extra: Record<string, unknown> = {},
  ): Promise<void> {
    const server = name.split('_')[1]!;
    await store.appendStep(runId, {
      kind: 'tool',
      round: 1,
      durationMs,
      createdAt: at,
      payload: {
        kind: 'tool',
        toolName: name,
        toolServer: server,
        round: 1,
        durationMs,
        toolIsError: outcome !== 'ok',
        toolOutcome: outcome,
        ...extra,
      },
      toolServer: server,
      toolOutcome: outcome,
    });
  }

  const suite = useBrowserApp('waterfall', async (dir) => {
    store = await storeIn(dir);
    t0 = Date.now() - 60_000;
    runId = (await store.createRun({ configuration: 'waterfall-readable', actor: 'browser test', createdAt: t0 })).id;
    await store.appendStep(runId, {
      kind: 'llm',
      round: 1,
      durationMs: 380,
      createdAt: t0 + 400,
      payload: { kind: 'llm', model: 'demo-model', round: 1, durationMs: 380 },
      toolServer: null,
      toolOutcome: null,
    });
    // a long read and a write sent beside it; the cancel comes while the write is on the wire
    await tool(t0 + 2_400, 2_000, 'mcp_docs_search', 'ok');
    await store.requestCancel(runId, t0 + 2_800);
    await tool(t0 + 3_000, 2_500, 'mcp_slow_export_report', 'cancelled', { toolWrites: true, toolSends: 1 });
    await tool(t0 + 3_200, 150, 'mcp_flaky_fetch_metrics', 'failed', { toolFailureCause: 'server_error' });
    await store.finishRun(runId, { status: 'cancelled', finishedAt: t0 + 3_300 });
    const calls = Array.from({ length: 300 }, (_, i) => ({
      server: ['docs', 'slow', 'flaky'][i % 3]!,
      tool: 'call',
      outcome: 'ok' as const,
    }));
    longId = (await seedRun(store, { configuration: 'waterfall-long', createdAt: t0, calls })).id;
    return { store };
  });

  /** Every bar's rectangle and its shown label (text, place and box): a label hidden for the other screen width is left out. */
  async function barsOf(page: Page): Promise<{ sequence: string; rect: Box; label: { text: string; place: string; box: Box } | null }[]> {
    const result = [];
    for (const bar of await page.locator('svg.waterfall-chart a.bar').all()) {
      const labels = [];
      const sequence = (await bar.getAttribute('data-sequence'))!;
      for (const text of await page.locator(`svg.waterfall-chart text.bar-label[data-sequence="${sequence}"]`).all()) {
        if (!(await text.isVisible())) continue;
        const cls = (await text.getAttribute('class'))!;
        labels.push({
          text: (await text.textContent())!,
          place: /label-(inside|right|left)/.exec(cls)![1]!,
          box: (await text.boundingBox())!,
        });
      }
      expect(labels.length).toBeLessThanOrEqual(1);
      result.push({ sequence, rect: (await bar.locator('rect').boundingBox())!, label: labels[0] ?? null });
    }
    return result;
  }

  const overlap = (a: Box, b: Box) =>
    a.x < b.x + b.width - 0.5 && b.x < a.x + a.width - 0.5 && a.y < b.y + b.height - 0.5 && b.y < a.y + a.height - 0.5;

  for (const lang of ['en', 'de'] as const) {
    for (const width of [1280, 420]) {
      it(`labels the bars, marks the call that may have executed, draws the cancel line and shows Start and End, ${lang} at ${width} px`, async () => {
        const page = await suite.context.newPage();
        try {
          await page.setViewportSize({ width, height: 900 });
          await page.goto(`${suite.app.url}runs/${runId}?lang=${lang}`);
          const chart = (await page.locator('svg.waterfall-chart').boundingBox())!;
          const bars = await barsOf(page);
          expect(bars.map((bar) => bar.sequence)).toEqual(['0', '1', '2', '3']);
          for (const bar of bars) {
            if (bar.label === null) continue;
            const box = bar.label.box;
            // a label never leaves the chart, and one inside its bar stays within it
            expect(box.x).toBeGreaterThanOrEqual(chart.x - 1);
            expect(box.x + box.width).toBeLessThanOrEqual(chart.x + chart.width + 1);
            if (bar.label.place === 'inside') {
              expect(box.x, bar.label.text).toBeGreaterThanOrEqual(bar.rect.x);
              expect(box.x + box.width, bar.label.text).toBeLessThanOrEqual(bar.rect.x + bar.rect.width + 0.5);
            }
            // a label covers no other bar and no other label
            for (const other of bars) {
              if (other === bar) continue;
              expect(overlap(box, other.rect), `${bar.label.text} over bar ${other.sequence}`).toBe(false);
              if (other.label !== null) expect(overlap(box, other.label.box), `${bar.label.text} over ${other.label.text}`).toBe(false);
            }
          }
          // the long read is labelled with its tool and server inside its bar at either width
          const read = bars[1]!.label!;
          expect(read.place).toBe('inside');
          expect(read.text).toBe(lang === 'en' ? 'mcp_docs_search on docs' : 'mcp_docs_search auf docs');
          // the write that may have executed: ⚠ on its bar, outlined, said in its name and the legend
          const words = lang === 'en' ? 'may have executed' : 'möglicherweise ausgeführt';
          const write = page.locator('a.bar[data-may-have-executed="true"]');
          expect(await write.getAttribute('data-sequence')).toBe('2');
          expect(bars[2]!.label!.text.startsWith('⚠ mcp_slow_export_report')).toBe(true);
          if (width === 1280) expect(bars[2]!.label!.text).toContain(words);
          expect(await write.getAttribute('aria-label')).toContain(`, ${words},`);
          expect(
            await write
              .locator('rect')
              .evaluate(
                (el) =>
                  (globalThis as unknown as { getComputedStyle(e: unknown): { strokeWidth: string } }).getComputedStyle(el).strokeWidth,
              ),
          ).toBe('2.5px');
          expect(await page.locator('ul.legend').innerText()).toContain(words);
          // the cancel request: a labelled line where it came, 2.8 s into the 3.3 s axis
          const cancel = page.locator('g.marker[data-event="cancel_requested"]');
          expect(await cancel.locator('text').textContent()).toBe(lang === 'en' ? '⊘ Cancel requested' : '⊘ Abbruch angefordert');
          expect(await cancel.locator('text').isVisible()).toBe(true);
          const line = (await cancel.locator('line').boundingBox())!;
          expect(Math.abs(line.x + line.width / 2 - (chart.x + (chart.width * 2_800) / 3_300))).toBeLessThan(2);
          expect(line.height).toBeGreaterThan(40);
          expect(await cancel.getAttribute('aria-label')).toMatch(
            lang === 'en' ? /^Cancel requested at \d\d:\d\d:\d\d\.\d{3}$/ : /^Abbruch angefordert um \d\d:\d\d:\d\d,\d{3}$/,
          );
          // Start and End: a step began its duration before it was recorded
          const row = page.locator('table.timeline tr[data-sequence="2"]');
          expect(await row.locator('td.start time').getAttribute('datetime')).toBe(new Date(t0 + 500).toISOString());
          expect(await row.locator('td.end time').getAttribute('datetime')).toBe(new Date(t0 + 3_000).toISOString());
          expect(await page.locator('table.timeline thead').innerText()).toMatch(lang === 'en' ? /START\s+END/ : /BEGINN\s+ENDE/);
          expect(await axeViolations(page)).toEqual([]);
          await expectNoSidewaysScroll(page);
          if (SCREENSHOTS && lang === 'en') {
            mkdirSync(IMAGES, { recursive: true });
            await page
              .locator('section.waterfall')
              .screenshot({ path: join(IMAGES, width === 1280 ? 'run-waterfall-labelled.png' : 'run-waterfall-narrow.png') });
          }
        } finally {
          await page.close();
        }
      });

      it(`zooms into a range of a long run and back, and refuses a bad range with a readable 400 page, ${lang} at ${width} px`, async () => {
        const page = await suite.context.newPage();
        try {
          await page.setViewportSize({ width, height: 900 });
          await page.goto(`${suite.app.url}runs/${longId}?from=100&to=120&lang=${lang}`);
          expect(await page.locator('svg.waterfall-chart a.bar').count()).toBe(20);
          expect(await page.locator('table.timeline tbody tr[data-sequence]').count()).toBe(20);
          expect(await page.locator('[data-zoomed]').innerText()).toContain(
            lang === 'en' ? 'steps 101–120 of 300' : 'Schritte 101–120 von 300',
          );
          // the range fills the axis: its first bar starts at the left, its last ends at the right
          const chart = (await page.locator('svg.waterfall-chart').boundingBox())!;
          const first = (await page.locator('a.bar[data-sequence="100"] rect').boundingBox())!;
          const last = (await page.locator('a.bar[data-sequence="119"] rect').boundingBox())!;
          expect(Math.abs(first.x - chart.x)).toBeLessThan(2);
          expect(Math.abs(last.x + last.width - (chart.x + chart.width))).toBeLessThan(2);
          expect(await axeViolations(page)).toEqual([]);
          await expectNoSidewaysScroll(page);

          await page.locator('a[data-zoom-link="in"]').click();
          await page.waitForURL(/from=105&to=115/);
          expect(await page.locator('svg.waterfall-chart a.bar').count()).toBe(10);
          await page.locator('a[data-zoom-link="out"]').click();
          await page.waitForURL(/from=100&to=120/);
          await page.locator('a[data-zoom-link="reset"]').click();
          await page.waitForURL(/from=100&lang=/);
          expect(await page.locator('svg.waterfall-chart a.bar').count()).toBe(200);
          expect(await page.locator('nav.zoom').getAttribute('data-zoom')).toBe('page');

          const bad = await page.goto(`${suite.app.url}runs/${longId}?from=120&to=100&lang=${lang}`);
          expect(bad?.status()).toBe(400);
          expect(await page.locator('main').innerText()).toContain(
            lang === 'en'
              ? 'Parameter “to”: must be greater than from (120); it is 100.'
              : 'Parameter „to“: muss größer sein als from (120); er ist 100.',
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
