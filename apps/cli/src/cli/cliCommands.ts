// The commands of the `runledger` command line, in the order its usage lists them: each one a
// module of src/commands/ (help excepted: it is the router's own, since it prints them all).
import type { CliCommand } from '../commandKit/CliCommand.js';
import { alerts } from '../commands/alerts.js';
import { copy } from '../commands/copy.js';
import { demo } from '../commands/demo.js';
import { exportOtlp } from '../commands/exportOtlp.js';
import { migrate } from '../commands/migrate.js';
import { prune } from '../commands/prune.js';
import { runsCancel } from '../commands/runsCancel.js';
import { runsList } from '../commands/runsList.js';
import { runsRecover } from '../commands/runsRecover.js';
import { runsShow } from '../commands/runsShow.js';
import { serve } from '../commands/serve.js';
import { servers } from '../commands/servers.js';
import { spoolDeliver } from '../commands/spoolDeliver.js';
import { spoolList } from '../commands/spoolList.js';
import { version } from '../commands/version.js';
import { helpCommand } from './helpCommand.js';

/** Every command of the CLI: the frozen surface (api-reports/cli.cli.json) is read from them. @internal */
export const CLI_COMMANDS: readonly CliCommand[] = [
  helpCommand(() => CLI_COMMANDS),
  version,
  serve,
  demo,
  runsList,
  runsShow,
  runsRecover,
  runsCancel,
  servers,
  alerts,
  migrate,
  prune,
  spoolList,
  spoolDeliver,
  copy,
  exportOtlp,
];

/**
 * The command of that name.
 *
 * @throws Error from `cliCommand` when the name is not a command of {@link CLI_COMMANDS}.
 * @internal
 */
export function cliCommand(name: string): CliCommand {
  const command = CLI_COMMANDS.find((c) => c.name === name);
  if (command === undefined) throw new Error(`cliCommand: "${name}" is not a command of CLI_COMMANDS`);
  return command;
}
