// Builds the package's JavaScript (not its declarations) before the tests: the CLI tests run the
// real `dist/cli.js` binary and the demo starts `dist/demo-server.js` as child processes.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const require = createRequire(join(root, 'package.json'));
  const manifest = require.resolve('tsup/package.json');
  const bin = (JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> }).bin['tsup'];
  if (bin === undefined) throw new Error('tsup has no bin');
  execFileSync(process.execPath, [join(dirname(manifest), bin), '--silent', '--no-clean'], { cwd: root, stdio: 'inherit' });
}
