// Issue 38 item 4 (the app's part): no page and no command fails because of a stored value. A
// lone surrogate in a step's payload (a row of an older recorder, read back through JSON's `\ud800`
// escape) made every view of its run answer 500: the server link's encodeURIComponent threw.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SqliteRunStore } from '@runledger/store-sqlite';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverPath } from '../src/viewModels/serverPath.js';
import type { RunsServer } from '../src/app/startRunsServer.js';
import { isWellFormedText, uriComponent } from '../src/viewModels/uriComponent.js';
import { cli } from './cliHelpers.js';
import { send, serve } from './httpHelpers.js';
import { seedRun } from './seedRun.js';

/** better-sqlite3, as the SQLite store loads it: the test writes rows the store's own checks would refuse. */
interface RawDb {
  prepare(sql: string): { run(...params: unknown[]): unknown };
  close(): void;
}
const requireFromStore = createRequire(fileURLToPath(new URL('../../../packages/store-sqlite/package.json', import.meta.url)));
const Database = requireFromStore('better-sqlite3') as new (path: string) => RawDb;

/** Any UTF-16 text: every code unit (lone surrogates, NUL, controls), with lone surrogates made frequent. */
const anyText = fc.string({
  unit: fc.oneof(
    fc.constantFrom('\uD800', '\uDBFF', '\uDC00', '\uDFFF', '/', '%', '.', '?', '#'),
    fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit)),
    fc.constantFrom('😀', 'é'),
  ),
  minLength: 1,
  maxLength: 12,
});

let dir: string;
let db: string;
let store: SqliteRunStore;
let raw: RawDb;
let server: RunsServer;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'runledger-stored-text-'));
  db = join(dir, 'runs.db');
  store = await SqliteRunStore.open({ path: db });
  raw = new Database(db);
  server = await serve(store);
});
afterAll(async () => {
  await server.close();
  raw.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * A finished run with one failed tool call whose payload names `text` as its tool and server (JSON
 * text as an older recorder wrote it: a lone surrogate is a `\ud800` escape), and whose
 * configuration and title are `text` as SQLite keeps it.
 */
async function runNaming(text: string): Promise<string> {
  const run = await seedRun(store, {
    configuration: 'placeholder',
    createdAt: Date.now() - 60_000,
    calls: [{ server: 'placeholder', tool: 'placeholder', outcome: 'failed', cause: 'server_error' }],
  });
  const payload = { kind: 'tool', toolName: text, toolServer: text, toolIsError: true, toolOutcome: 'failed', round: 1, durationMs: 5 };
  // an older row: no tool_server column, the server read from the payload
  raw.prepare('UPDATE steps SET payload = ?, tool_server = NULL WHERE run_id = ?').run(JSON.stringify(payload), run.id);
  raw.prepare('UPDATE runs SET configuration = ?, title = ? WHERE id = ?').run(text, text, run.id);
  return run.id;
}

describe('a stored value never makes a page answer 500 or a command fail', () => {
  it('the run page, the runs list, the servers page and a server page, for any text (lone surrogates included)', async () => {
    await fc.assert(
      fc.asyncProperty(anyText, async (text) => {
        const runId = await runNaming(text);
        for (const path of [`/runs/${runId}`, `/runs/${runId}?lang=de`, '/runs', '/', '/servers']) {
          const reply = await send(server, path);
          expect(reply.status, `${path} for ${JSON.stringify(text)}`).toBe(200);
        }
        const link = /href="(\/servers\/[^"?]*)/.exec((await send(server, `/runs/${runId}`)).body)?.[1];
        if (link !== undefined) expect((await send(server, link)).status).not.toBe(500);
        if (isWellFormedText(text) && !text.includes('\0') && text.trim() !== '') {
          // a server the store keeps as it is: its page, reached from the servers page's link
          await seedRun(store, { configuration: 'x', createdAt: Date.now() - 60_000, calls: [{ server: text, tool: 't', outcome: 'ok' }] });
          const page = serverPath(text);
          if (page !== null) {
            const listed = (await send(server, '/servers')).body;
            expect(
              [`href="${page}"`, `href="${page}?`].some((href) => listed.includes(href)),
              `${page} on /servers`,
            ).toBe(true);
            expect((await send(server, page)).status, page).toBe(200);
          }
        }
      }),
      { numRuns: 40 },
    );
  });

  it('every link is built by one total encoder: any text encodes, and decodes to its well-formed form', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const wellFormed = Buffer.from(text, 'utf8').toString('utf8');
        expect(decodeURIComponent(uriComponent(text))).toBe(wellFormed);
        // a server id with a lone surrogate has no page: its path would name another server
        if (!isWellFormedText(text)) expect(serverPath(text)).toBeNull();
      }),
    );
  });

  it('runs show, runs list and servers, as text and as JSON, for a lone surrogate', async () => {
    const runId = await runNaming('a\uD800b');
    for (const args of [['runs', 'show', runId], ['runs', 'list'], ['servers']]) {
      for (const json of [[], ['--json']]) {
        const result = await cli([...args, ...json, '--db', db], dir);
        expect(result.stderr, args.join(' ')).toBe('');
        expect(result.code).toBe(0);
        if (json.length > 0) expect(() => JSON.parse(result.stdout) as unknown).not.toThrow();
      }
    }
    const show = await cli(['runs', 'show', runId, '--json', '--db', db], dir);
    expect(JSON.stringify(JSON.parse(show.stdout))).toContain('a\\ud800b');
  });
});
