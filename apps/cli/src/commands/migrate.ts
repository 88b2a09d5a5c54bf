// `runledger migrate`: creates or upgrades the store's schema, and says which.
import type { CliIo } from '../commandKit/CliIo.js';
import { CliExitCode, HELP_FLAG, STORE_SYNOPSIS, type CliFlag, STORE_FLAGS } from '../commandKit/cliSurface.js';
import { currentSchemaVersion, describeStore, openStore, storeSchemaVersion } from '../commandKit/openStore.js';
import { terminalLine } from '../commandKit/terminalText.js';
import { withStore } from '../commandKit/withStore.js';
import type { CliCommand } from '../commandKit/CliCommand.js';
import { flagParser, type StoreTarget } from '../commandKit/commandArgs.js';

/** The options of `runledger migrate`, as its command line gives them. @internal */
export interface MigrateOptions {
  readonly store: StoreTarget;
}

/** Opens (creating or upgrading) the store the command names and says what changed. */
async function run(command: MigrateOptions, io: CliIo): Promise<CliExitCode> {
  const before = await storeSchemaVersion(command.store);
  await withStore(command.store, async () => undefined, openStore);
  const after = (await storeSchemaVersion(command.store)) ?? (await currentSchemaVersion(command.store));
  const what = describeStore(command.store);
  io.stdout.write(
    before === null || before === 0
      ? terminalLine`${what}: created at schema version ${after}\n`
      : before === after
        ? terminalLine`${what}: already at schema version ${after}; nothing to do\n`
        : terminalLine`${what}: upgraded from schema version ${before} to ${after}\n`,
  );
  return CliExitCode.OK;
}

const FLAGS: readonly CliFlag[] = [...STORE_FLAGS, HELP_FLAG];

/** `runledger migrate`: its flags, usage, parsing, `--json` shape and run. @internal */
export const migrate: CliCommand<MigrateOptions> = {
  name: 'migrate',
  arguments: [],
  flags: FLAGS,
  usage: {
    synopsis: `migrate ${STORE_SYNOPSIS}`,
    about: `Create or upgrade the store's schema, and say which. The read commands (runs,
servers, serve) never create a store: a missing one is an error.`,
  },
  jsonOutput: null,
  parse: flagParser('migrate', FLAGS, (args) => {
    args.noPositionals();
    return { store: args.store() };
  }),
  run,
};
