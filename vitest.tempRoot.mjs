// Vitest global setup of every package: the run's temporary files go to one folder of their own,
// removed when the run ends. Tests, the servers and browsers they start, and the helpers they
// share make their scratch folders under os.tmpdir() and remove them themselves where they can;
// a worker process that vitest ends does not run its exit handlers, so what they leave goes with
// this folder instead of piling up in /tmp.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export default function setup() {
  const previous = process.env.TMPDIR;
  const root = mkdtempSync(path.join(tmpdir(), 'runledger-test-'));
  // read by os.tmpdir() in this process and in every worker and child process started after it
  process.env.TMPDIR = root;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(root, { recursive: true, force: true });
  };
}
