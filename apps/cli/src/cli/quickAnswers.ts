// What the `runledger` binary answers without loading its commands: the usage texts, computed at
// build time (tsup.config.ts writes them into dist/cli-help.json) by running the router itself,
// so the answers are the router's own, byte for byte.
import { CliExitCode } from '../commandKit/cliSurface.js';
import { CLI_COMMANDS } from './cliCommands.js';
import { runCli } from './runCli.js';
import { quickAnswerKey } from './quickAnswer.js';
import { firstWords, subcommandsOf } from './usage.js';

/** The command lines that ask for a usage: `--help`, `help [<topic>]`, `<topic> --help` and `-h`, for every command and group. */
function usageLines(): string[][] {
  const topics = [
    ...CLI_COMMANDS.map((command) => command.name),
    ...firstWords(CLI_COMMANDS).filter((word) => subcommandsOf(CLI_COMMANDS, word).length > 0),
  ];
  return [
    ['--help'],
    ['-h'],
    ['help'],
    ...topics.flatMap((topic) => {
      const words = topic.split(' ');
      return [
        ['help', ...words],
        [...words, '--help'],
        [...words, '-h'],
      ];
    }),
  ];
}

/**
 * What the router prints on stdout for every command line that asks for a usage and succeeds
 * (exit 0, nothing on stderr), by the key of its words ({@link quickAnswerKey}).
 *
 * @internal
 */
export async function quickAnswers(): Promise<Record<string, string>> {
  const answers: Record<string, string> = {};
  for (const argv of usageLines()) {
    let stdout = '';
    let stderr = '';
    const code = await runCli(argv, {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
      env: {},
      cwd: '/',
    });
    if (code === CliExitCode.OK && stderr === '') answers[quickAnswerKey(argv)] = stdout;
  }
  return answers;
}
