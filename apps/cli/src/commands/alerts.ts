// `runledger alerts`: evaluates the alert rules of a file against a store and notifies their
// webhooks: once (`--once`, for cron) or every `--every` until stopped. See docs/alerts.md.
import { resolve } from 'node:path';
import { alertEvaluatorFor, alertEveryMs, alertPassText, evaluateEvery } from '../alerts/alertRunner.js';
import type { CliCommand } from '../commandKit/CliCommand.js';
import type { CliIo } from '../commandKit/CliIo.js';
import { CliExitCode, flag, HELP_FLAG, STORE_FLAGS, STORE_SYNOPSIS, type CliFlag } from '../commandKit/cliSurface.js';
import { flagParser, type StoreTarget } from '../commandKit/commandArgs.js';
import { UsageError } from '../commandKit/UsageError.js';
import { withStore } from '../commandKit/withStore.js';

/** The options of `runledger alerts`, as its command line gives them. @internal */
export interface AlertsOptions {
  readonly store: StoreTarget;
  readonly rules: string;
  readonly state: string | null;
  readonly once: boolean;
  readonly everyMs: number;
}

/** One pass (`--once`: exit 1 while notifications are owed) or a pass every `--every` until stopped. */
function run(command: AlertsOptions, io: CliIo): Promise<CliExitCode> {
  return withStore(command.store, async (store) => {
    const evaluator = alertEvaluatorFor(store, command.store, { rules: command.rules, state: command.state });
    if (!command.once) {
      await evaluateEvery(evaluator, command.everyMs, io);
      return CliExitCode.OK;
    }
    try {
      const result = await evaluator.pass();
      io.stdout.write(alertPassText(result));
      return result.evaluated && result.pending > 0 ? CliExitCode.FAILED : CliExitCode.OK;
    } finally {
      await evaluator.close();
    }
  });
}

const FLAGS: readonly CliFlag[] = [
  ...STORE_FLAGS,
  flag('rules', '<file>', { required: true }),
  flag('state', '<file>'),
  flag('once', null),
  flag('every', '<span>', { default: '1m' }),
  HELP_FLAG,
];

/** `runledger alerts`: its flags, usage, parsing and run. @internal */
export const alerts: CliCommand<AlertsOptions> = {
  name: 'alerts',
  arguments: [],
  flags: FLAGS,
  usage: {
    synopsis: `alerts  ${STORE_SYNOPSIS} --rules <file> [--state <file>] [--once | --every <span>]`,
    about: `Evaluate the alert rules of a file against the store and notify their webhooks of every
change (firing, resolved), once each; an operator's cancel never fires a rule. --once makes one
pass (for cron; exit status 1 while a notification is still owed), else a pass every --every
(default 1m) until Ctrl+C. What was notified is kept in --state (default <rules>.state.json); one
process per store evaluates (a PostgreSQL advisory lock, a lock file beside a SQLite file).`,
  },
  jsonOutput: null,
  parse: flagParser('alerts', FLAGS, (args) => {
    args.noPositionals();
    const rules = args.given('rules');
    if (rules === undefined) throw new UsageError('runledger alerts: --rules <file> is required (the alert rules, see docs/alerts.md)');
    if (args.has('once') && args.given('every') !== undefined)
      throw new UsageError('runledger alerts: --once and --every exclude each other');
    const state = args.given('state');
    return {
      store: args.store(),
      rules: resolve(args.env.cwd, rules),
      state: state === undefined ? null : resolve(args.env.cwd, state),
      once: args.has('once'),
      everyMs: alertEveryMs('alerts', 'every', args.defaulted('every')),
    };
  }),
  run,
};
