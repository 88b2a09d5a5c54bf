// @runledger/cli as a library: the runs app (to mount in your own node:http server or start on
// its own) and the `runledger` command line run in-process. Everything else of the package (views,
// messages, the demo) is its own business. The CLI's commands, flags, exit codes and --json
// shapes are frozen in api-reports/cli.cli.json, beside this entry's api-reports/cli.api.md.
export { createRunsApp, type RunsAppHandler, type RunsAppOptions } from './app/createRunsApp.js';
export { type RunsServer, type RunsServerOptions, ServeConfigError, startRunsServer } from './app/startRunsServer.js';
export { type CliIo } from './commandKit/CliIo.js';
export { CliExitCode } from './commandKit/cliSurface.js';
export { runCli } from './cli/runCli.js';
export { TIMELINE_PAGE_SIZE } from './views/runView.js';
