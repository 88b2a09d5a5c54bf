// Issue 40 item 7: `runledger --help`, `<command> --help`, `help <command>` and `--version` start
// as quickly as a bare `node`: the binary answers them without loading a command, zod, a store or
// an SDK (a resolve hook that refuses every such import proves it), and says byte for byte what
// the router says. (The time itself is a benchmark: bench/startup.bench.mjs.)
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_COMMANDS } from '../src/cli/cliCommands.js';
import { BIN, BIN_ENV, cli, type CliResult } from './cliHelpers.js';

let dir: string;
let register: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'runledger-quick-answer-'));
  // refuses to resolve a package: the binary's modules are its own files (node: builtins aside)
  writeFileSync(
    join(dir, 'hooks.mjs'),
    `export async function resolve(specifier, context, next) {
  if (!/^(node:|\\.|\\/|file:)/.test(specifier) && !/^(fs|path|url|os|util)$/.test(specifier)) throw new Error('loaded the package ' + specifier);
  return next(specifier, context);
}
`,
  );
  register = join(dir, 'register.mjs');
  writeFileSync(
    register,
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`,
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the real binary with no package importable. */
function runBinWithoutPackages(args: readonly string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', register, BIN, ...args], { cwd: dir, env: BIN_ENV }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
    });
  });
}

/** The command lines the build answered (dist/cli-help.json), as words. */
const answered = (): string[][] =>
  Object.keys(JSON.parse(readFileSync(new URL('../dist/cli-help.json', import.meta.url), 'utf8')) as object).map((key) => key.split('\0'));

describe('the binary answers --help and --version without loading a package', () => {
  it('the build answers the usage of the program, of every command and of every group, each three ways', () => {
    const keys = answered().map((argv) => argv.join(' '));
    expect(keys).toEqual(expect.arrayContaining(['--help', '-h', 'help', 'runs --help', 'help spool', 'export -h']));
    for (const command of CLI_COMMANDS.filter((c) => c.flags.some((f) => f.name === 'help'))) {
      expect(keys, command.name).toEqual(expect.arrayContaining([`help ${command.name}`, `${command.name} --help`, `${command.name} -h`]));
    }
  });

  it('every answer is the router’s, byte for byte, with no package loaded', { timeout: 180_000 }, async () => {
    const lines = [...answered(), ['--version'], ['version']];
    // four binaries at a time: a few dozen starts
    for (let i = 0; i < lines.length; i += 4) {
      await Promise.all(
        lines.slice(i, i + 4).map(async (argv) => {
          const [quick, router] = await Promise.all([runBinWithoutPackages(argv), cli(argv, dir)]);
          expect(quick, argv.join(' ')).toEqual({ code: 0, stdout: router.stdout, stderr: '' });
          expect(router.code).toBe(0);
        }),
      );
    }
  });

  it('any other command line goes to the router (which loads the packages it needs)', async () => {
    for (const argv of [['runs', 'list', '--limit', '5', '--help'], ['help', 'nope'], ['version', '--help'], []]) {
      const refused = await runBinWithoutPackages(argv);
      expect(refused.code, argv.join(' ')).not.toBe(0);
      expect(refused.stderr, argv.join(' ')).toContain('loaded the package');
    }
  });
});
