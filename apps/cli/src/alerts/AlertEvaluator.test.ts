// Every state change reaches every webhook once: a real local HTTP receiver that is down, then up
// (answering 503 once), a restart of the evaluator in between, a real SQLite store.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteRunStore } from '@runledger/store-sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlertEvaluator } from './AlertEvaluator.js';
import { FileAlertLock } from './alertLock.js';
import { parseAlertRules, type AlertRules } from './alertRules.js';
import { AlertStateFile } from '../alertState/AlertStateFile.js';
import { alertsPanel } from '../viewModels/alertsPanel.js';
import { toolCallStep as toolStep } from '../../test/toolCallStep.js';

interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Record<string, unknown>;
}

/** A webhook receiver on a fixed port that can be started and stopped; answers 503 `failFirst` times. */
class Receiver {
  readonly received: Received[] = [];
  failFirst = 0;
  #server: Server | null = null;
  constructor(readonly port: number) {}
  start(): Promise<void> {
    const server = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      req.on('end', () => {
        if (this.failFirst > 0) {
          this.failFirst--;
          res.writeHead(503).end();
          return;
        }
        this.received.push({ path: req.url ?? '', headers: req.headers, body: JSON.parse(text) as Record<string, unknown> });
        res.writeHead(204).end();
      });
    });
    this.#server = server;
    return new Promise((resolve) => server.listen(this.port, '127.0.0.1', () => resolve()));
  }
  stop(): Promise<void> {
    const server = this.#server;
    this.#server = null;
    return new Promise((resolve) => (server === null ? resolve() : server.close(() => resolve())));
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let dir: string;
let store: SqliteRunStore;
let receiver: Receiver;
let rules: AlertRules;
const delivery = { attempts: 2, backoffMs: 10, timeoutMs: 2_000 };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'runledger-alerts-'));
  store = await SqliteRunStore.open({ path: join(dir, 'runs.db') });
  receiver = new Receiver(await freePort());
  const url = `http://127.0.0.1:${receiver.port}`;
  rules = parseAlertRules({
    webhooks: [
      { name: 'generic', url: `${url}/generic` },
      { name: 'chat', url: `${url}/slack`, format: 'slack' },
    ],
    rules: [
      { id: 'flaky', kind: 'flaky', window: '1h' },
      { id: 'stuck', kind: 'stalled-run', after: '10m' },
      { id: 'writes', kind: 'may-have-executed', window: '1d' },
    ],
  });
});
afterAll(async () => {
  await receiver?.stop();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

const evaluator = () =>
  new AlertEvaluator({
    store,
    rules,
    state: new AlertStateFile(join(dir, 'alerts.state.json')),
    lock: new FileAlertLock(join(dir, 'runs.db.alerts.lock')),
    delivery,
  });

describe('alert notifications', () => {
  it('deliver every state change once across a receiver down, then up, and evaluator restarts', async () => {
    const now = Date.now();
    const stalled = await store.createRun({ configuration: 'nightly', createdAt: now - 20 * 60_000 });
    const done = await store.createRun({ configuration: 'batch', createdAt: now - 5 * 60_000 });
    for (let i = 0; i < 5; i++) await toolStep(store, done, now - 60_000 + i, 'failed', { toolFailureCause: 'server_error' });
    // a write that timed out: it may have executed (fires); the same write cancelled by the operator never fires
    await toolStep(store, done, now - 50_000, 'failed', { toolWrites: true, toolSends: 1, toolFailureCause: 'mcp_timeout' }, 'db');
    await toolStep(store, done, now - 40_000, 'cancelled', { toolWrites: true, toolSends: 1 }, 'db');
    for (let i = 0; i < 30; i++) await toolStep(store, done, now - 30_000 + i, 'cancelled', {}, 'quiet');

    // the receiver is down: everything is owed, nothing lost
    const first = evaluator();
    const down = await first.pass();
    expect(down).toMatchObject({ evaluated: true, delivered: 0, pending: 6 });
    if (!down.evaluated) throw new Error('not evaluated');
    expect(down.transitions.map((t) => `${t.type} ${t.alert.key}`).sort()).toEqual([
      'firing flaky|flaky',
      `firing stuck|${stalled.id}`,
      `firing writes|${done.id}#5`,
    ]);
    // the servers page's history: each change kept, owed to both webhooks
    const page = () => alertsPanel(new AlertStateFile(join(dir, 'alerts.state.json')).load());
    expect(
      page()
        .changes.map((c) => `${c.type} ${c.ruleId} ${c.delivery} ${c.owedTo}`)
        .sort(),
    ).toEqual(['firing flaky owed 2', 'firing stuck owed 2', 'firing writes owed 2']);
    expect(down.errors.join('\n')).toMatch(/webhook generic: .*ECONNREFUSED.* after 2 tries; kept for the next pass/);
    // another evaluator of the same store meanwhile: the lock says no
    const other = evaluator();
    expect(await other.pass()).toEqual({ evaluated: false });
    await first.close(); // the process stops

    // restarted, the receiver up (its first answer a 503): the owed changes, once each
    await receiver.start();
    receiver.failFirst = 1;
    const second = evaluator();
    const up = await second.pass();
    expect(up).toMatchObject({ evaluated: true, transitions: [], delivered: 6, pending: 0, errors: [] });
    expect(await second.pass()).toMatchObject({ transitions: [], delivered: 0, pending: 0 });
    await second.close();

    // the run ends and the server recovers: resolved, once each, after another restart
    await store.finishRun(stalled.id, { status: 'completed' });
    for (let i = 0; i < 25; i++) await toolStep(store, done, Date.now() - 10_000 + i, 'ok');
    const third = evaluator();
    const resolved = await third.pass();
    if (!resolved.evaluated) throw new Error('not evaluated');
    expect(resolved.transitions.map((t) => `${t.type} ${t.alert.key}`).sort()).toEqual([
      'resolved flaky|flaky',
      `resolved stuck|${stalled.id}`,
    ]);
    expect(resolved).toMatchObject({ delivered: 4, pending: 0 });
    expect(resolved.firing.map((a) => a.key)).toEqual([`writes|${done.id}#5`]);
    await third.close();
    // the page: the one still firing, and five changes, all delivered, the resolves newest
    expect(page().firing.map((a) => a.key)).toEqual([`writes|${done.id}#5`]);
    const changes = page().changes;
    expect(changes.map((c) => `${c.type} ${c.delivery}`)).toEqual([
      ...Array(2).fill('resolved delivered'),
      ...Array(3).fill('firing delivered'),
    ]);
    expect(
      changes
        .slice(0, 2)
        .map((c) => c.ruleId)
        .sort(),
    ).toEqual(['flaky', 'stuck']);

    const keys = receiver.received.map((r) => `${r.path} ${String(r.headers['idempotency-key'])}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toHaveLength(10);
    const generic = receiver.received
      .filter((r) => r.path === '/generic')
      .map((r) => `${String(r.body['status'])} ${String(r.body['rule'])}`);
    expect(generic.sort()).toEqual(['firing flaky', 'firing stuck', 'firing writes', 'resolved flaky', 'resolved stuck']);
    const flaky = receiver.received.find((r) => r.path === '/generic' && r.body['rule'] === 'flaky')!;
    expect(flaky.body).toMatchObject({
      kind: 'flaky',
      subject: 'flaky',
      value: 1,
      source: 'runledger',
      id: flaky.headers['idempotency-key'],
    });
    const texts = receiver.received.filter((r) => r.path === '/slack').map((r) => r.body);
    expect(texts.every((b) => Object.keys(b).join() === 'text')).toBe(true);
    expect(texts.map((b) => String(b['text']).split(' ')[0]).sort()).toEqual([
      '[FIRING]',
      '[FIRING]',
      '[FIRING]',
      '[RESOLVED]',
      '[RESOLVED]',
    ]);
    expect(texts.map((b) => String(b['text'])).join('\n')).toContain('[RESOLVED] flaky: resolved (firing since');
  });
});
