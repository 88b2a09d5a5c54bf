// The runs app in a real browser: Debian's Chromium driven by playwright-core, against a store
// filled by the real demo flow (the bundled MCP servers as child processes).
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SqliteRunStore } from '@runledger/store-sqlite';
import { startRun } from '@runledger/trace';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunsServer, startRunsServer } from '../src/app/startRunsServer.js';
import { DemoAgent } from '../src/demo/DemoAgent.js';
import { type DemoServers, startDemoServers } from '../src/demo/DemoServers.js';
import { runDemo } from '../src/demo/runDemo.js';

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
];
const available = existsSync(CHROMIUM);
const SCREENSHOTS = process.env['RUNLEDGER_SCREENSHOTS'] === '1';
const IMAGES = fileURLToPath(new URL('../../../docs/images/', import.meta.url));
const SCRIPT_TOOL = 'mcp_docs_<script>window.__pwned=1</script>';

if (!available) {
  if (process.env['CI'] === 'true') {
    describe('runs app in a real browser', () => {
      it('needs Chromium', () => {
        throw new Error(
          `Chromium is missing at ${CHROMIUM}: the browser tests cannot run. Install it (apt-get install -y chromium) or point CHROMIUM_PATH at it; under CI=true this fails rather than skips.`,
        );
      });
    });
  } else {
    console.warn(
      `browser tests skipped: no Chromium at ${CHROMIUM} (set CHROMIUM_PATH, or install chromium); under CI=true they fail instead`,
    );
  }
}

describe.skipIf(!available)('runs app in a real browser', () => {
  let dir: string;
  let store: SqliteRunStore;
  let app: RunsServer;
  let servers: DemoServers;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    const t0 = Date.now();
    const lap = (what: string) => process.env['RUNLEDGER_TIMING'] === '1' && console.log(what, Date.now() - t0);
    dir = mkdtempSync(join(tmpdir(), 'runledger-ui-browser-'));
    // Chromium starts while the demo records (real MCP child processes, reused for the slow run).
    const launching = chromium.launchPersistentContext(join(dir, 'chromium-profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      locale: 'en-US',
      viewport: { width: 1280, height: 800 },
    });
    servers = await startDemoServers();
    lap('servers');
    const demo = await runDemo({ dbPath: join(dir, 'runledger.db'), servers });
    store = demo.store;
    lap('demo');
    app = await startRunsServer({ store, host: '127.0.0.1', port: 0 });
    context = await launching;
    page = context.pages()[0] ?? (await context.newPage());
    lap('chromium');
    page.on('dialog', (dialog) => {
      throw new Error(`unexpected dialog: ${dialog.message()}`);
    });
  });

  afterAll(async () => {
    await context?.close();
    await servers?.close();
    await app?.close();
    await store?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  async function shoot(name: string, fullPage = false): Promise<void> {
    if (!SCREENSHOTS) return;
    mkdirSync(IMAGES, { recursive: true });
    await page.screenshot({ path: join(IMAGES, name), fullPage });
  }

  it('opens the list and the cancelled run: "cancelled" in English, "abgebrochen" in German, neutral not red', async () => {
    await page.goto(app.url);
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
    const health = await store.serverHealth();
    const flaky = health.find((row) => row.server === 'flaky')!;
    expect(flaky.cancelled).toBe(1);
    expect(flaky.failureRate).toBeCloseTo(flaky.failed / (flaky.ok + flaky.failed), 10);
    await page.goto(`${app.url}servers?lang=en`);
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
    const run = await startRun(store, { configuration: 'browser-cancel', actor: 'browser test', cancelPollMs: 50 });
    const agent = new DemoAgent(run.trace, run.signal);
    const call = agent.call(servers.tool('mcp_slow_export_report'), { report: 'browser', seconds: 120 }, { writes: true });
    const finished = call.then(() => run.complete());
    await page.goto(`${app.url}runs/${run.id}`);
    expect(await page.locator('.badge[data-status]').first().innerText()).toContain('running');
    // what the Cancel button will stop: the call on the wire, with tool, server, when sent and for how long
    await expect
      .poll(async () => {
        await page.reload();
        return page.locator('section.wire tbody tr').count();
      })
      .toBe(1);
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
    await page.reload();
    expect(await page.locator('.badge[data-status]').first().innerText()).toContain('cancelled');
    const cancelledStep = page.locator('tr[data-outcome="cancelled"]');
    expect(await cancelledStep.locator('td.outcome').innerText()).toContain('cancelled');
    expect(await cancelledStep.locator('td.details').innerText()).toContain('mcp_slow_export_report');
    expect(await page.locator('tr[data-lifecycle="cancel_requested"]').count()).toBe(1);
    expect(await page.locator('tr[data-lifecycle="cancelled"]').count()).toBe(1);
    expect(await page.locator('tr[data-outcome="cancelled"]').count()).toBe(1);
    expect(await page.locator('button[data-action="cancel"]').count()).toBe(0);
  });

  it('at 420 px wide the Outcome column of the timeline is visible without scrolling the page sideways', async () => {
    const cancelled = (await store.listRuns({ status: 'cancelled', configuration: 'report-agent', limit: 1 })).runs[0]!;
    await page.setViewportSize({ width: 420, height: 900 });
    try {
      for (const lang of ['en', 'de']) {
        await page.goto(`${app.url}runs/${cancelled.id}?lang=${lang}`);
        const widths = await page.evaluate(() => {
          const doc = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document;
          return { scroll: doc.documentElement.scrollWidth, client: doc.documentElement.clientWidth };
        });
        expect(widths.client).toBeLessThanOrEqual(420);
        expect(widths.scroll, `the page scrolls sideways in ${lang}`).toBeLessThanOrEqual(widths.client);
        const outcomes = page.locator('table.timeline td.outcome .badge');
        expect(await outcomes.count()).toBe(3);
        for (const box of await outcomes.evaluateAll((els) =>
          els.map((el) =>
            (el as unknown as { getBoundingClientRect(): { left: number; right: number; width: number } }).getBoundingClientRect(),
          ),
        )) {
          expect(box.width).toBeGreaterThan(0);
          expect(box.left).toBeGreaterThanOrEqual(0);
          expect(box.right).toBeLessThanOrEqual(widths.client);
        }
        if (lang === 'en') await shoot('run-timeline-narrow.png', true);
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('renders a tool name containing <script> as text', async () => {
    const escaping = await startRun(store, { configuration: 'escaping <b>check</b>' });
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
    await page.goto(`${app.url}runs/${scriptRunId}`);
    const details = await page.locator('tr[data-outcome="ok"] td.details').innerText();
    expect(details).toContain(SCRIPT_TOOL);
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('script').count()).toBe(0);
    expect(await page.locator('h1 + section, main').first().innerText()).toContain('escaping <b>check</b>');
  });
});
