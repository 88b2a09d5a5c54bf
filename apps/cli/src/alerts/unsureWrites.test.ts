// The may-have-executed rule on real stores (a SQLite file, PostgreSQL): what fires and resolves,
// and how many step reads one pass makes (one per run with candidates, never one per failed call).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresRunStore } from '@runledger/store-postgres';
import { SqliteRunStore } from '@runledger/store-sqlite';
import type { RunStore, StoredRun } from '@runledger/trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withPgSchema } from '../../test/cliHelpers.js';
import { toolCallStep } from '../../test/toolCallStep.js';
import { AlertEvaluator } from './AlertEvaluator.js';
import { FileAlertLock } from './alertLock.js';
import { parseAlertRules } from './alertRules.js';
import { readAlertReadings } from './readAlertReadings.js';
import { AlertStateFile } from '../alertState/AlertStateFile.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 11, 6, 12, 0, 0);
const rules = parseAlertRules({ rules: [{ id: 'writes', kind: 'may-have-executed', window: '1d' }] });

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'runledger-unsure-writes-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A `tool` step ending a call (to server `db` unless named). */
const call = (store: RunStore, run: StoredRun, at: number, outcome: 'ok' | 'failed' | 'cancelled', extra: object, server = 'db') =>
  toolCallStep(store, run, at, outcome, { ...extra }, server);

const write = { toolWrites: true, toolSends: 1 };

/** The fixture: which calls of which run, and the keys that must fire. */
async function fill(store: RunStore): Promise<{ fires: string[]; readers: StoredRun; writer: StoredRun }> {
  const writer = await store.createRun({ configuration: 'writer', createdAt: NOW - 3_600_000 });
  const at = NOW - 600_000;
  // 0, 1: writes that failed unanswered (a timeout, a broken connection): they may have run
  await call(store, writer, at, 'failed', { ...write, toolFailureCause: 'mcp_timeout' });
  await call(store, writer, at + 1, 'failed', { ...write, toolFailureCause: 'mcp_transport_failure' }, 'crm');
  // 2: a write the server answered with an error: it said what happened
  await call(store, writer, at + 2, 'failed', { ...write, toolFailureCause: 'server_error' });
  // 3: a read that timed out
  await call(store, writer, at + 3, 'failed', { toolSends: 1, toolFailureCause: 'mcp_timeout' });
  // 4: a write the operator cancelled
  await call(store, writer, at + 4, 'cancelled', write);
  // 5: a write that timed out before it was sent
  await call(store, writer, at + 5, 'failed', { toolWrites: true, toolSends: 0, toolFailureCause: 'mcp_timeout' });
  // 6: a write refused before sending; 7: a write that worked; 8: a failed write of no known cause
  await call(store, writer, at + 6, 'failed', { toolWrites: true, toolFailureCause: 'not_approved' });
  await call(store, writer, at + 7, 'ok', write);
  await call(store, writer, at + 8, 'failed', write);
  // 9: far along the run (past one read's span): a write that failed on an unreadable answer
  for (let i = 0; i < 250; i++) await call(store, writer, at + 9 + i, 'ok', {}, 'search');
  await call(store, writer, at + 300, 'failed', { ...write, toolFailureCause: 'mcp_malformed_response' });
  // a write that timed out two days ago: outside the window
  const old = await store.createRun({ configuration: 'writer', createdAt: NOW - 2 * DAY });
  await call(store, old, NOW - 2 * DAY + 1_000, 'failed', { ...write, toolFailureCause: 'mcp_timeout' });
  // many failed reads: answered errors and timeouts, across servers
  const readers = await store.createRun({ configuration: 'reader', createdAt: NOW - 3_600_000 });
  for (let i = 0; i < 30; i++) {
    const cause = i % 3 === 0 ? 'mcp_timeout' : 'server_error';
    await call(store, readers, at + i, 'failed', { toolSends: 1, toolFailureCause: cause }, i % 2 === 0 ? 'db' : 'search');
  }
  return { fires: [`${writer.id}#0`, `${writer.id}#1`, `${writer.id}#259`], readers, writer };
}

/** The store, its `readSteps` calls counted (every other method passed through). */
function counting(store: RunStore): { store: RunStore; reads: string[] } {
  const reads: string[] = [];
  const proxy = new Proxy(store, {
    get(target, key) {
      const value = Reflect.get(target, key, target) as unknown;
      if (typeof value !== 'function') return value;
      if (key === 'readSteps')
        return (runId: string, query?: unknown) => {
          reads.push(runId);
          return (value as RunStore['readSteps']).call(target, runId, query as Parameters<RunStore['readSteps']>[1]);
        };
      return (value as (...args: unknown[]) => unknown).bind(target);
    },
  });
  return { store: proxy, reads };
}

async function checkRule(store: RunStore, name: string): Promise<void> {
  const { fires, writer, readers } = await fill(store);

  const counted = counting(store);
  const readings = await readAlertReadings(counted.store, rules, NOW);
  expect(readings.unsureWrites['writes']!.map((w) => `${w.runId}#${w.sequence}`).sort()).toEqual([...fires].sort());
  expect(readings.unsureWrites['writes']!.find((w) => w.sequence === 1)).toMatchObject({
    runId: writer.id,
    server: 'crm',
    tool: 'mcp_crm_do',
    createdAt: NOW - 600_000 + 1,
  });

  // fires once per call, stays while the call is in the window, resolves when it leaves it
  let clock = NOW;
  const evaluator = new AlertEvaluator({
    store,
    rules,
    state: new AlertStateFile(join(dir, `${name}.state.json`)),
    lock: new FileAlertLock(join(dir, `${name}.lock`)),
    now: () => clock,
  });
  const first = await evaluator.pass();
  if (!first.evaluated) throw new Error('not evaluated');
  const keys = fires.map((f) => `writes|${f}`).sort();
  expect(first.transitions.map((t) => `${t.type} ${t.alert.key}`).sort()).toEqual(keys.map((k) => `firing ${k}`));
  expect(first.firing.find((a) => a.subject === `${writer.id}#0`)?.summary).toBe(
    `a write may have executed: mcp_db_do on server db (run ${writer.id}, step 0) failed without an answer`,
  );
  clock = NOW + 3_600_000;
  expect(await evaluator.pass()).toMatchObject({ evaluated: true, transitions: [] });
  clock = NOW + DAY;
  const later = await evaluator.pass();
  if (!later.evaluated) throw new Error('not evaluated');
  expect(later.transitions.map((t) => `${t.type} ${t.alert.key}`).sort()).toEqual(keys.map((k) => `resolved ${k}`));
  expect(later.firing).toEqual([]);
  await evaluator.close();

  // that pass read the steps of the runs with candidates only, once each (the writer twice: its
  // candidates lie further apart than one read's span), not one step per failed call
  expect(counted.reads.sort()).toEqual([readers.id, writer.id, writer.id].sort());
}

describe('the may-have-executed rule', () => {
  it('on a SQLite file: fires for failed unanswered writes only, reads steps once per run, resolves when the window passes', async () => {
    const store = await SqliteRunStore.open({ path: join(dir, 'runs.db') });
    try {
      await checkRule(store, 'sqlite');
    } finally {
      await store.close();
    }
  });

  it('on PostgreSQL: the same verdicts and reads', async (ctx) => {
    await withPgSchema(ctx, 'rl_unsure_writes', async (url, schema) => {
      const store = await PostgresRunStore.connect({ connectionString: url, schema });
      try {
        await checkRule(store, 'postgres');
      } finally {
        await store.close();
      }
    });
  });

  it('reads no step when no failed call of the window can be a write that may have run', async () => {
    const store = await SqliteRunStore.open({ path: join(dir, 'answered.db') });
    try {
      for (let r = 0; r < 5; r++) {
        const run = await store.createRun({ configuration: 'reader', createdAt: NOW - 3_600_000 });
        for (let i = 0; i < 10; i++) await call(store, run, NOW - 60_000 + i, 'failed', { ...write, toolFailureCause: 'server_error' });
        await call(store, run, NOW - 50_000, 'failed', write);
        await call(store, run, NOW - 40_000, 'cancelled', write);
      }
      const counted = counting(store);
      const readings = await readAlertReadings(counted.store, rules, NOW);
      expect(readings.unsureWrites['writes']).toEqual([]);
      expect(counted.reads).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
