// `runledger migrate`: creates or upgrades the store's schema, and says which.
import type { CliIo } from '../commandKit/CliIo.js';
import { CliExitCode } from '../commandKit/cliSurface.js';
import type { Command } from '../cli/parseCommand.js';
import { currentSchemaVersion, describeStore, openStore, storeSchemaVersion } from '../commandKit/openStore.js';
import { terminalLine } from '../commandKit/terminalText.js';
import { withStore } from '../commandKit/withStore.js';

/** Opens (creating or upgrading) the store the command names and says what changed. @internal */
export async function migrate(command: Extract<Command, { name: 'migrate' }>, io: CliIo): Promise<CliExitCode> {
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
