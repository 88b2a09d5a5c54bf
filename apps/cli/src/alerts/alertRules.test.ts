import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AlertRulesError, loadAlertRules, parseAlertRules } from './alertRules.js';

const EXAMPLE = {
  webhooks: [
    { name: 'ops', url: 'https://hooks.example.com/runledger' },
    { name: 'slack', url: 'https://hooks.slack.com/services/T/B/X', format: 'slack' },
  ],
  rules: [
    { id: 'flaky', kind: 'flaky', window: '1h' },
    { id: 'search-failing', kind: 'failure-rate', server: 'search', above: 0.25, window: '30m', minCalls: 20 },
    { id: 'slow', kind: 'p95', aboveMs: 2000, window: '15m', minCalls: 10 },
    { id: 'stuck', kind: 'stalled-run', after: '10m' },
    { id: 'unsure-writes', kind: 'may-have-executed', window: '24h' },
  ],
};

describe('the alert rules file', () => {
  it('reads every kind, spans in ms, json the default format', () => {
    const rules = parseAlertRules(EXAMPLE);
    expect(rules.webhooks.map((w) => w.format)).toEqual(['json', 'slack']);
    expect(rules.rules.map((r) => r.kind)).toEqual(['flaky', 'failure-rate', 'p95', 'stalled-run', 'may-have-executed']);
    expect(rules.rules[1]).toMatchObject({ window: 1_800_000, above: 0.25, minCalls: 20, server: 'search' });
    expect(rules.rules[3]).toMatchObject({ after: 600_000 });
  });

  it.each([
    [
      { rules: [{ id: 'x', kind: 'failure-rate', above: 1.5, window: '1h', minCalls: 5 }] },
      'rules[0] ("x").above must be a number from 0 to 1',
    ],
    [{ rules: [{ id: 'x', kind: 'failure-rate', above: 0.1, window: '1h' }] }, 'rules[0] ("x").minCalls is required'],
    [
      { rules: [{ id: 'x', kind: 'p95', aboveMs: 100, window: 'soon' }] },
      'rules[0] ("x").window must be a duration like 30s, 10m, 1h, 7d or 2w (at least 1s), got "soon"',
    ],
    [
      { rules: [{ id: 'x', kind: 'latency' }] },
      'rules[0] ("x").kind must be one of "flaky", "failure-rate", "p95", "stalled-run", "may-have-executed"',
    ],
    [{ rules: [{ id: 'x', kind: 'stalled-run', after: '5m', window: '1h' }] }, 'rules[0] ("x") has unknown field "window"'],
    [
      {
        rules: [
          { id: 'a', kind: 'flaky', window: '1h' },
          { id: 'a', kind: 'flaky', window: '2h' },
        ],
      },
      'rules[1] ("a").id must be unique, "a" is used twice',
    ],
    [{ rules: [] }, 'rules must hold at least one rule'],
    [
      { webhooks: [{ name: 'w', url: 'ftp://x' }], rules: [{ id: 'a', kind: 'flaky', window: '1h' }] },
      'webhooks[0] ("w").url must be an http:// or https:// URL',
    ],
    [
      { webhooks: [{ name: 'w', url: 'http://x', format: 'teams' }], rules: [{ id: 'a', kind: 'flaky', window: '1h' }] },
      'webhooks[0] ("w").format must be "json" or "slack"',
    ],
  ])('refuses %j naming the field and the rule', (input, message) => {
    expect(() => parseAlertRules(input)).toThrow(AlertRulesError);
    expect(() => parseAlertRules(input)).toThrow(message);
  });

  it('names the file when it is missing or not JSON', () => {
    const dir = mkdtempSync(join(tmpdir(), 'runledger-alert-rules-'));
    try {
      expect(() => loadAlertRules(join(dir, 'none.json'))).toThrow(/cannot read the rules file .*none\.json/);
      writeFileSync(join(dir, 'bad.json'), '{ rules: ');
      expect(() => loadAlertRules(join(dir, 'bad.json'))).toThrow(/the rules file .*bad\.json is not JSON/);
      writeFileSync(join(dir, 'ok.json'), JSON.stringify(EXAMPLE));
      expect(loadAlertRules(join(dir, 'ok.json')).rules).toHaveLength(5);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
