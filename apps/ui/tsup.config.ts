import { packageTsupConfig } from '../../tsup.base.mjs';

// index: the app as a library (tests, benchmarks); cli: the `runledger` binary (keeps its
// shebang); demo-server: the bundled demo MCP servers, started by `runledger demo` as children;
// cli-surface: the CLI's frozen surface as JSON, read by the API gate (tools/src/lib/cliSurface.mjs).
export default packageTsupConfig({
  index: 'src/index.ts',
  cli: 'src/cli.ts',
  'demo-server': 'src/demo/demoServer.ts',
  'cli-surface': 'src/cli/cliSurfaceDocument.ts',
});
