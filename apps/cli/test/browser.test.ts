// The runs app in a real browser: Debian's Chromium driven by playwright-core, against a store
// filled by the real demo flow (the bundled MCP servers as child processes).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ToolOutcome } from '@runledger/core';
import { startRun } from '@runledger/trace';
import type { Page } from 'playwright-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DemoAgent } from '../src/demo/DemoAgent.js';
import { type DemoServers, startDemoServers } from '../src/demo/DemoServers.js';
import { runDemo } from '../src/demo/runDemo.js';
import { axeViolations as axeViolationsIn, chromiumAvailable, pageWidths, pageWithoutDialogs, useBrowserApp } from './browserHarness.js';

const available = chromiumAvailable('runs app in a real browser');
const SCREENSHOTS = process.env['RUNLEDGER_SCREENSHOTS'] === '1';
const IMAGES = fileURLToPath(new URL('../../../docs/images', import.meta.url));
const SCRIPT_TOOL = 'mcp_docs_<script>window.__pwned=1</script>';

// 60 s a test: one page or two each, a few seconds on a busy CI machine; the rest is headroom for a slower one.
describe.skipIf(!available)('runs app in a real browser', { timeout: 60_000 }, () => {
  let servers: DemoServers;
  let page: Page;

  // Chromium starts while the demo records (real MCP child processes, reused for the slow run).
  const suite = useBrowserApp('browser', async (dir) => {
    const t0 = Date.now();
    const lap = (what: string) => process.env['RUNLEDGER_TIMING'] === '1' && console.log(what, Date.now() - t0);
    servers = await startDemoServers();
    lap('servers');
    try {
      const { store } = await runDemo({ dbPath: join(dir, 'runledger.db'), servers });
      lap('demo');
      return { store, close: () => servers.close() };
    } catch (error) {
      await servers.close();
      throw error;
    }
  });

  // Each test has a page of its own (1280 × 800, the context's viewport): a test that ran out of
  // time cannot navigate the next one's page, and its late calls end when its page closes.
  beforeEach(async () => {
    page = await pageWithoutDialogs(suite.context);
  });

  afterEach(async () => {
    await page?.close();
  });

  async function shoot(name: string, fullPage = false): Promise<void> {
    if (!SCREENSHOTS) return;
    mkdirSync(IMAGES, { recursive: true });
    await page.screenshot({ path: join(IMAGES, name), fullPage });
  }

  it('opens the list and the cancelled run: "cancelled" in English, "abgebrochen" in German, neutral not red', async () => {
    await page.goto(suite.app.url);
    await expect.poll(() => page.locator('tr[data-run-id]').count()).toBe(6);
    await shoot('runs-list.png');
    const cancelledRow = page.locator('tr[data-status="cancelled"]').first();
    await expect.poll(() => cancelledRow.locator('.badge[data-status]').innerText()).toContain('cancelled');
    await cancelledRow.locator('a.mono').click();
    await page.waitForURL(/\/runs\//);
    const outcomes = page.locator('table.timeline td.outcome');
    const english = await outcomes.allInnerTexts();
    expect(english.filter((text) => text.includes('cancelled'))).toHaveLength(2);
    expect(english.filter((text) => text.includes('ok'))).toHaveLength(1);
    expect(await page.locator('tr[data-lifecycle="cancel_requested"]').innerText()).toContain('Cancel requested');
    expect(await page.locator('tr[data-lifecycle="cancelled"]').innerText()).toContain('Run cancelled');
    expect(await page.locator('.note-privacy').innerText()).toContain('never shown here');
    const badge = page.locator('td.outcome .badge-cancelled').first();
    const colours = await badge.evaluate((el) => {
      // runs in the page; the test's tsconfig has no DOM lib
      const style = (
        globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string; color: string } }
      ).getComputedStyle(el);
      return `${style.backgroundColor} ${style.color}`;
    });
    expect(colours).toBe('rgb(234, 238, 242) rgb(66, 74, 83)');
    await shoot('run-timeline.png', true);

    await page.locator('nav.lang a[hreflang="de"]').click();
    await page.waitForURL(/lang=de/);
    expect(await page.locator('html').getAttribute('lang')).toBe('de');
    const german = await page.locator('table.timeline td.outcome').allInnerTexts();
    expect(german.filter((text) => text.includes('abgebrochen'))).toHaveLength(2);
    expect(await page.locator('table.timeline th').allInnerTexts()).toContain('ERGEBNIS');
  });

  it('flags the flaky server with a failure rate that excludes the cancellation', async () => {
    const health = await suite.store.serverHealth();
    const flaky = health.find((row) => row.server === 'flaky')!;
    expect(flaky.cancelled).toBe(1);
    expect(flaky.failureRate).toBeCloseTo(flaky.failed / (flaky.ok + flaky.failed), 10);
    await page.goto(`${suite.app.url}servers?lang=en`);
    const row = page.locator('tr[data-server="flaky"]');
    expect(await row.getAttribute('data-flaky')).toBe('true');
    const text = await row.innerText();
    expect(text).toContain('flaky');
    const shown = `${(Math.round((flaky.failed / (flaky.ok + flaky.failed)) * 1000) / 10).toFixed(1)}%`;
    expect(text).toContain(shown);
    const counted = `${(Math.round((flaky.failed / flaky.calls) * 1000) / 10).toFixed(1)}%`;
    expect(text).not.toContain(counted);
    expect(text).toContain('1 cancelled, not counted');
    // worst failure rate first
    expect(await page.locator('tbody tr[data-server]').first().getAttribute('data-server')).toBe('flaky');
    await shoot('servers.png');
  });

  it('cancels a running slow call from the browser: the step and the run end cancelled', async () => {
    const run = await startRun(suite.store, { configuration: 'browser-cancel', actor: 'browser test', cancelPollMs: 50 });
    const agent = new DemoAgent(run.trace, run.signal);
    const call = agent.call(servers.tool('mcp_slow_export_report'), { report: 'browser', seconds: 120 }, { writes: true });
    const finished = call.then(() => run.complete());
    await page.goto(`${suite.app.url}runs/${run.id}`);
    expect(await page.locator('.badge[data-status]').first().innerText()).toContain('running');
    // what the Cancel button will stop: the call on the wire, with tool, server, when sent and for how long —
    // put into the open page by the live script, never by a reload
    await page.evaluate(() => Object.assign(globalThis, { __sameDocument: true }));
    await expect.poll(() => page.locator('section.wire tbody tr').count(), { timeout: 15_000 }).toBe(1);
    expect(await page.locator('section.wire tbody tr').innerText()).toMatch(
      /mcp_slow_export_report\s+slow\s+\d\d:\d\d:\d\d\.\d{3}\s+\d+(\.\d+)? (ms|s)/,
    );
    expect(await page.locator('tr[data-call-state="on_the_wire"] td.outcome').innerText()).toContain('on the wire');
    await shoot('run-live.png');
    await page.locator('button[data-action="cancel"]').click();
    await page.waitForURL(new RegExp(`/runs/${run.id}$`));
    const result = await call;
    expect(result.outcome).toBe('cancelled');
    expect((await finished).status).toBe('cancelled');
    // the cancel's answer page (a new document) follows the run to its end in place
    await page.evaluate(() => Object.assign(globalThis, { __sameDocument: true }));
    await expect.poll(() => page.locator('.badge[data-status]').first().innerText(), { timeout: 15_000 }).toContain('cancelled');
    // (live when the answer page found the run still running: its note then says it ended)
    if ((await page.locator('[data-live-state]').count()) > 0) {
      expect(await page.locator('[data-live-state]').innerText()).toBe('The run has ended; the page shows how.');
    }
    expect(await page.evaluate(() => (globalThis as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
    const cancelledStep = page.locator('tr[data-outcome="cancelled"]');
    expect(await cancelledStep.locator('td.outcome').innerText()).toContain('cancelled');
    expect(await cancelledStep.locator('td.details').innerText()).toContain('mcp_slow_export_report');
    expect(await page.locator('tr[data-lifecycle="cancel_requested"]').count()).toBe(1);
    expect(await page.locator('tr[data-lifecycle="cancelled"]').count()).toBe(1);
    expect(await page.locator('tr[data-outcome="cancelled"]').count()).toBe(1);
    expect(await page.locator('button[data-action="cancel"]').count()).toBe(0);
  });

  for (const lang of ['en', 'de']) {
    it(`at 420 px wide the Outcome column of the timeline is visible without scrolling the page sideways (${lang})`, async () => {
      const cancelled = (await suite.store.listRuns({ status: 'cancelled', configuration: 'report-agent', limit: 1 })).runs[0]!;
      await page.setViewportSize({ width: 420, height: 900 });
      await page.goto(`${suite.app.url}runs/${cancelled.id}?lang=${lang}`);
      const widths = await pageWidths(page);
      expect(widths.client).toBeLessThanOrEqual(420);
      expect(widths.scroll, `the page scrolls sideways in ${lang}`).toBeLessThanOrEqual(widths.client);
      expect(await page.locator('table.timeline td.outcome .badge[data-outcome]').count()).toBe(3);
      // every badge of the column: the outcomes and any note beside them
      const outcomes = await boxes('table.timeline td.outcome .badge');
      for (const box of outcomes) {
        expect(box.width).toBeGreaterThan(0);
        expect(box.left).toBeGreaterThanOrEqual(0);
        expect(box.right).toBeLessThanOrEqual(widths.client);
      }
      if (lang === 'en') await shoot('run-timeline-narrow.png', true);
    });
  }

  /** A step as the recorder stores it, stamped at its end (`at`) with its duration. */
  async function append(
    runId: string,
    step: { kind: 'llm' | 'tool' | 'tool_start'; at: number; durationMs: number; tool?: string; outcome?: ToolOutcome; callId?: string },
  ): Promise<void> {
    const server = step.tool?.split('_')[1] ?? null;
    const payload: Record<string, unknown> =
      step.kind === 'llm'
        ? { kind: 'llm', model: 'demo-model', round: 1, durationMs: step.durationMs }
        : { kind: step.kind, toolName: step.tool, toolServer: server, toolCallId: step.callId, round: 1, durationMs: step.durationMs };
    if (step.outcome !== undefined) Object.assign(payload, { toolIsError: step.outcome !== 'ok', toolOutcome: step.outcome });
    await suite.store.appendStep(runId, {
      kind: step.kind,
      round: 1,
      durationMs: step.durationMs,
      createdAt: step.at,
      payload,
      toolServer: step.kind === 'llm' ? null : server,
      toolOutcome: step.outcome ?? null,
    });
  }

  /** The computed colours of the elements a selector finds: an SVG fill, or a badge's border. */
  function colours(selector: string, property: 'fill' | 'borderTopColor'): Promise<string[]> {
    return page
      .locator(selector)
      .evaluateAll(
        (els, prop) =>
          els.map((el) => (globalThis as unknown as { getComputedStyle(e: unknown): Record<string, string> }).getComputedStyle(el)[prop]!),
        property,
      );
  }

  /** Runs axe-core in the page (injected through the debugging protocol, so the page's CSP stays as served). */
  function axeViolations(): Promise<string[]> {
    return axeViolationsIn(page);
  }

  it('draws the waterfall: parallel calls side by side, bars coloured as the badges (cancelled grey, never red), each a link to its row; axe finds nothing', async () => {
    const t0 = Date.now() - 60_000;
    const created = await suite.store.createRun({ configuration: 'waterfall-parallel', actor: 'browser test', createdAt: t0 });
    await append(created.id, { kind: 'llm', at: t0 + 400, durationMs: 380 });
    // two calls sent together after the model answered: on the wire at the same time
    await append(created.id, { kind: 'tool', at: t0 + 900, durationMs: 480, tool: 'mcp_docs_search', outcome: 'ok' });
    await append(created.id, { kind: 'tool', at: t0 + 1_300, durationMs: 870, tool: 'mcp_slow_export_report', outcome: 'cancelled' });
    await append(created.id, { kind: 'tool', at: t0 + 1_600, durationMs: 200, tool: 'mcp_flaky_fetch_metrics', outcome: 'failed' });
    const run = await suite.store.finishRun(created.id, { status: 'completed', finishedAt: t0 + 1_700 });

    for (const lang of ['en', 'de']) {
      await page.goto(`${suite.app.url}runs/${run.id}?lang=${lang}`);
      const chart = page.locator('svg.waterfall-chart');
      expect(await chart.getAttribute('data-lanes')).toBe('2');
      expect(await page.locator('svg.waterfall-chart a.bar').count()).toBe(4);
      const box = async (sequence: number) => (await page.locator(`a.bar[data-sequence="${sequence}"] rect`).boundingBox())!;
      const [llm, ok, cancelled, failed] = [await box(0), await box(1), await box(2), await box(3)];
      // side by side: the two parallel calls share time (x) on rows of their own (y)
      expect(cancelled.x).toBeLessThan(ok.x + ok.width);
      expect(ok.x).toBeLessThan(cancelled.x + cancelled.width);
      expect(cancelled.y).toBeGreaterThanOrEqual(ok.y + ok.height);
      // later steps run left to right on the shared axis
      expect(llm.x + llm.width).toBeLessThanOrEqual(ok.x + 1);
      expect(failed.x).toBeGreaterThan(ok.x + ok.width - 1);
      expect(failed.y).toBe(ok.y);
      expect(await page.locator('a.bar[data-sequence="2"]').getAttribute('aria-label')).toBe(
        lang === 'en'
          ? 'Step 3, tool call, mcp_slow_export_report on slow, cancelled, 870 ms'
          : 'Schritt 3, Tool-Aufruf, mcp_slow_export_report auf slow, abgebrochen, 870 ms',
      );
      // the table stays below, with the exact figures in the one duration format
      expect(await page.locator('table.timeline tr[data-sequence="2"] td.duration').innerText()).toBe('870 ms');
      expect(await axeViolations(), `axe on the run page (${lang})`).toEqual([]);
      if (lang === 'en') await shoot('run-waterfall.png');
    }

    // a bar's colour is its outcome badge's colour; cancelled is the neutral grey, never red
    for (const outcome of ['ok', 'failed', 'cancelled'] as const) {
      const [bar] = await colours(`a.bar[data-state="${outcome}"] rect`, 'fill');
      const [badge] = await colours(`table.timeline td.outcome .badge-${outcome}`, 'borderTopColor');
      expect(bar, outcome).toBe(badge);
    }
    const [cancelledFill] = await colours('a.bar[data-state="cancelled"] rect', 'fill');
    const [failedFill] = await colours('a.bar[data-state="failed"] rect', 'fill');
    expect(cancelledFill).toBe('rgb(175, 184, 193)');
    expect(cancelledFill).not.toBe(failedFill);
    const [r, g, b] = cancelledFill!.match(/\d+/g)!.map(Number);
    expect(Math.max(r!, g!, b!) - Math.min(r!, g!, b!), 'grey, not red').toBeLessThan(30);

    // a bar leads to its row in the table below
    await page.locator('a.bar[data-sequence="2"]').click();
    await page.waitForURL(/#step-2$/);
    expect(await page.locator('tr:target').getAttribute('data-outcome')).toBe('cancelled');
  });

  it('grows the call on the wire up to now while the run runs; axe finds nothing on the running run page', async () => {
    const t0 = Date.now() - 5_000;
    const created = await suite.store.createRun({ configuration: 'waterfall-running', actor: 'browser test', createdAt: t0 });
    await append(created.id, { kind: 'llm', at: t0 + 300, durationMs: 250 });
    await append(created.id, { kind: 'tool_start', at: t0 + 400, durationMs: 0, tool: 'mcp_slow_export_report', callId: 'call-1' });
    await append(created.id, { kind: 'tool', at: t0 + 800, durationMs: 400, tool: 'mcp_docs_search', outcome: 'ok', callId: 'call-0' });
    try {
      const running = async () => {
        await page.goto(`${suite.app.url}runs/${created.id}`);
        const bar = page.locator('a.bar[data-state="running"]');
        const rect = (await bar.locator('rect').boundingBox())!;
        const chart = (await page.locator('svg.waterfall-chart').boundingBox())!;
        return { label: (await bar.getAttribute('aria-label'))!, right: rect.x + rect.width, chartRight: chart.x + chart.width, rect };
      };
      const first = await running();
      expect(first.label).toMatch(/^Step 2, tool call sent, mcp_slow_export_report on slow, on the wire, running for [\d.]+ sec$/);
      // drawn up to now: the right end of the axis
      expect(Math.abs(first.right - first.chartRight)).toBeLessThan(2);
      const [fill] = await colours('a.bar[data-state="running"] rect', 'fill');
      const [badge] = await colours('td.outcome .badge-running', 'borderTopColor');
      expect(fill).toBe(badge);
      expect(await axeViolations(), 'axe on the running run page').toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const later = await running();
      const seconds = (label: string) => Number(/running for ([\d.]+) sec/.exec(label)![1]);
      expect(seconds(later.label)).toBeGreaterThan(seconds(first.label));
      // the finished call before it takes a smaller share of the grown axis: the running bar grew
      expect(later.rect.width).toBeGreaterThan(first.rect.width);
    } finally {
      await suite.store.finishRun(created.id, { status: 'cancelled', finishedAt: Date.now() });
    }
  });

  /** The boxes of the elements a selector finds, as drawn (a box cut off by a scrolled table still reports where it is). */
  function boxes(selector: string): Promise<{ left: number; right: number; width: number; height: number }[]> {
    return page
      .locator(selector)
      .evaluateAll((els) =>
        els.map((el) =>
          (
            el as unknown as { getBoundingClientRect(): { left: number; right: number; width: number; height: number } }
          ).getBoundingClientRect(),
        ),
      );
  }

  describe('at 420 px wide the runs list, a run page and the servers page keep status, outcome counts, failure rate and health on screen; axe finds nothing', () => {
    const pages: { path: (cancelledRunId: string) => string; name: string; shot?: string; shows: Record<string, string> }[] = [
      {
        path: () => '',
        name: 'the runs list',
        shot: 'runs-list-narrow.png',
        shows: {
          status: 'tr[data-run-id] .badge[data-status]',
          'outcome counts': 'tr[data-run-id] .counts .badge',
          run: 'tr[data-run-id] a.mono',
        },
      },
      {
        path: (cancelledRunId) => `runs/${cancelledRunId}`,
        name: 'a run page',
        shows: {
          status: 'dl.summary .badge[data-status]',
          'outcome counts': 'dl.summary .counts .badge',
          outcome: 'table.timeline td.outcome .badge',
        },
      },
      {
        path: () => 'servers',
        name: 'the servers page',
        shot: 'servers-narrow.png',
        shows: {
          server: 'tr[data-server] > th',
          'calls and outcome counts': 'tr[data-server] > td.num',
          'failure rate': 'tr[data-server] .rate',
          health: 'tr[data-server] > td.health .badge',
        },
      },
    ];
    for (const lang of ['en', 'de']) {
      for (const shown of pages) {
        it(`${shown.name} (${lang})`, async () => {
          const cancelled = (await suite.store.listRuns({ status: 'cancelled', configuration: 'report-agent', limit: 1 })).runs[0]!;
          await page.setViewportSize({ width: 420, height: 900 });
          await page.goto(`${suite.app.url}${shown.path(cancelled.id)}?lang=${lang}`);
          const where = `${shown.name} (${lang})`;
          const widths = await pageWidths(page);
          expect(widths.client).toBeLessThanOrEqual(420);
          expect(widths.scroll, `${where} scrolls sideways`).toBeLessThanOrEqual(widths.client);
          for (const [what, selector] of Object.entries(shown.shows)) {
            const found = await boxes(selector);
            expect(found.length, `${where}: no ${what}`).toBeGreaterThan(0);
            for (const box of found) {
              expect(box.width * box.height, `${where}: ${what} not drawn`).toBeGreaterThan(0);
              expect(box.left, `${where}: ${what} cut off on the left`).toBeGreaterThanOrEqual(0);
              expect(box.right, `${where}: ${what} off screen on the right`).toBeLessThanOrEqual(widths.client);
            }
          }
          expect(await axeViolations(), `axe on ${where} at 420 px`).toEqual([]);
          if (lang === 'en' && shown.shot !== undefined) await shoot(shown.shot, true);
        });
      }
    }
  });

  it('renders a tool name containing <script> as text', async () => {
    const escaping = await startRun(suite.store, { configuration: 'escaping <b>check</b>' });
    await escaping.trace.recordToolExecution({
      toolName: SCRIPT_TOOL,
      toolServer: 'docs',
      toolResult: 'fine',
      isError: false,
      round: 1,
      durationMs: 3,
    });
    await escaping.complete();
    const scriptRunId = escaping.id;
    await page.goto(`${suite.app.url}runs/${scriptRunId}`);
    const details = await page.locator('tr[data-outcome="ok"] td.details').innerText();
    expect(details).toContain(SCRIPT_TOOL);
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('script').count()).toBe(0);
    expect(await page.locator('h1 + section, main').first().innerText()).toContain('escaping <b>check</b>');
  });

  describe('servers over time (issue 32 item 2)', () => {
    /** Every element a selector finds lies within the screen's width and is drawn. */
    async function allOnScreen(selector: string, where: string, client: number): Promise<number> {
      const found = await boxes(selector);
      for (const box of found) {
        expect(box.width * box.height, `${where}: ${selector} not drawn`).toBeGreaterThan(0);
        expect(box.left, `${where}: ${selector} cut off on the left`).toBeGreaterThanOrEqual(0);
        expect(box.right, `${where}: ${selector} off screen on the right`).toBeLessThanOrEqual(client);
      }
      return found.length;
    }

    for (const width of [1280, 420]) {
      for (const lang of ['en', 'de']) {
        it(`the servers page draws two small charts per server, named for screen readers; axe finds nothing (${width} px, ${lang})`, async () => {
          await page.setViewportSize({ width, height: 900 });
          await page.goto(`${suite.app.url}servers?window=7d&lang=${lang}`);
          const where = `servers page at ${width} px (${lang})`;
          const rows = await page.locator('tr[data-server]').count();
          expect(rows).toBeGreaterThan(0);
          expect(await page.locator('tr[data-server] svg.spark[role="img"]').count()).toBe(2 * rows);
          const name = await page
            .locator('tr[data-server="flaky"] svg.spark[data-metric="failureRate"]')
            .evaluate((el) => (el as unknown as { querySelector(s: string): { textContent: string } }).querySelector('title').textContent);
          expect(name).toMatch(lang === 'en' ? /^Failure rate per day: peak \d/ : /^Fehlerquote je Tag: Höchstwert \d/);
          const widths = await pageWidths(page);
          expect(widths.scroll, `${where} scrolls sideways`).toBeLessThanOrEqual(widths.client);
          expect(await allOnScreen('tr[data-server] svg.spark', where, widths.client)).toBe(2 * rows);
          expect(await axeViolations(), `axe on ${where}`).toEqual([]);
        });
      }
    }

    it("a server's name on the servers page leads to its page", async () => {
      await page.goto(`${suite.app.url}servers?window=all`);
      await page.locator('tr[data-server="flaky"] th a').click();
      await page.waitForURL(/\/servers\/flaky\?window=all$/);
      expect(await page.locator('h1').innerText()).toBe('MCP server flaky');
    });

    for (const width of [1280, 420]) {
      for (const lang of ['en', 'de']) {
        it(`a server page shows its health, both charts with axes and its failed calls; axe finds nothing (${width} px, ${lang})`, async () => {
          await page.setViewportSize({ width, height: 900 });
          await page.goto(`${suite.app.url}servers/flaky?lang=${lang}`);
          const where = `server page at ${width} px (${lang})`;
          const widths = await pageWidths(page);
          expect(widths.scroll, `${where} scrolls sideways`).toBeLessThanOrEqual(widths.client);
          await allOnScreen('[data-section="health"] .badge', where, widths.client);
          expect(await allOnScreen('[data-section="health"] .rate', where, widths.client)).toBe(1);
          expect(await allOnScreen('svg.trend-chart', where, widths.client)).toBe(2);
          expect(await allOnScreen('.trend-x span', where, widths.client)).toBe(4);
          expect(await page.locator('svg.trend-chart circle').count()).toBeGreaterThan(0);
          expect(await page.locator('table.failing-calls tbody tr').count()).toBeGreaterThan(0);
          await allOnScreen('table.failing-calls td.run a', where, widths.client);
          expect(await axeViolations(), `axe on ${where}`).toEqual([]);
          if (lang === 'en') await shoot(width === 420 ? 'server-narrow.png' : 'server.png', true);
        });
      }
    }

    it("a server page's figures open without script, and a failed call leads to its step and back", async () => {
      // the figures behind the charts open without script
      await page.goto(`${suite.app.url}servers/flaky?window=all`);
      await page.locator('details.trend-figures summary').click();
      expect(await page.locator('details.trend-figures tbody tr').count()).toBe(30);
      // a failed call leads to its row on its run's page
      const first = page.locator('table.failing-calls tbody tr').first();
      const sequence = await first.getAttribute('data-sequence');
      await first.locator('td.run a').click();
      await page.waitForURL(new RegExp(`/runs/[0-9a-f-]+(\\?from=\\d+)?#step-${sequence}$`));
      expect(await page.locator('tr:target').getAttribute('data-outcome')).toBe('failed');
      // and the run page leads back to the server: its source and tool name are links
      await page.locator('tr:target td.source a').click();
      await page.waitForURL(/\/servers\/flaky$/);
      expect(await page.locator('h1').innerText()).toBe('MCP server flaky');
    });
  });

  describe('find a run: the filtered runs list (issue 32 item 3)', () => {
    /** The filters asked of the demo's runs: ops-agent runs with an ended call to the flaky server. */
    const FILTERED = 'configuration=ops-agent&server=flaky';

    for (const width of [1280, 420]) {
      for (const lang of ['en', 'de']) {
        it(`the list filtered by configuration and server, with its totals; axe finds nothing (${width} px, ${lang})`, async () => {
          const expected = await suite.store.listRuns({ configuration: 'ops-agent', server: 'flaky', limit: 50 });
          expect(expected.runs.length).toBeGreaterThan(0);
          const totals = await suite.store.runTotals({ configuration: 'ops-agent', server: 'flaky' });
          expect(totals.tokens).toBeGreaterThan(0);
          await page.setViewportSize({ width, height: 900 });
          const where = `the filtered list at ${width} px (${lang})`;
          await page.goto(`${suite.app.url}?${FILTERED}&lang=${lang}`);
          expect(await page.locator('tr[data-run-id]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-run-id')))).toEqual(
            expected.runs.map((run) => run.id),
          );
          // the form shows what was asked
          expect(await page.locator('#filter-configuration').inputValue()).toBe('ops-agent');
          expect(await page.locator('#filter-server').inputValue()).toBe('flaky');
          const line = await page.locator('p.totals').innerText();
          expect(line).toBe(
            lang === 'en'
              ? `${totals.runs} runs · ${totals.tokens.toLocaleString('en-US')} tokens`
              : `${totals.runs} Läufe · ${totals.tokens.toLocaleString('de-DE')} Tokens`,
          );
          // status and outcome counts stay on screen; the tokens column only where there is room
          const widths = await pageWidths(page);
          expect(widths.scroll, `${where} scrolls sideways`).toBeLessThanOrEqual(widths.client);
          for (const selector of ['tr[data-run-id] .badge[data-status]', 'tr[data-run-id] .counts .badge', 'p.totals', '#filter-server']) {
            for (const box of await boxes(selector)) {
              expect(box.width * box.height, `${where}: ${selector} not drawn`).toBeGreaterThan(0);
              expect(box.left, `${where}: ${selector}`).toBeGreaterThanOrEqual(0);
              expect(box.right, `${where}: ${selector}`).toBeLessThanOrEqual(widths.client);
            }
          }
          expect(await page.locator('td.tokens').first().isVisible()).toBe(width > 800);
          expect(await axeViolations(), `axe on ${where}`).toEqual([]);
          if (lang === 'en') await shoot(width === 1280 ? 'runs-filtered.png' : 'runs-filtered-narrow.png', true);
        });
      }
    }

    it('the form works without script: typed filters go into the address and survive the language switch', async () => {
      await page.goto(`${suite.app.url}?lang=en`);
      await page.locator('#filter-title').fill('EXPORT');
      await page.locator('select[name="status"]').selectOption('completed');
      await page.locator('form.filters button[type="submit"]').click();
      await page.waitForURL(/title=EXPORT/);
      const expected = await suite.store.listRuns({ titleContains: 'EXPORT', status: 'completed', limit: 50 });
      expect(expected.runs.length).toBeGreaterThan(0);
      expect(await page.locator('tr[data-run-id]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-run-id')))).toEqual(
        expected.runs.map((run) => run.id),
      );
      await page.locator('nav.lang a[hreflang="de"]').click();
      await page.waitForURL(/lang=de/);
      expect(await page.locator('#filter-title').inputValue()).toBe('EXPORT');
      expect(await page.locator('select[name="status"]').inputValue()).toBe('completed');
      expect(await page.locator('tr[data-run-id]').count()).toBe(expected.runs.length);
    });

    for (const lang of ['en', 'de']) {
      it(`a bad filter: the form again, the message naming the field and linked to it, 400, axe finds nothing (${lang})`, async () => {
        const response = await page.goto(`${suite.app.url}?from=gestern&configuration=ops-agent&lang=${lang}`);
        expect(response?.status()).toBe(400);
        const message = await page.locator('#filter-from-error').innerText();
        expect(message).toBe(
          lang === 'en'
            ? 'Started from: "gestern" is not a date and time such as 2026-11-30T08:00 from 1970 on.'
            : 'Gestartet ab: „gestern“ ist kein Datum mit Uhrzeit wie 2026-11-30T08:00 ab 1970.',
        );
        expect(await page.locator('#filter-from').getAttribute('aria-invalid')).toBe('true');
        expect(await page.locator('#filter-configuration').inputValue()).toBe('ops-agent');
        expect(await page.locator('tr[data-run-id]').count()).toBe(0);
        expect(await axeViolations(), `axe on the refused filter (${lang})`).toEqual([]);
        await page.locator('#filter-from-error a').click();
        expect(
          await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { id: string } } }).document.activeElement.id),
        ).toBe('filter-from');
      });
    }
  });
});
