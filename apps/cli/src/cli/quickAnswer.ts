// The binary's answer to `--help`, `help <command>`, `<command> --help` and `--version` without
// loading a command (zod, the stores, the MCP and AI SDKs): a start as quick as a bare `node`.
import { readFileSync } from 'node:fs';
import { versionLine } from '../commands/version.js';

/** The key of a command line in the build's answers: its words, joined by NUL (which no argument holds). @internal */
export const quickAnswerKey = (argv: readonly string[]): string => argv.join('\0');

/**
 * What the binary prints for a command line that asks only for a usage or the version, or null
 * for any other (and when `answersFile`, the build's dist/cli-help.json, is missing): the usage
 * from the answers the router gave at build time (src/cli/quickAnswers.ts), the version from the
 * package.json as `runledger version` reads it.
 *
 * @internal
 */
export function quickAnswer(argv: readonly string[], answersFile: URL): string | null {
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === 'version')) return versionLine();
  if (!argv.some((word) => word === '--help' || word === '-h' || word === 'help')) return null;
  let answers: Record<string, unknown>;
  try {
    answers = JSON.parse(readFileSync(answersFile, 'utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
  const answer = answers[quickAnswerKey(argv)];
  return typeof answer === 'string' ? answer : null;
}
