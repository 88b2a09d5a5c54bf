import { CLI_COMMANDS, cliCommand } from '../commandKit/cliSurface.js';

/** One command's usage: its synopsis (after `runledger `) and what it does, in lines of at most 100 characters. */
interface CommandUsage {
  readonly synopsis: string;
  readonly about: string;
}

const STORE = '[--db <file> | --pg <url>]';

/** The usage of every command, by name (each command of CLI_COMMANDS has one; a test holds them together). */
const COMMAND_USAGE: Readonly<Record<string, CommandUsage>> = {
  serve: {
    synopsis: `serve   ${STORE} [--port <n>] [--host <addr>] [--token <t>]`,
    about: `Serve the runs app (default http://127.0.0.1:4310/). Any --host other than a loopback
address requires a token (--token or RUNLEDGER_TOKEN). Stops on Ctrl+C, SIGTERM or SIGHUP, or
when the process that started it exits (exit status 0); the goodbye line says which.`,
  },
  demo: {
    synopsis: 'demo    [--db <file>] [--port <n>] [--host <addr>] [--token <t>] [--no-serve] [--otlp <url>]',
    about: `Start the bundled demo MCP servers (docs, flaky, slow) as child processes, record
scripted agent runs into the SQLite file (default ./runledger.db) and serve the app (as serve);
with --otlp, also send the demo's runs to that OTLP/HTTP endpoint (as export otlp).`,
  },
  'runs list': {
    synopsis: `runs list ${STORE} [--status <s>] [--has ok|failed|cancelled] [--configuration <name>] [--server <id>] [--tool <name>] [--title <text>] [--since <time>] [--until <time>] [--limit <n>] [--json]`,
    about: `List runs newest first (--limit 1 to 200, default 20) and what all pages add up to (runs, tokens).
--server, --tool: an ended call to that server, of that tool; --title: text in the title (A-Z in any
case); <time>: a date or time (2026-11-30T08:00:00Z) or a span back from now (90m, 24h, 7d).`,
  },
  'runs show': {
    synopsis: `runs show <id | id prefix of 8+ characters> ${STORE} [--json]`,
    about: `Print one run's timeline (metadata only) and, while it runs, the tool calls on the wire.
An id prefix that starts more than one run is refused, listing them.`,
  },
  'runs recover': {
    synopsis: `runs recover ${STORE} [--stale-after <d>] [--json]`,
    about: `Mark interrupted every running run without a sign of life (heartbeat) for <d>
(default 10m; e.g. 90s, 2h): runs whose process is gone. A run whose cancel was
requested ends cancelled. Run it from cron or your supervisor.`,
  },
  'runs cancel': {
    synopsis: `runs cancel <id | id prefix of 8+ characters> ${STORE} [--json]`,
    about: `Cancel a running run, as the app's Cancel button does: the process running it stops its
calls and ends it cancelled. On a run that has ended, the request is kept as a late cancel and
changes nothing.`,
  },
  servers: {
    synopsis: `servers ${STORE} [--window 24h|7d|all] [--json]`,
    about: 'Print the health of every MCP server (failure rate excludes cancellations).',
  },
  migrate: {
    synopsis: `migrate ${STORE}`,
    about: `Create or upgrade the store's schema, and say which. The read commands (runs,
servers, serve) never create a store: a missing one is an error.`,
  },
  prune: {
    synopsis: `prune --older-than <d> ${STORE} [--dry-run] [--json]`,
    about: `Delete every run that ended more than <d> ago (30d, 12h, 90m, 2w), whole: its steps,
its row and its share of server health, in short batches while recording goes on.
Running runs are never deleted. --dry-run counts what would go and deletes nothing.`,
  },
  'spool list': {
    synopsis: 'spool list [--spool-dir <dir>] [--json]',
    about: `List the steps and final statuses that recording processes spooled while their store
could not take them (default dir: RUNLEDGER_SPOOL_DIR, else ~/.runledger/spool).`,
  },
  'spool deliver': {
    synopsis: `spool deliver ${STORE} [--spool-dir <dir>] [--all] [--set-aside] [--json]`,
    about: `Deliver the spooled steps and final statuses to the store. Files of processes still
alive are skipped unless --all. Exits 1 when something could not be delivered (the file is
kept; run it again) or was lost; --set-aside renames a file that can never be delivered (its
run is gone) to <file>.set-aside. A missing store is an error, as for the read commands.`,
  },
  copy: {
    synopsis: 'copy    --db <file> --pg <url> [--pg-schema <name>]',
    about: 'Copy every run from a SQLite file into PostgreSQL (runs already there are skipped).',
  },
  'export otlp': {
    synopsis: `export otlp --endpoint <url> [--run <id | id prefix> | --since <time>] [--headers k=v,...] [--privacy <level>] [--timeout <ms>] [--json]`,
    about: `Send stored runs to an OpenTelemetry backend over OTLP/HTTP (protobuf), one trace per
run (docs/otel.md); /v1/traces is added to a URL without a path. <time>: a date or time
(2026-11-30, 2026-11-30T08:00:00Z) or a span back from now (90m, 24h, 7d). Safe to
repeat: a run gives the same trace and span ids each time. Privacy (none, metadata,
redacted, full) default metadata: no prompt, answer, argument or result text is sent.
A progress line per run on stderr; runs still running are skipped. --timeout (default
10000, at most 3600000): how long one request may take, retries included; a request
without a complete answer by then, or refused (named by its HTTP status), exits 1.`,
  },
  help: { synopsis: 'help    [<command>]', about: 'Print this text, or the usage of one command (as <command> --help does).' },
  version: { synopsis: 'version', about: 'Print the version of runledger (also --version).' },
};

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

function usageOf(name: string): CommandUsage {
  const usage = COMMAND_USAGE[name];
  if (usage === undefined) throw new Error(`usage: "${name}" has no usage in COMMAND_USAGE`);
  return usage;
}

/** The CLI's usage text: every command (`runledger help`, `runledger --help`). @internal */
export const USAGE = `Usage: runledger <command> [options]
       runledger <command> --help   (the usage of one command)

Commands:
${CLI_COMMANDS.map((command) => {
  const usage = usageOf(command.name);
  return `  ${usage.synopsis}\n${indent(usage.about, '          ')}\n`;
}).join('')}
${STORE_PARAGRAPH}${TIMES_PARAGRAPH}`;

/** The names of the commands of a group (`runs` → runs list, runs show, …), in their declared order. */
function commandsOf(group: string): readonly string[] {
  return CLI_COMMANDS.filter((command) => command.name.startsWith(`${group} `)).map((command) => command.name);
}

/**
 * The usage of one command (`runs list`), or of a group of subcommands (`runs`): its synopsis,
 * what it does, and the store and time paragraphs when its flags need them.
 *
 * @throws Error from `commandUsage` when the name is neither a command nor a group.
 * @internal
 */
export function commandUsage(name: string): string {
  const names = COMMAND_USAGE[name] !== undefined ? [name] : commandsOf(name);
  if (names.length === 0) throw new Error(`commandUsage: "${name}" is neither a command nor a group of CLI_COMMANDS`);
  const flags = new Set(names.flatMap((n) => cliCommand(n).flags.map((f) => f.name)));
  const sections = names.map((n) => {
    const usage = usageOf(n);
    return `Usage: runledger ${usage.synopsis.replace(/^(\S+(?: \S+)?) {2,}/, '$1 ')}\n${indent(usage.about, '  ')}\n`;
  });
  return (
    sections.join('\n') +
    (flags.has('pg') ? `\n${STORE_PARAGRAPH}` : '') +
    (TIME_FLAGS.some((f) => flags.has(f)) ? `${flags.has('pg') ? '' : '\n'}${TIMES_PARAGRAPH}` : '')
  );
}
