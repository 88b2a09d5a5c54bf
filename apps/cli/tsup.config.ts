import { readFileSync } from 'node:fs';
import { defineConfig, type Options } from 'tsup';
import { packageTsupConfig } from '../../tsup.base.mjs';

// The release line of the optional peer @runledger/store-postgres the CLI is built against: the
// CLI refuses another line at load time (src/commandKit/loadPostgresStore.ts).
const storePostgres = JSON.parse(readFileSync(new URL('../../packages/store-postgres/package.json', import.meta.url), 'utf8')) as {
  version: string;
};

// index: the app as a library (tests, benchmarks); cli: the `runledger` binary (keeps its
// shebang); demo-server: the bundled demo MCP servers, started by `runledger demo` as children;
// cli-surface: the CLI's frozen surface as JSON, read by the API gate (tools/src/lib/cliSurface.ts).
export default defineConfig({
  ...(packageTsupConfig({
    index: 'src/index.ts',
    cli: 'src/cli.ts',
    'demo-server': 'src/demo/demoServer.ts',
    'cli-surface': 'src/cli/cliSurfaceDocument.ts',
  }) as Options),
  define: { __RUNLEDGER_STORE_POSTGRES_BUILT_WITH__: JSON.stringify(storePostgres.version) },
});
