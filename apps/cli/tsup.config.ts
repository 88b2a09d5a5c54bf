import { readFileSync, writeFileSync } from 'node:fs';
import { defineConfig, type Options } from 'tsup';
import { packageTsupConfig } from '../../tsup.base.mjs';

// The release line of the optional peer @runledger/store-postgres the CLI is built against: the
// CLI refuses another line at load time (src/commandKit/loadPostgresStore.ts).
const storePostgres = JSON.parse(readFileSync(new URL('../../packages/store-postgres/package.json', import.meta.url), 'utf8')) as {
  version: string;
};

// index: the app as a library (tests, benchmarks); cli: the `runledger` binary (keeps its
// shebang); demo-server: the bundled demo MCP servers, started by `runledger demo` as children;
// cli-surface: the CLI's frozen surface as JSON, read by the API gate (tools/src/lib/cliSurface.ts);
// cli-quick-answers: the usage texts, written after the build into dist/cli-help.json, which the
// binary prints for `--help` without loading a command (src/cli/quickAnswer.ts).
// Split into chunks, so that the binary loads a command's modules (and zod, the stores, the MCP
// and AI SDKs) only when it runs one: src/cli.ts imports the router with a dynamic import().
export default defineConfig({
  ...(packageTsupConfig({
    index: 'src/index.ts',
    cli: 'src/cli.ts',
    'demo-server': 'src/demo/demoServer.ts',
    'cli-surface': 'src/cli/cliSurfaceDocument.ts',
    'cli-quick-answers': 'src/cli/quickAnswers.ts',
  }) as Options),
  splitting: true,
  async onSuccess() {
    const built = new URL('./dist/cli-quick-answers.js', import.meta.url);
    // a fresh URL each build (tsup --watch): import() caches a module by its URL
    const { quickAnswers } = (await import(`${built.href}?${Date.now()}`)) as { quickAnswers(): Promise<Record<string, string>> };
    writeFileSync(new URL('./dist/cli-help.json', import.meta.url), `${JSON.stringify(await quickAnswers())}\n`);
  },
  define: { __RUNLEDGER_STORE_POSTGRES_BUILT_WITH__: JSON.stringify(storePostgres.version) },
});
