// What the browser suites share: Debian's Chromium (never a downloaded one), its flags, the rule that
// under CI=true a missing Chromium fails rather than skips, and axe-core run in a page.
import { existsSync } from 'node:fs';
import axe from 'axe-core';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { describe, it } from 'vitest';

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
