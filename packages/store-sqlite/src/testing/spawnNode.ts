import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Starts `node src/testing/<script>` with arguments; stdout is piped. */
export function spawnNode(script: string, args: readonly string[]): ChildProcess {
  const file = fileURLToPath(new URL(`./${script}`, import.meta.url));
  return spawn(process.execPath, [file, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
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
