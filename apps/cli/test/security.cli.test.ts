// The CLI escapes control characters of stored text (a terminal would act on them), and its
// --json output stays exact JSON.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteRunStore } from '@runledger/store-sqlite';
import type { StoredRun } from '@runledger/trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TABLE_CELL_MAX_WIDTH } from '../src/commandKit/terminalTable.js';
import { terminalJson, terminalText } from '../src/commandKit/terminalText.js';
import { cli } from './cliHelpers.js';
import { T0 } from './securityHarness.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'runledger-ui-security-cli-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Anything a terminal would act on: C0 but LF, DEL, C1, bidi controls. */
const TERMINAL_CONTROLS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe('the CLI escapes control characters of stored text', () => {
  const NASTY = 'ok\u001b[2J\u001b]0;pwned\u0007\rcompleted\u009b31m\u202eevil\u2066\u007f\u0000\ttab\nline\\x1b';

  it('terminalText shows each control as an escape, doubles backslashes and is linear', () => {
    expect(terminalText('a\u001b[31mb')).toBe('a\\x1b[31mb');
    expect(terminalText('\u0007\r\n\t\u007f\u0085\u009b\u202a\u202e\u2066\u2069\u200f\u2028')).toBe(
      '\\x07\\x0d\\x0a\\x09\\x7f\\x85\\x9b\\u202a\\u202e\\u2066\\u2069\\u200f\\u2028',
    );
    expect(terminalText('C:\\x1b')).toBe('C:\\\\x1b');
    expect(terminalText('plain — ünïcode ✓ 日本')).toBe('plain — ünïcode ✓ 日本');
    // linear: 500 000 controls in one pass (a quadratic escaper would take minutes)
    const big = '\u001b'.repeat(500_000);
    const start = performance.now();
    expect(terminalText(big)).toHaveLength(2_000_000);
    expect(performance.now() - start).toBeLessThan(2000);
    for (const value of [NASTY, { a: NASTY, b: [NASTY] }]) {
      const json = terminalJson(value);
      expect(JSON.parse(json)).toEqual(value);
      expect(json).not.toMatch(TERMINAL_CONTROLS);
    }
  });

  it('runs list, runs show and servers print stored text escaped; --json stays exact JSON', async () => {
    const path = join(dir, 'cli-controls.db');
    // every store refuses NUL (one meaning for every input): the stored text has all the rest
    const STORED = NASTY.replace('\u0000', '');
    const store = await SqliteRunStore.open({ path });
    let runId: string;
    try {
      const run = await store.createRun({ configuration: `cfg ${STORED}`, actor: `actor ${STORED}`, createdAt: T0 });
      runId = run.id;
      const server = `srv${STORED}`;
      await store.appendStep(run.id, {
        kind: 'tool',
        round: 1,
        durationMs: 5,
        createdAt: T0 + 10,
        payload: {
          kind: 'tool',
          toolName: `tool ${STORED}`,
          toolServer: server,
          toolIsError: true,
          toolOutcome: 'failed',
          round: 1,
          durationMs: 5,
        },
        toolServer: server,
        toolOutcome: 'failed',
      });
      await store.finishRun(run.id, { status: 'failed', finishedAt: T0 + 20, terminationReason: `reason ${STORED}` });
    } finally {
      await store.close();
    }
    const escaped = terminalText(STORED);
    expect(escaped).toContain('\\x1b[2J');
    /** The text as a table cell shows it: whole, or cut to TABLE_CELL_MAX_WIDTH with … (the escapes counted). */
    const cell = (text: string) =>
      [...text].length <= TABLE_CELL_MAX_WIDTH ? text : `${[...text].slice(0, TABLE_CELL_MAX_WIDTH - 1).join('')}…`;

    const list = await cli(['runs', 'list', '--db', path], dir);
    expect(list.code).toBe(0);
    expect(list.stdout).not.toMatch(TERMINAL_CONTROLS);
    expect(list.stdout).toContain(cell(`cfg ${escaped}`));
    // the header, its rule, the run and the total
    expect(list.stdout.trim().split('\n')).toHaveLength(4);

    const show = await cli(['runs', 'show', runId, '--db', path], dir);
    expect(show.code).toBe(0);
    expect(show.stdout).not.toMatch(TERMINAL_CONTROLS);
    for (const shown of [`cfg ${escaped}`, `reason ${escaped}`, `tool ${escaped}`, cell(`srv${escaped}`)])
      expect(show.stdout).toContain(shown);

    const health = await cli(['servers', '--db', path, '--window', 'all'], dir);
    expect(health.code).toBe(0);
    expect(health.stdout).not.toMatch(TERMINAL_CONTROLS);
    expect(health.stdout).toContain(cell(`srv${escaped}`));

    const json = await cli(['runs', 'show', runId, '--json', '--db', path], dir);
    expect(json.stdout).not.toMatch(TERMINAL_CONTROLS);
    const parsed = JSON.parse(json.stdout) as { run: StoredRun };
    expect(parsed.run.configuration).toBe(`cfg ${STORED}`);
    expect(parsed.run.terminationReason).toBe(`reason ${STORED}`);
    const listJson = JSON.parse((await cli(['runs', 'list', '--json', '--db', path], dir)).stdout) as { runs: StoredRun[] };
    expect(listJson.runs[0]!.actor).toBe(`actor ${STORED}`);
    const healthJson = JSON.parse((await cli(['servers', '--json', '--db', path, '--window', 'all'], dir)).stdout) as {
      servers: { server: string }[];
    };
    expect(healthJson.servers[0]!.server).toBe(`srv${STORED}`);

    const missing = await cli(['runs', 'show', `x${NASTY}`, '--db', path], dir);
    expect(missing.code).toBe(1);
    expect(missing.stderr).not.toMatch(TERMINAL_CONTROLS);
    expect(missing.stderr).toContain(terminalText(NASTY));
  });
});
