import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ALERT_HISTORY_LIMIT, AlertStateError, AlertStateFile, EMPTY_ALERT_STATE, withHistory } from './AlertStateFile.js';

const dir = mkdtempSync(join(tmpdir(), 'runledger-alert-state-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the alert state file', () => {
  it('reads as empty when missing, keeps what was saved, and leaves nothing aside', () => {
    const file = new AlertStateFile(join(dir, 'a.json'));
    expect(file.load()).toEqual(EMPTY_ALERT_STATE);
    const alert = { key: 'r|s', ruleId: 'r', kind: 'flaky' as const, subject: 's', since: 1, value: 0.5, summary: 'x' };
    const data = {
      states: { 'r|s': alert },
      outbox: [{ id: 'r|s|1|firing', webhook: 'w', transition: { type: 'firing' as const, alert, at: 1 } }],
      history: [{ transition: { type: 'firing' as const, alert, at: 1 }, webhooks: 1 }],
    };
    file.save(data);
    expect(new AlertStateFile(file.path).load()).toEqual(data);
    expect(readdirSync(dir)).toEqual(['a.json']);
  });

  it('refuses a file that is not a state file, naming it and what to do', () => {
    const path = join(dir, 'b.json');
    for (const text of [
      '{',
      '{"version":2,"states":{},"outbox":[]}',
      '{"version":3,"states":{},"outbox":[],"history":[]}',
      '{"version":1,"states":{}}',
      '[]',
    ]) {
      writeFileSync(path, text);
      expect(() => new AlertStateFile(path).load(), text).toThrow(AlertStateError);
      expect(() => new AlertStateFile(path).load(), text).toThrow(
        `${path} is not an alert state file of runledger (version 1 with states and outbox, or version 2 with history too)`,
      );
      expect(() => new AlertStateFile(path).load(), text).toThrow(/; move it away to start afresh$/);
    }
  });

  it('refuses a state file whose entries break their shape, naming the field (the servers page then says it cannot be read)', () => {
    const path = join(dir, 'd.json');
    const alert = { key: 'r|s', ruleId: 'r', kind: 'flaky', subject: 's', since: 1, value: null, summary: 'x' };
    const good = { transition: { type: 'firing', alert, at: 2 }, webhooks: 1 };
    for (const [history, field] of [
      [[good, 42], 'history.1'],
      [[{ ...good, transition: { ...good.transition, at: 'soon' } }], 'history.0.transition.at'],
      [[{ ...good, webhooks: -1 }], 'history.0.webhooks'],
      [[{ ...good, transition: { ...good.transition, alert: { ...alert, summary: undefined } } }], 'history.0.transition.alert.summary'],
    ] as const) {
      writeFileSync(path, JSON.stringify({ version: 2, states: {}, outbox: [], history }));
      expect(() => new AlertStateFile(path).load(), field).toThrow(
        `is not an alert state file of runledger (version 1 with states and outbox, or version 2 with history too): ${field} `,
      );
    }
    writeFileSync(path, JSON.stringify({ version: 2, states: { 'r|s': { ...alert, since: null } }, outbox: [], history: [] }));
    expect(() => new AlertStateFile(path).load()).toThrow(': states.r|s.since ');
    writeFileSync(path, JSON.stringify({ version: 2, states: {}, outbox: [], history: [good] }));
    expect(new AlertStateFile(path).load().history).toEqual([good]);
  });

  it('reads a version 1 file (before the history) as having none, and saves it as version 2', () => {
    const path = join(dir, 'c.json');
    const alert = { key: 'r|s', ruleId: 'r', kind: 'flaky' as const, subject: 's', since: 1, value: 0.5, summary: 'x' };
    writeFileSync(path, JSON.stringify({ version: 1, states: { 'r|s': alert }, outbox: [] }));
    const file = new AlertStateFile(path);
    const old = file.load();
    expect(old).toEqual({ states: { 'r|s': alert }, outbox: [], history: [] });
    file.save({ ...old, history: withHistory(old.history, [{ type: 'resolved', alert, at: 2 }], 0) });
    expect(JSON.parse(readFileSync(path, 'utf8')).version).toBe(2);
    expect(file.load().history).toEqual([{ transition: { type: 'resolved', alert, at: 2 }, webhooks: 0 }]);
  });

  it('keeps an alert’s facts (the page says the alert in its language), and drops facts it cannot read, keeping the alert', () => {
    const path = join(dir, 'facts.json');
    const facts = { kind: 'p95' as const, server: 's', p95Ms: 2500, answered: 40, windowMs: 3_600_000, aboveMs: 2000 };
    const alert = { key: 'r|s', ruleId: 'r', kind: 'p95' as const, subject: 's', since: 1, value: 2500, summary: 'x', facts };
    const file = new AlertStateFile(path);
    file.save({ states: { 'r|s': alert }, outbox: [], history: [] });
    expect(file.load().states['r|s']).toEqual(alert);
    const { facts: _kept, ...withoutFacts } = alert;
    for (const torn of [{ ...facts, p95Ms: -1 }, { ...facts, kind: 'later' }, { kind: 'flaky', server: 's' }, 'facts']) {
      writeFileSync(path, JSON.stringify({ version: 2, states: { 'r|s': { ...alert, facts: torn } }, outbox: [], history: [] }));
      const loaded = file.load().states['r|s'];
      expect(loaded).toEqual(withoutFacts);
      expect(loaded?.facts).toBeUndefined();
    }
  });

  it('keeps the last ALERT_HISTORY_LIMIT changes, dropping the oldest', () => {
    const alert = { key: 'r|s', ruleId: 'r', kind: 'flaky' as const, subject: 's', since: 1, value: null, summary: 'x' };
    const change = (at: number) => ({ type: 'firing' as const, alert, at });
    let history = withHistory([], [], 1);
    expect(history).toEqual([]);
    for (let at = 0; at < ALERT_HISTORY_LIMIT + 30; at += 2) history = withHistory(history, [change(at), change(at + 1)], 1);
    expect(history).toHaveLength(ALERT_HISTORY_LIMIT);
    expect(history[0]?.transition.at).toBe(30);
    expect(history.at(-1)?.transition.at).toBe(ALERT_HISTORY_LIMIT + 29);
  });
});
