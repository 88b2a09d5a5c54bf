import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The export condition of the packages' TypeScript sources (source-condition.mjs at the root). */
const SOURCE_CONDITION = '@runledger/source';

/**
 * Starts `node src/testing/<script>` with arguments; stdout is piped. With `sources`, the script
 * runs under tsx with the sources condition: it imports the package's TypeScript (and its test
 * seams, SqliteRunStoreInternals.ts) instead of the built dist.
 */
export function spawnNode(script: string, args: readonly string[], options: { readonly sources?: boolean } = {}): ChildProcess {
  const file = fileURLToPath(new URL(`./${script}`, import.meta.url));
  const loader = options.sources === true ? ['--import', 'tsx', `--conditions=${SOURCE_CONDITION}`] : [];
  return spawn(process.execPath, [...loader, file, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Resolves with the exit code, stdout and stderr of a child. */
export function finished(
  child: ChildProcess,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}
