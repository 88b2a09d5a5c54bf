import { counted } from './counted.js';
import type { RunStore, StoredRun } from '@runledger/trace';
import { resolveRunId, RUN_ID_PREFIX_MIN_LENGTH } from '../app/resolveRunId.js';
import type { CliIo } from './CliIo.js';
import { describeStore } from './openStore.js';
import type { StoreTarget } from './commandArgs.js';
import { terminalLine } from './terminalText.js';

/**
 * The run a command line names by its id or a unique prefix of it (`runs show`, `runs cancel`,
 * `export otlp --run`), or null after saying on stderr why there is none: no such run, a prefix too
 * short, or one that starts several runs (listed).
 *
 * @internal
 */
export async function runNamed(
  store: RunStore,
  id: string,
  context: { readonly command: string; readonly store: StoreTarget; readonly io: CliIo },
): Promise<StoredRun | null> {
  const found = await resolveRunId(store, id);
  if (found.kind === 'run') return found.run;
  const { command, io } = context;
  io.stderr.write(
    found.kind === 'ambiguous'
      ? terminalLine`runledger ${command}: "${id}" is the start of ${counted('count.runs', found.ids.length)}; give more of the id:\n` +
          found.ids.map((match) => terminalLine`  ${match}\n`).join('')
      : terminalLine`runledger ${command}: there is no run "${id}" in ${describeStore(context.store)}` +
          (found.kind === 'short' ? terminalLine`; give the full id or a prefix of at least ${RUN_ID_PREFIX_MIN_LENGTH} characters` : '') +
          '\n',
  );
  return null;
}
