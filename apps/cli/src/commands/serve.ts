// `runledger serve`: the runs app on a store that exists, until Ctrl+C.
import { checkServeConfig } from '../app/startRunsServer.js';
import type { CliIo } from '../commandKit/CliIo.js';
import { CliExitCode } from '../commandKit/cliSurface.js';
import { describeStore, openExistingStore } from '../commandKit/openStore.js';
import type { Command } from '../cli/parseCommand.js';
import { serveStore } from '../commandKit/serveStore.js';

/** Serves the store the command names until stopped. @internal */
export async function serve(command: Extract<Command, { name: 'serve' }>, io: CliIo): Promise<CliExitCode> {
  checkServeConfig(command.host, command.token);
  const store = await openExistingStore(command.store);
  try {
    await serveStore(io, store, { ...command, what: describeStore(command.store) });
  } finally {
    await store.close();
  }
  return CliExitCode.OK;
}
