/** The CLI's usage text. @internal */
export const USAGE = `Usage: runledger <command> [options]

Commands:
  serve   [--db <file> | --pg <url>] [--port <n>] [--host <addr>] [--token <t>]
          Serve the runs app (default http://127.0.0.1:4310/). Any --host other than a loopback
          address requires a token (--token or RUNLEDGER_TOKEN).
  demo    [--db <file>] [--port <n>] [--host <addr>] [--token <t>] [--no-serve] [--otlp <url>]
          Start the bundled demo MCP servers (docs, flaky, slow) as child processes, record
          scripted agent runs into the SQLite file (default ./runledger.db) and serve the app;
          with --otlp, also send the demo's runs to that OTLP/HTTP endpoint (as export otlp).
          serve and demo stop on Ctrl+C, SIGTERM or SIGHUP, or when the process that
          started them exits (exit status 0); the goodbye line says which.
  runs list [--db <file> | --pg <url>] [--status <s>] [--has failed|cancelled] [--limit <n>] [--json]
  runs show <id | id prefix of 8+ characters> [--db <file> | --pg <url>] [--json]
          List runs newest first, or print one run's timeline (metadata only) and, while it
          runs, the tool calls on the wire.
  runs recover [--db <file> | --pg <url>] [--stale-after <d>] [--json]
          Mark interrupted every running run without a sign of life (heartbeat) for <d>
          (default 10m; e.g. 90s, 2h): runs whose process is gone. A run whose cancel was
          requested ends cancelled. Run it from cron or your supervisor.
  servers [--db <file> | --pg <url>] [--window 24h|7d|all] [--json]
          Print the health of every MCP server (failure rate excludes cancellations).
  migrate [--db <file> | --pg <url>]
          Create or upgrade the store's schema, and say which. The read commands (runs,
          servers, serve) never create a store: a missing one is an error.
  prune --older-than <d> [--db <file> | --pg <url>] [--dry-run] [--json]
          Delete every run that ended more than <d> ago (30d, 12h, 90m, 2w), whole: its steps,
          its row and its share of server health, in short batches while recording goes on.
          Running runs are never deleted. --dry-run counts what would go and deletes nothing.
  spool list [--spool-dir <dir>] [--json]
  spool deliver [--db <file> | --pg <url>] [--spool-dir <dir>] [--all] [--set-aside] [--json]
          List, or deliver to the store, the steps and final statuses that recording processes
          spooled while their store could not take them (default dir: RUNLEDGER_SPOOL_DIR, else
          ~/.runledger/spool). Files of processes still alive are skipped unless --all. Exits 1
          when something could not be delivered (the file is kept; run it again) or was lost;
          --set-aside renames a file that can never be delivered (its run is gone) to
          <file>.set-aside. A missing store is an error, as for the read commands.
  copy    --db <file> --pg <url> [--pg-schema <name>]
          Copy every run from a SQLite file into PostgreSQL (runs already there are skipped).
  export otlp --endpoint <url> [--run <id> | --since <time>] [--headers k=v,...] [--privacy <level>] [--timeout <ms>] [--json]
          Send stored runs to an OpenTelemetry backend over OTLP/HTTP (protobuf), one trace per
          run (docs/otel.md); /v1/traces is added to a URL without a path. <time>: a date or time
          (2026-11-30, 2026-11-30T08:00:00Z) or a span back from now (90m, 24h, 7d). Safe to
          repeat: a run gives the same trace and span ids each time. Privacy (none, metadata,
          redacted, full) default metadata: no prompt, answer, argument or result text is sent.
          A progress line per run on stderr; runs still running are skipped. --timeout (default
          10000, at most 3600000): how long one request may take, retries included; a request
          without a complete answer by then, or refused (named by its HTTP status), exits 1.
  help    Print this text.

Store: --db <file> (SQLite, default ./runledger.db) or --pg <url> (PostgreSQL, or RUNLEDGER_PG_URL),
       with --pg-schema <name> for a schema other than the store's default.
Times: --since, --stale-after and --older-than must not reach back before 1970-01-01 (exit 2).
`;
