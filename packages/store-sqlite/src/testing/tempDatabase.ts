import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A fresh temporary folder for database files, and a function that removes it. */
export function tempFolder(): { dir: string; file(name?: string): string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'runledger-sqlite-'));
  return {
    dir,
    file: (name = 'runs.db') => path.join(dir, name),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A tool step input for tests. */
export function toolStep(
  server: string,
  outcome: 'ok' | 'failed' | 'cancelled',
  durationMs: number,
  createdAt: number,
  round = 0,
  cause?: string,
): {
  kind: string;
  round: number;
  durationMs: number;
  createdAt: number;
  payload: Record<string, unknown>;
  toolServer: string;
  toolOutcome: 'ok' | 'failed' | 'cancelled';
} {
  return {
    kind: 'tool',
    round,
    durationMs,
    createdAt,
    payload: {
      kind: 'tool',
      round,
      durationMs,
      toolName: `mcp_${server}_search`,
      toolServer: server,
      toolIsError: outcome !== 'ok',
      toolOutcome: outcome,
      ...(cause === undefined ? {} : { toolFailureCause: cause }),
    },
    toolServer: server,
    toolOutcome: outcome,
  };
}
