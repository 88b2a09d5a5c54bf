// What the browser suites share: Debian's Chromium (never a downloaded one), its flags, the rule that
// under CI=true a missing Chromium fails rather than skips, axe-core run in a page, a suite's setup
// (a fresh folder, its SQLite store, the app on it, Chromium started meanwhile, all closed after) and
// the checks every page takes (no sideways scroll, no dialog).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteRunStore } from '@runledger/store-sqlite';
import axe from 'axe-core';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunsServer, startRunsServer } from '../src/app/startRunsServer.js';

export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  // shared memory in a temporary folder: a container's /dev/shm (64 MB by default) slows or crashes the renderer
  '--disable-dev-shm-usage',
];

/** True when Chromium is there; else, under CI=true, a suite that fails saying so (a skip elsewhere). */
export function chromiumAvailable(suite: string): boolean {
  const available = existsSync(CHROMIUM);
  if (available) return true;
  if (process.env['CI'] === 'true') {
    describe(suite, () => {
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
  return false;
}

/** Chromium with a fresh profile in `profileDir`, English, 1280 × 800. */
export function launchChromium(profileDir: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    locale: 'en-US',
    viewport: { width: 1280, height: 800 },
  });
}

/** axe-core's violations on the page as it is now, each as `rule: [targets]` (every rule on). */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(axe.source);
  // a live page may put a region in again while axe reads it: axe then throws, and reads the page again
  const run = () =>
    page.evaluate(() =>
      (
        globalThis as unknown as {
          axe: { run(options: unknown): Promise<{ violations: { id: string; nodes: { target: unknown }[] }[] }> };
        }
      ).axe.run({ resultTypes: ['violations'] }),
    );
  const result = await run().catch(run);
  return result.violations.map((violation) => `${violation.id}: ${JSON.stringify(violation.nodes.map((node) => node.target))}`);
}

/** What a browser suite works with, there from its first test on. */
export interface BrowserApp {
  /** The suite's fresh temporary folder (removed after the suite). */
  readonly dir: string;
  readonly store: SqliteRunStore;
  /** The real app server on the store, on a free loopback port. */
  readonly app: RunsServer;
  /** Chromium with a fresh profile in the folder, English, 1280 × 800. */
  readonly context: BrowserContext;
}

/** What a suite's `open` gives: its store, filled, and what to close before the app and the store close. */
export interface OpenedStore {
  readonly store: SqliteRunStore;
  readonly close?: () => Promise<unknown>;
  /** The alert evaluator's state file the app shows on its servers page (as `serve --alerts` does); default none. */
  readonly alertStateFile?: string;
}

/** The SQLite store of a suite's folder (`runledger.db` in it), new and empty at first. */
export function storeIn(dir: string): Promise<SqliteRunStore> {
  return SqliteRunStore.open({ path: join(dir, 'runledger.db') });
}

/** An empty SQLite store in the suite's folder. */
const emptyStore = async (dir: string): Promise<OpenedStore> => ({ store: await storeIn(dir) });

/**
 * Sets a browser suite up the one way (call it in the suite's `describe`): before all its tests, a
 * fresh folder named after `prefix`, Chromium started there while `open` fills the store (by
 * default an empty SQLite file in the folder), then the app on the store; after them, Chromium,
 * what `open` asked to close, the app and the store are closed and the folder removed.
 */
export function useBrowserApp(prefix: string, open: (dir: string) => Promise<OpenedStore> = emptyStore): BrowserApp {
  const suite: { -readonly [K in keyof BrowserApp]?: BrowserApp[K] } = {};
  let close: (() => Promise<unknown>) | undefined;
  let launching: Promise<BrowserContext> | undefined;
  beforeAll(async () => {
    suite.dir = mkdtempSync(join(tmpdir(), `runledger-ui-${prefix}-`));
    launching = launchChromium(join(suite.dir, 'chromium-profile'));
    const opened = await open(suite.dir);
    suite.store = opened.store;
    close = opened.close;
    suite.app = await startRunsServer({ store: suite.store, host: '127.0.0.1', port: 0, alertStateFile: opened.alertStateFile ?? null });
    suite.context = await launching;
  });
  afterAll(async () => {
    // a setup that failed half way still closes the browser it started
    await launching?.then((context) => context.close()).catch(() => undefined);
    await close?.();
    await suite.app?.close();
    await suite.store?.close();
    if (suite.dir !== undefined) rmSync(suite.dir, { recursive: true, force: true });
  });
  const started = <K extends keyof BrowserApp>(key: K): BrowserApp[K] => {
    const value = suite[key];
    if (value === undefined) throw new Error(`useBrowserApp(${prefix}): ${key} is there from the suite's first test on, not before`);
    return value as BrowserApp[K];
  };
  return {
    get dir() {
      return started('dir');
    },
    get store() {
      return started('store');
    },
    get app() {
      return started('app');
    },
    get context() {
      return started('context');
    },
  };
}

/** A new page of the context on which any dialog (alert, confirm, prompt) fails the test. */
export async function pageWithoutDialogs(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  page.on('dialog', (dialog) => {
    throw new Error(`unexpected dialog: ${dialog.message()}`);
  });
  return page;
}

/** How wide the page's content is and how wide its viewport (content wider: the page scrolls sideways). */
export function pageWidths(page: Page): Promise<{ scroll: number; client: number }> {
  return page.evaluate(() => {
    // runs in the page; the tests' tsconfig has no DOM lib
    const doc = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document;
    return { scroll: doc.documentElement.scrollWidth, client: doc.documentElement.clientWidth };
  });
}

/** Fails when the page's content is wider than its viewport (it scrolls sideways). */
export async function expectNoSidewaysScroll(page: Page, what = 'the page'): Promise<void> {
  const widths = await pageWidths(page);
  expect(widths.scroll, `${what} scrolls sideways`).toBeLessThanOrEqual(widths.client);
}
