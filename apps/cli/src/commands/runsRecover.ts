// `runledger runs recover`: ends the running runs whose process is gone.
import type { CliIo } from '../commandKit/CliIo.js';
import { writeCliJson } from '../commandKit/cliJsonOutputs.js';
import { CliExitCode } from '../commandKit/cliSurface.js';
import type { Command } from '../cli/parseCommand.js';
import { terminalLine } from '../commandKit/terminalText.js';
import { withStore } from '../commandKit/withStore.js';

/** Marks interrupted (or cancelled) every running run without a sign of life for `--stale-after`. @internal */
export function runsRecover(command: Extract<Command, { name: 'runs-recover' }>, io: CliIo): Promise<CliExitCode> {
  return withStore(command.store, async (store) => {
    const ids = await store.recoverInterrupted(Date.now() - command.staleAfterMs);
    if (command.json) {
      writeCliJson(io, 'runs recover', { recovered: ids });
      return CliExitCode.OK;
    }
    io.stdout.write(
      ids.length === 0
        ? 'no stale running runs\n'
        : `${ids.map((id) => terminalLine`recovered ${id}\n`).join('')}${ids.length} runs ended\n`,
    );
    return CliExitCode.OK;
  });
}
