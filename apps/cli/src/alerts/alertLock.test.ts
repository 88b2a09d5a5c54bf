// Once per store on PostgreSQL: two evaluators of the same store, each on its own connection (as
// two app processes), evaluate at the same time; the advisory lock lets one notify.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresRunStore } from '@runledger/store-postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlertEvaluator } from './AlertEvaluator.js';
import { FileAlertLock, PostgresAlertLock } from './alertLock.js';
import { parseAlertRules } from './alertRules.js';
import { AlertStateFile } from '../alertState/AlertStateFile.js';

const PG_URL = process.env['RUNLEDGER_PG_URL'] || 'postgres://root@127.0.0.1:5432/test';
const schema = `rl_alerts_${process.pid}_${Date.now()}`;
let dir: string;
let store: PostgresRunStore;
let receiver: Server;
let url: string;
const received: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'runledger-alert-lock-'));
  store = await PostgresRunStore.connect({ connectionString: PG_URL, schema });
  receiver = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      received.push(text);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
});
afterAll(async () => {
  await new Promise((resolve) => receiver?.close(resolve));
  await store?.close();
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
  rmSync(dir, { recursive: true, force: true });
});

describe('the alert lock', () => {
  it('on PostgreSQL: of two evaluators of one store, one notifies; the other takes over when it stops', async () => {
    const rules = parseAlertRules({ webhooks: [{ name: 'hook', url }], rules: [{ id: 'stuck', kind: 'stalled-run', after: '1m' }] });
    const run = await store.createRun({ configuration: 'nightly', createdAt: Date.now() - 5 * 60_000 });
    const evaluator = (state: string) =>
      new AlertEvaluator({ store, rules, state: new AlertStateFile(join(dir, state)), lock: new PostgresAlertLock(PG_URL, schema) });
    // separate state files: were both to evaluate, both would notify
    const [a, b] = [evaluator('a.json'), evaluator('b.json')];
    const passes = await Promise.all([a.pass(), b.pass(), a.pass(), b.pass()]);
    expect(passes.filter((p) => p.evaluated)).toHaveLength(2);
    expect(received).toHaveLength(1);
    expect(JSON.parse(received[0]!)).toMatchObject({ status: 'firing', rule: 'stuck', subject: run.id });
    const holder = passes[0]!.evaluated ? a : b;
    const waiting = holder === a ? b : a;
    expect(await waiting.pass()).toEqual({ evaluated: false });
    // another schema is another store: its lock is free
    const elsewhere = new PostgresAlertLock(PG_URL, `${schema}_other`);
    expect(await elsewhere.tryAcquire()).toBe(true);
    await elsewhere.release();
    await holder.close();
    expect(await waiting.pass()).toMatchObject({ evaluated: true });
    await waiting.close();
  });

  it('on SQLite: a lock file of a process that is gone is taken over', async () => {
    const path = join(dir, 'runs.db.alerts.lock');
    const mine = new FileAlertLock(path);
    expect(await mine.tryAcquire()).toBe(true);
    expect(await new FileAlertLock(path).tryAcquire()).toBe(false);
    await mine.release();
    writeFileSync(path, '2147483646\n'); // no such process
    expect(await new FileAlertLock(path).tryAcquire()).toBe(true);
  });
});
