import { defineConfig } from 'tsup';

export default defineConfig({
  // index: the app as a library (tests, benchmarks); cli: the `runledger` binary (keeps its
  // shebang); demo-server: the bundled demo MCP servers, started by `runledger demo` as children.
  entry: { index: 'src/index.ts', cli: 'src/cli.ts', 'demo-server': 'src/demo/demoServer.ts' },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  sourcemap: true,
  clean: false,
  dts: false,
  splitting: false,
});
