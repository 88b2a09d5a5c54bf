import type { AlertFacts } from '../alerts/evaluateAlerts.js';
import type { Translator } from './Translator.js';

/**
 * An alert's sentence in a language: `server search is flaky: 40.0% of 25 answered calls failed in
 * the last 1 hr`. The evaluator makes the English one every webhook and terminal line carries; the
 * servers page says it in its own language. Durations and figures in the app's one format.
 *
 * @internal
 */
export function alertSummaryText(t: Translator, facts: AlertFacts): string {
  switch (facts.kind) {
    case 'flaky':
      return t.t('alerts.summary.flaky', {
        server: facts.server,
        rate: t.ratio(facts.failureRate),
        count: facts.answered,
        window: t.duration(facts.windowMs),
      });
    case 'failure-rate':
      return t.t('alerts.summary.failureRate', {
        server: facts.server,
        rate: t.ratio(facts.failureRate),
        count: facts.answered,
        window: t.duration(facts.windowMs),
        limit: t.ratio(facts.aboveRate),
      });
    case 'p95':
      return t.t('alerts.summary.p95', {
        server: facts.server,
        p95: t.duration(facts.p95Ms),
        count: facts.answered,
        window: t.duration(facts.windowMs),
        limit: t.duration(facts.aboveMs),
      });
    case 'stalled-run':
      return t.t('alerts.summary.stalledRun', {
        run: facts.runId,
        configuration: facts.configuration,
        silent: t.duration(facts.silentMs),
        after: t.duration(facts.afterMs),
      });
    case 'may-have-executed':
      return t.t('alerts.summary.mayHaveExecuted', {
        tool: facts.tool ?? t.t('alerts.summary.someTool'),
        server: facts.server,
        run: facts.runId,
        // a step number, not a quantity: no grouping
        step: String(facts.sequence),
      });
  }
}
