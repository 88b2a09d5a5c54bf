// One voice, as a person sees it (issue 40 item 6): the German servers page at 1280 px shows each
// health badge whole (it was cut by its column), and the run page's calls-on-the-wire table at
// 420 px shows its "Running for" column (it was scrolled out of sight) — axe-core finds nothing,
// in English and German, and no page scrolls sideways. Debian's Chromium, a real SQLite file, the
// real app server.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { axeViolations, chromiumAvailable, expectNoSidewaysScroll, storeIn, useBrowserApp } from './browserHarness.js';
import { type SeedCall, seedRun } from './seedRun.js';

const available = chromiumAvailable('one voice in a real browser');

/** `n` calls of one kind. */
function calls(n: number, call: SeedCall): SeedCall[] {
  return Array.from({ length: n }, () => call);
}

/** How an element's box sits: its text's full width against its own, and its box against its cell's. */
interface Fit {
  readonly text: string;
  readonly scrollWidth: number;
  readonly clientWidth: number;
  readonly left: number;
  readonly right: number;
  readonly cellLeft: number;
  readonly cellRight: number;
  readonly visible: boolean;
}

/** Each element the selector finds: whether its text is whole and inside its cell, and inside the table's visible area. */
function fits(page: Page, selector: string): Promise<Fit[]> {
  return page.locator(selector).evaluateAll((els) =>
    els.map((el) => {
      type Box = { left: number; right: number };
      type El = {
        innerText: string;
        scrollWidth: number;
        clientWidth: number;
        getBoundingClientRect(): Box;
        closest(s: string): El | null;
      };
      const node = el as unknown as El;
      const cell = node.closest('td,th') ?? node;
      const wrap = node.closest('.table-wrap') ?? cell;
      const box = node.getBoundingClientRect();
      const cellBox = cell.getBoundingClientRect();
      const wrapBox = wrap.getBoundingClientRect();
      const style = (globalThis as unknown as { getComputedStyle(e: unknown): { display: string; visibility: string } }).getComputedStyle(
        el,
      );
      return {
        text: node.innerText,
        scrollWidth: node.scrollWidth,
        clientWidth: node.clientWidth,
        left: box.left,
        right: box.right,
        cellLeft: cellBox.left,
        cellRight: cellBox.right,
        // drawn, and not scrolled out of the table's visible area
        visible:
          style.display !== 'none' &&
          style.visibility !== 'hidden' &&
          box.right - box.left > 0 &&
          box.left >= wrapBox.left - 0.5 &&
          box.right <= wrapBox.right + 0.5,
      };
    }),
  );
}

describe.skipIf(!available)('one voice in a real browser', { timeout: 120_000 }, () => {
  let runningId: string;

  const suite = useBrowserApp('voice', async (dir) => {
    const store = await storeIn(dir);
    const at = Date.now() - 3_600_000;
    // every verdict, with what stands beside the rate: cancellations, calls not charged, causes
    await seedRun(store, {
      configuration: 'voice',
      createdAt: at,
      calls: [
        ...calls(6, { server: 'flaky', tool: 'search', outcome: 'ok', durationMs: 120 }),
        ...calls(4, { server: 'flaky', tool: 'search', outcome: 'failed', cause: 'server_error', durationMs: 80 }),
        ...calls(2, { server: 'flaky', tool: 'search', outcome: 'failed', cause: 'mcp_timeout', durationMs: 30_000 }),
        ...calls(2, { server: 'flaky', tool: 'search', outcome: 'failed', cause: 'invalid_arguments' }),
        ...calls(2, { server: 'flaky', tool: 'search', outcome: 'cancelled' }),
        ...calls(8, { server: 'healthy-docs-server', tool: 'read', outcome: 'ok', durationMs: 65_000 }),
        ...calls(2, { server: 'thin', tool: 'export', outcome: 'failed', cause: 'mcp_transport_failure' }),
        ...calls(2, { server: 'silent', tool: 'ping', outcome: 'cancelled' }),
      ],
    });
    // a running run with a call on the wire (sent, not answered)
    const running = await store.createRun({ configuration: 'voice-running', actor: 'browser test', createdAt: Date.now() - 5_000 });
    runningId = running.id;
    await store.appendStep(running.id, {
      kind: 'tool_start',
      round: 1,
      durationMs: 0,
      createdAt: Date.now() - 4_000,
      payload: {
        kind: 'tool_start',
        toolName: 'mcp_slow_export_quarterly_report',
        toolServer: 'slow',
        toolCallId: 'call-1',
        round: 1,
        durationMs: 0,
      },
      toolServer: 'slow',
      toolOutcome: null,
    });
    // the running run ends before the store closes
    return { store, close: () => store.finishRun(running.id, { status: 'cancelled', finishedAt: Date.now() }).catch(() => undefined) };
  });

  for (const lang of ['de', 'en'] as const) {
    for (const width of [1280, 420]) {
      it(`the servers page shows every health badge whole, ${lang} at ${width} px`, async () => {
        const page = await suite.context.newPage();
        try {
          await page.setViewportSize({ width, height: 900 });
          await page.goto(`${suite.app.url}servers?window=all&lang=${lang}`);
          const badges = await fits(page, 'td.health .badge');
          expect(badges.map((badge) => badge.text)).toEqual(
            lang === 'de'
              ? ['unzuverlässig', 'zu wenige Aufrufe', 'stabil', 'keine Antworten'].map((text) => expect.stringContaining(text))
              : ['flaky', 'too few calls', 'healthy', 'no answers'].map((text) => expect.stringContaining(text)),
          );
          for (const badge of badges) {
            expect(badge.scrollWidth, `${badge.text}: its text is wider than its box`).toBeLessThanOrEqual(badge.clientWidth);
            expect(badge.left, `${badge.text}: starts before its cell`).toBeGreaterThanOrEqual(badge.cellLeft - 0.5);
            expect(badge.right, `${badge.text}: runs past its cell`).toBeLessThanOrEqual(badge.cellRight + 0.5);
            expect(badge.visible, `${badge.text}: not in sight`).toBe(true);
          }
          expect(await axeViolations(page)).toEqual([]);
          await expectNoSidewaysScroll(page);
        } finally {
          await page.close();
        }
      });

      it(`the run page shows the calls on the wire with how long each runs, ${lang} at ${width} px`, async () => {
        const page = await suite.context.newPage();
        try {
          await page.setViewportSize({ width, height: 900 });
          await page.goto(`${suite.app.url}runs/${runningId}?lang=${lang}`);
          const [header] = await fits(page, 'table.wire-calls thead th:last-child');
          expect(header?.text.toLowerCase()).toBe(lang === 'de' ? 'läuft seit' : 'running for');
          expect(header?.visible, 'the "Running for" column is in sight').toBe(true);
          const [running] = await fits(page, 'table.wire-calls tbody td:last-child');
          expect(running?.text).toMatch(/^\d+([.,]\d+)? (sec|Sek\.)$/);
          expect(running?.visible, 'how long the call runs is in sight').toBe(true);
          expect(await axeViolations(page)).toEqual([]);
          await expectNoSidewaysScroll(page);
        } finally {
          await page.close();
        }
      });
    }
  }
});
