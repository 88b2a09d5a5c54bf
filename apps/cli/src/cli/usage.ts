// The usage text of the `runledger` command line, built from the commands' own usage (each
// command module declares its synopsis and what it does).
import type { CliCommand } from '../commandKit/CliCommand.js';

const STORE_PARAGRAPH = `Store: --db <file> (SQLite, default ./runledger.db) or --pg <url> (PostgreSQL, or RUNLEDGER_PG_URL),
       with --pg-schema <name> for a schema other than the store's default.
`;
const TIMES_PARAGRAPH = `Times: --since, --until, --stale-after and --older-than must not reach back before 1970-01-01 (exit 2).
`;
/** The commands whose flags reach back in time. */
const TIME_FLAGS = ['since', 'until', 'stale-after', 'older-than'];

const indent = (text: string, by: string): string =>
  text
    .split('\n')
    .map((line) => by + line)
    .join('\n');

/** The CLI's usage text: every command (`runledger help`, `runledger --help`). @internal */
export function programUsage(commands: readonly CliCommand[]): string {
  return `Usage: runledger <command> [options]
       runledger <command> --help   (the usage of one command)

Commands:
${commands.map(({ usage }) => `  ${usage.synopsis}\n${indent(usage.about, '          ')}\n`).join('')}
${STORE_PARAGRAPH}${TIMES_PARAGRAPH}`;
}

/** The first words of the commands (`runs` for `runs list`), in their declared order. @internal */
export function firstWords(commands: readonly CliCommand[]): string[] {
  return [...new Set(commands.map((command) => command.name.split(' ')[0]!))];
}

/** The subcommands of a group (`list`, `show`, … of `runs`), in their declared order; none for a command of one word. @internal */
export function subcommandsOf(commands: readonly CliCommand[], group: string): string[] {
  return commands.filter((command) => command.name.startsWith(`${group} `)).map((command) => command.name.slice(group.length + 1));
}

/**
 * The usage of one command (`runs list`), or of a group of subcommands (`runs`): its synopsis,
 * what it does, and the store and time paragraphs when its flags need them.
 *
 * @throws Error from `commandUsage` when the name is neither a command nor a group.
 * @internal
 */
export function commandUsage(commands: readonly CliCommand[], name: string): string {
  const named = commands.find((command) => command.name === name);
  const shown = named !== undefined ? [named] : commands.filter((command) => command.name.startsWith(`${name} `));
  if (shown.length === 0) throw new Error(`commandUsage: "${name}" is neither a command nor a group of commands`);
  const flags = new Set(shown.flatMap((command) => command.flags.map((f) => f.name)));
  const sections = shown.map(
    ({ usage }) => `Usage: runledger ${usage.synopsis.replace(/^(\S+(?: \S+)?) {2,}/, '$1 ')}\n${indent(usage.about, '  ')}\n`,
  );
  return (
    sections.join('\n') +
    (flags.has('pg') ? `\n${STORE_PARAGRAPH}` : '') +
    (TIME_FLAGS.some((f) => flags.has(f)) ? `${flags.has('pg') ? '' : '\n'}${TIMES_PARAGRAPH}` : '')
  );
}
