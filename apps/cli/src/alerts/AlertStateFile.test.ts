import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AlertStateError, AlertStateFile, EMPTY_ALERT_STATE } from './AlertStateFile.js';

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
    };
    file.save(data);
    expect(new AlertStateFile(file.path).load()).toEqual(data);
    expect(readdirSync(dir)).toEqual(['a.json']);
  });

  it('refuses a file that is not a state file, naming it and what to do', () => {
    const path = join(dir, 'b.json');
    for (const text of ['{', '{"version":2,"states":{},"outbox":[]}', '{"version":1,"states":{}}', '[]']) {
      writeFileSync(path, text);
      expect(() => new AlertStateFile(path).load(), text).toThrow(AlertStateError);
      expect(() => new AlertStateFile(path).load(), text).toThrow(
        `${path} is not an alert state file of runledger (version 1 with states and outbox); move it away to start afresh`,
      );
    }
  });
});
