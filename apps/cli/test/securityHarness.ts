// The security tests' shared harness: real servers on real stores (in memory, SQLite, PostgreSQL),
// a request() that keeps every reply for the security-header check, and the HTML parsed as a
// browser would to prove that no stored text became markup.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresRunStore } from '@runledger/store-postgres';
import { SqliteRunStore } from '@runledger/store-sqlite';
import { InMemoryRunStore, type RunStore } from '@runledger/trace';
import { type DefaultTreeAdapterMap, parse } from 'parse5';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RunsServer, startRunsServer } from '../src/app/startRunsServer.js';
import { type Reply, send, serve } from './httpHelpers.js';

type Node = DefaultTreeAdapterMap['node'];
type Element = DefaultTreeAdapterMap['element'];

export const T0 = Date.UTC(2026, 10, 29, 9, 0, 0);
export const PG_URL = process.env['RUNLEDGER_PG_URL'] || 'postgres://postgres@127.0.0.1:5432/test';
export const TOKEN = 's3cret-token-value';

let dir: string | undefined;
const servers: RunsServer[] = [];
const closers: (() => Promise<void>)[] = [];
/** Every reply of the test file, to check the security headers on each of them at its end. */
const replies: { what: string; reply: Reply }[] = [];

/** Registers the file's hooks: a temporary folder, servers closed after each test, stores closed (and PostgreSQL schemas dropped) at the end. */
export function useSecurityHarness(): void {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'runledger-ui-security-'));
  });
  afterEach(async () => {
    while (servers.length > 0) await servers.pop()!.close();
  });
  afterAll(async () => {
    while (closers.length > 0) await closers.pop()!();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });
}

/** Closes the server after the current test. */
export function closeAfterTest(server: RunsServer): void {
  servers.push(server);
}

/** The file's temporary folder (made before its first test). */
export function workDir(): string {
  if (dir === undefined) throw new Error('useSecurityHarness() was not called in this test file');
  return dir;
}

/** The security headers, checked on every reply the file received, error responses included; `statuses` must all have been seen. */
export function describeSecurityHeaders(statuses: readonly number[]): void {
  describe('security headers', () => {
    it('are on every response this file received, error responses included', () => {
      const seen = new Set(replies.map(({ reply }) => reply.status));
      for (const status of statuses) expect(seen, `a ${status} was checked`).toContain(status);
      for (const { what, reply } of replies) {
        expect(reply.headers['content-security-policy'], what).toContain("default-src 'none'");
        expect(reply.headers['content-security-policy'], what).toContain("frame-ancestors 'none'");
        expect(reply.headers['x-content-type-options'], what).toBe('nosniff');
        expect(reply.headers['x-frame-options'], what).toBe('DENY');
        expect(reply.headers['referrer-policy'], what).toBe('same-origin');
        expect(reply.headers['cache-control'], what).toBe('no-store');
      }
    });
  });
}

export async function request(
  server: RunsServer,
  path: string,
  options: { method?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const reply = await send(server, path, options);
  replies.push({ what: `${options.method ?? 'GET'} ${path}`, reply });
  return reply;
}

export async function started(
  store: RunStore,
  options: { token?: string | null; log?: (line: string) => void; host?: string } = {},
): Promise<RunsServer> {
  const server =
    options.log === undefined && options.host === undefined
      ? await serve(store, options.token ?? null)
      : await startRunsServer({
          store,
          token: options.token ?? null,
          host: options.host ?? '127.0.0.1',
          port: 0,
          timeZone: 'UTC',
          log: options.log,
        });
  closeAfterTest(server);
  return server;
}

let storeCount = 0;
/** The three stores the app runs on, each fresh. */
export const STORES: readonly [string, () => Promise<RunStore>][] = [
  ['in memory', async () => InMemoryRunStore.create()],
  [
    'SQLite',
    async () => {
      const store = await SqliteRunStore.open({ path: join(workDir(), `s${storeCount++}.db`) });
      closers.push(() => store.close().catch(() => undefined));
      return store;
    },
  ],
  [
    'PostgreSQL',
    async () => {
      const schema = `runledger_ui_sec_${process.pid}_${storeCount++}`;
      const store = await PostgresRunStore.connect({ connectionString: PG_URL, schema, poolSize: 2 });
      closers.push(async () => {
        await store.close().catch(() => undefined);
        const client = new pg.Client({ connectionString: PG_URL });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await client.end();
      });
      return store;
    },
  ],
];

// ---------------------------------------------------------------------------------------------
// HTML, parsed

export function elements(node: Node, out: Element[] = []): Element[] {
  if ('tagName' in node) out.push(node);
  const children = 'childNodes' in node ? node.childNodes : [];
  for (const child of children) elements(child, out);
  if ('content' in node && node.content !== undefined) elements(node.content as Node, out);
  return out;
}

/** The text of the page's main element (the navigation around it is the app's own). */
export function mainText(body: string): string {
  const main = elements(parse(body)).find((element) => element.tagName === 'main');
  return main === undefined ? '' : textContent(main);
}

export function textContent(node: Node): string {
  if (node.nodeName === '#text') return (node as DefaultTreeAdapterMap['textNode']).value;
  const children = 'childNodes' in node ? node.childNodes : [];
  return children.map(textContent).join('');
}

/** The tags the app's pages are made of; anything else in a page came from data. */
const APP_TAGS = new Set([
  'html',
  'head',
  'body',
  'meta',
  'title',
  'style',
  'a',
  'small',
  'header',
  'nav',
  'span',
  'main',
  'h1',
  'h2',
  'p',
  'section',
  'div',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
  'form',
  'button',
  'label',
  'select',
  'option',
  'input',
  // the filter boxes' suggestions: stored names, only ever as an option's (escaped) value
  'datalist',
  'dl',
  'dt',
  'dd',
  'strong',
  'time',
  'code',
  'abbr',
  'caption',
  'ul',
  'li',
  'details',
  // the run page's waterfall (inline SVG)
  'svg',
  'g',
  'rect',
  'line',
  'text',
  // the servers' charts over time (inline SVG) and their headings on a server's page
  'circle',
  'polyline',
  'h3',
  'summary',
  'footer',
  'em',
  'br',
  // a step's arguments and result, folded (recorded at privacy level redacted or full)
  'pre',
]);

/** The classes of the app's own SVG: the run page's waterfall, the servers' small and large charts. */
const APP_SVG_CLASSES = ['waterfall-chart', 'spark trend-failureRate', 'spark trend-p95', 'trend-chart'];

/**
 * Parses a page as a browser would and checks that no data became markup: only the app's tags,
 * no event-handler attribute, every link and form target a path of this site.
 */
export function assertInertPage(body: string, what: string): string {
  const document = parse(body);
  for (const element of elements(document)) {
    expect(APP_TAGS.has(element.tagName), `${what}: unexpected <${element.tagName}>`).toBe(true);
    if (element.tagName === 'svg') {
      // the only SVG a page has is the app's: the waterfall and the servers' charts; one that came from data has no such class
      expect(APP_SVG_CLASSES, `${what}: <svg>`).toContain(element.attrs.find((attr) => attr.name === 'class')?.value);
    }
    for (const attr of element.attrs) {
      expect(attr.name, `${what}: <${element.tagName} ${attr.name}>`).not.toMatch(/^on/i);
      if (attr.name === 'href' || attr.name === 'action' || attr.name === 'src') {
        expect(attr.value, `${what}: ${attr.name}`).toMatch(/^(?:\/(?![/\\])|#|\?)/);
      }
    }
  }
  return textContent(document);
}

export const XSS = [
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(2)>',
  "'><svg onload=alert(3)>",
  '</td></tr></table><iframe src="javascript:alert(4)"></iframe>',
  '<a href="//evil.example/">x</a>',
];

// ---------------------------------------------------------------------------------------------
