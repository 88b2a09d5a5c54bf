// What `runledger alerts` and `runledger serve --alerts` share: an evaluator for a store named on
// the command line, a pass's report in lines, and evaluating on an interval until stopped.
import type { RunStore } from '@runledger/trace';
import type { CliIo } from '../commandKit/CliIo.js';
import type { StoreTarget } from '../commandKit/commandArgs.js';
import { terminalLine } from '../commandKit/terminalText.js';
import { UsageError } from '../commandKit/UsageError.js';
import { AlertEvaluator, type AlertPassResult } from './AlertEvaluator.js';
import { alertLockFor } from './alertLock.js';
import { alertSpanMs, loadAlertRules } from './alertRules.js';
import { AlertStateFile } from '../alertState/AlertStateFile.js';

/** Where a command's alerts come from: the rules file, and the state file (default `<rules>.state.json`). @internal */
export interface AlertFiles {
  readonly rules: string;
  readonly state: string | null;
}

/** The default state file of a rules file. @internal */
export const defaultAlertStatePath = (rules: string): string => `${rules}.state.json`;

/**
 * Reads a span flag (`--every`, `--alerts-every`) as ms.
 *
 * @throws UsageError from `alertEveryMs` naming the command, the flag and its form.
 * @internal
 */
export function alertEveryMs(command: string, flag: string, value: string): number {
  const ms = alertSpanMs(value);
  if (ms === null)
    throw new UsageError(
      `runledger ${command}: --${flag} must be a duration like 30s, 5m or 1h (at least 1s), got ${JSON.stringify(value)}`,
    );
  return ms;
}

/**
 * An evaluator of the store a command opened, with its rules read now.
 *
 * @throws AlertRulesError from `alertEvaluatorFor` when the rules file cannot be read or breaks a rule.
 * @internal
 */
export function alertEvaluatorFor(store: RunStore, target: StoreTarget, files: AlertFiles): AlertEvaluator {
  const rules = loadAlertRules(files.rules);
  return new AlertEvaluator({
    store,
    rules,
    state: new AlertStateFile(files.state ?? defaultAlertStatePath(files.rules)),
    lock: alertLockFor(target),
  });
}

/** A pass in lines for the terminal: each change, each delivery error, and a summary. @internal */
export function alertPassText(result: AlertPassResult): string {
  if (!result.evaluated) return 'alerts: another process evaluates this store (it holds the lock); nothing done\n';
  let text = '';
  for (const t of result.transitions) text += terminalLine`alert ${t.type}: ${t.alert.ruleId}: ${t.alert.summary}\n`;
  for (const error of result.errors) text += terminalLine`alerts: ${error}\n`;
  text += `alerts: ${result.firing.length} firing, ${result.transitions.length} changed, ${result.delivered} delivered, ${result.pending} owed\n`;
  return text;
}

/**
 * Evaluates every `everyMs` (the first pass at once) until `signal` aborts, writing each pass's
 * report; a pass that throws is reported and the next one tried. Resolves when stopped, the lock given up.
 *
 * @internal
 */
export async function evaluateEvery(evaluator: AlertEvaluator, everyMs: number, io: CliIo, quiet = false): Promise<void> {
  const signal = io.signal;
  const stopped = (): boolean => signal?.aborted === true;
  while (!stopped()) {
    try {
      const result = await evaluator.pass();
      if (!quiet || (result.evaluated && (result.transitions.length > 0 || result.errors.length > 0)))
        io.stdout.write(alertPassText(result));
    } catch (error) {
      io.stderr.write(terminalLine`alerts: the pass failed: ${error instanceof Error ? error.message : String(error)}\n`);
    }
    if (stopped()) break;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, everyMs);
      function done() {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      }
      signal?.addEventListener('abort', done, { once: true });
    });
  }
  await evaluator.close();
}
