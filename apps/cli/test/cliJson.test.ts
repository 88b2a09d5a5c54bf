// Every `--json` output of the CLI is frozen by its zod schema (its module's jsonOutput, written
// into api-reports/cli.cli.json): each command's real output parses with its schema, and the
// schema drops nothing the store hands out (the output equals the store's own value), so a new
// field of a store cannot be missing from the frozen shape unnoticed.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteRunStore } from '@runledger/store-sqlite';
import { inspectSpool, isLateCancel } from '@runledger/trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timelineSlice } from '../src/app/timelineSlice.js';
import { CLI_COMMANDS, cliCommand } from '../src/cli/cliCommands.js';
import { runsList } from '../src/commands/runsList.js';
import { runsRecover } from '../src/commands/runsRecover.js';
import { worstFirst } from '../src/viewModels/serversQuery.js';
import { cli, runBin } from './cliHelpers.js';
import { seedRun } from './seedRun.js';

let dir: string;
let db: string;
let spool: string;
let finishedId: string;
const MISSING_RUN = '00000000-0000-4000-8000-0000000000aa';

/** The value as JSON would carry it (undefined properties gone, class instances plain). */
const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'runledger-cli-json-'));
  db = join(dir, 'runs.db');
  spool = join(dir, 'spool');
  const store = await SqliteRunStore.open({ path: db });
  try {
    const at = Date.UTC(2026, 10, 30, 9);
    const finished = await seedRun(store, {
      configuration: 'json-shapes',
      createdAt: at,
      calls: [
        { server: 'docs', tool: 'search', outcome: 'ok', durationMs: 12 },
        { server: 'flaky', tool: 'fetch', outcome: 'failed', cause: 'mcp_timeout' },
        { server: 'flaky', tool: 'fetch', outcome: 'cancelled' },
      ],
    });
    finishedId = finished.id;
    await store.requestCancel(finished.id);
    await seedRun(store, {
      configuration: 'still-running',
      createdAt: at - 600_000,
      calls: [{ server: 'docs', tool: 'search', outcome: 'ok' }],
      finish: null,
    });
  } finally {
    await store.close();
  }
  // A spool file of a process that is gone, holding a step for a run the store does not have:
  // listed by `spool list`, kept by `spool deliver` (exit 1).
  mkdirSync(spool);
  const step = { kind: 'llm', round: 0, durationMs: 1, createdAt: 5, payload: { kind: 'llm' }, toolServer: null, toolOutcome: null };
  writeFileSync(
    join(spool, 'spool-999999997-1-000000aa.jsonl'),
    `${JSON.stringify({ v: 1, type: 'step', runId: MISSING_RUN, sequence: 0, step })}\n`,
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs a `--json` command in-process and returns its parsed output, after checking it against its schema. */
async function jsonOf(command: string, args: readonly string[], expectedCode = 0): Promise<unknown> {
  const result = await cli([...command.split(' '), ...args, '--json'], dir);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(expectedCode);
  const parsed: unknown = JSON.parse(result.stdout);
  const schema = cliCommand(command).jsonOutput;
  if (schema === null) throw new Error(`${command} declares no --json output`);
  const check = schema.safeParse(parsed);
  expect(check.success, `${command} --json does not fit its schema: ${check.error?.message ?? ''}`).toBe(true);
  return parsed;
}

describe('--json outputs and their schemas', () => {
  it('declares a schema for exactly the commands that take --json', () => {
    const withJson = CLI_COMMANDS.filter((c) => c.jsonOutput !== null).map((c) => c.name);
    expect(withJson).toEqual([
      'runs list',
      'runs show',
      'runs recover',
      'runs cancel',
      'servers',
      'prune',
      'spool list',
      'spool deliver',
      'export otlp',
    ]);
    for (const command of CLI_COMMANDS)
      expect(
        command.flags.some((f) => f.name === 'json'),
        command.name,
      ).toBe(command.jsonOutput !== null);
  });

  it('runs list: the store page, whole', async () => {
    const out = await jsonOf('runs list', ['--db', db]);
    const store = await SqliteRunStore.open({ path: db });
    try {
      // the page, and what every page adds up to (every run counted: the CLI asks for no upTo)
      const { runs, tokens, complete } = await store.runTotals();
      expect(complete).toBe(true);
      expect(out).toEqual(asJson({ ...(await store.listRuns({ limit: 20 })), totals: { runs, tokens } }));
    } finally {
      await store.close();
    }
    expect((out as { runs: unknown[] }).runs).toHaveLength(2);
  });

  it('runs show: the run, the late cancel, the calls on the wire and the timeline, whole', async () => {
    const out = await jsonOf('runs show', [finishedId, '--db', db]);
    const store = await SqliteRunStore.open({ path: db });
    try {
      const run = (await store.getRun(finishedId))!;
      const page = timelineSlice(run, await store.readSteps(run.id), 0);
      // a run of up to 1,000 steps (--limit's default) is one page: no next one
      expect(out).toEqual(
        asJson({
          run,
          cancelRequestedAfterFinish: isLateCancel(run),
          callsOnTheWire: page.wire ?? [],
          timeline: page.entries,
          nextCursor: null,
        }),
      );
      expect((out as { cancelRequestedAfterFinish: boolean }).cancelRequestedAfterFinish).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('servers: the health rows, whole', async () => {
    const out = await jsonOf('servers', ['--db', db]);
    const store = await SqliteRunStore.open({ path: db });
    try {
      // worst first, as the servers page lists them
      expect(out).toEqual(asJson({ servers: worstFirst(await store.serverHealth({})), nextCursor: null }));
    } finally {
      await store.close();
    }
    expect((out as { servers: { server: string }[] }).servers.map((row) => row.server).sort()).toEqual(['docs', 'flaky']);
  });

  it('spool list: the folder and its files, whole; spool deliver: the kept file (exit 1)', async () => {
    const listed = await jsonOf('spool list', ['--spool-dir', spool]);
    expect(listed).toEqual(asJson({ dir: spool, files: await inspectSpool(spool), nextCursor: null }));
    const delivered = (await jsonOf('spool deliver', ['--db', db, '--spool-dir', spool], 1)) as { files: { state: string; pid: number }[] };
    expect(delivered.files).toEqual([expect.objectContaining({ state: 'kept', pid: 999999997 })]);
  });

  it('runs recover: the recovered run ids', async () => {
    const out = (await jsonOf('runs recover', ['--db', db, '--stale-after', '1m'])) as { recovered: string[] };
    expect(out.recovered).toHaveLength(1);
  });

  it('the real binary prints the same shape', async () => {
    const result = await runBin(['runs', 'list', '--db', db, '--json'], dir);
    expect(result.code).toBe(0);
    expect(runsList.jsonOutput.parse(JSON.parse(result.stdout)).runs.length).toBe(2);
  });

  it('a value that does not fit its schema fails the command loudly (exit 1), never prints a drifted shape', async () => {
    const { writeCliJson } = await import('../src/commandKit/cliJsonOutputs.js');
    let printed = '';
    const io = { stdout: { write: (text: string) => (printed += text) }, stderr: { write: () => undefined }, env: {}, cwd: dir };
    expect(() => writeCliJson(io, runsRecover.jsonOutput, { recovered: [42 as unknown as string] })).toThrow(/recovered/);
    expect(printed).toBe('');
  });
});
