import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { mustRun } from './commands.js';

/**
 * A project of a consuming team, made with plain npm: the runledger packages come from the team's
 * registry (the scope's line in its `.npmrc`), everything else from the normal registry. It
 * records a run against a real MCP server process (its own stdio server, written with the
 * official server SDK) into a SQLite file, with the code of docs/mcp.md.
 */
export interface Consumer {
  dir: string;
  db: string;
  /** Installs the libraries (with the MCP server SDK, zod, TypeScript and Node's types). */
  installLibraries(): void;
  /** Installs the CLI as a dev dependency (`npm i -D`). */
  installCli(): void;
  /** `npm update`: what a team runs to take a new release. */
  update(): void;
  /** `npm install <specs>` (`--save-dev` when `dev`): what a team runs to raise a range. */
  install(specs: string[], opts?: { dev?: boolean }): void;
  /** Every installed copy of a package (`npm ls <name> --all --parseable`), as paths relative to the project. */
  copies(name: string): string[];
  /** Type-checks (`tsc --strict`, nodenext) and compiles the sources; throws with tsc's output. */
  typecheck(): void;
  /** Runs the compiled recorder once; returns the run it stored. */
  record(): { runId: string; status: string; outcome: string };
  /** The installed version of one of the packages. */
  installedVersion(name: string): string;
  /** `npx runledger runs list --db <file>` output. */
  runsList(): string;
}

export const CONSUMER_LIBRARIES = ['@runledger/core', '@runledger/mcp', '@runledger/trace', '@runledger/store-sqlite'];
export const CONSUMER_CLI = '@runledger/cli';

/** The MCP server the consumer's runs call: one tool, `lookup`, over stdio. */
const SERVER = `import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const server = new McpServer({ name: 'consumer-kb', version: '1.0.0' }, { capabilities: { tools: {} } });
server.registerTool(
  'lookup',
  { description: 'Looks a term up in the team glossary.', inputSchema: z.object({ term: z.string() }) },
  async ({ term }) => ({ content: [{ type: 'text', text: term + ': a word the team uses' }] }),
);
await server.connect(new StdioServerTransport());
`;

/** The recorder, as docs/mcp.md wires McpTool, startRun and SqliteRunStore. */
const RECORD = `import { McpServerRegistry, parseServerConfig } from '@runledger/mcp';
import { startRun } from '@runledger/trace';
import { SqliteRunStore } from '@runledger/store-sqlite';

const configText = JSON.stringify({
  servers: [{ id: 'kb', transport: { type: 'stdio', command: process.execPath, args: [new URL('../server.mjs', import.meta.url).pathname] }, deadlineMs: 20000 }],
});

const store = await SqliteRunStore.open({ path: process.argv[2] ?? 'runs.sqlite' });
const registry = McpServerRegistry.create(parseServerConfig(configText));
let outcome = '';
try {
  const tools = await registry.tools();
  const tool = tools.find((t) => t.name === 'mcp_kb_lookup');
  if (tool === undefined) throw new Error('no tool mcp_kb_lookup: ' + JSON.stringify(registry.serverProblems));
  const run = await startRun(store, { configuration: 'consumer-release-test' });
  try {
    const args = { term: 'ledger' };
    const start = await run.trace.recordToolStart({ toolName: tool.name, toolServer: tool.server, toolArguments: args, round: 0 });
    const started = performance.now();
    const result = await tool.execute(args, { signal: run.signal });
    outcome = result.outcome;
    await run.trace.recordToolResult({
      toolCallId: start.toolCallId,
      toolName: tool.name,
      toolServer: tool.server,
      toolArguments: args,
      result,
      round: 0,
      durationMs: performance.now() - started,
    });
    const stored = await run.complete();
    console.log(JSON.stringify({ runId: stored.id, status: stored.status, outcome }));
  } catch (error) {
    await run.fail(error);
    throw error;
  }
} finally {
  await registry.close();
  await store.close();
}
`;

const TSCONFIG = {
  compilerOptions: {
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'es2022',
    strict: true,
    skipLibCheck: false,
    types: ['node'],
    outDir: 'dist',
    rootDir: 'src',
  },
  include: ['src'],
};

/** Creates the project (`npm init`, `.npmrc` for the scope's registry, sources); installs nothing yet. */
export function makeConsumer(dir: string, npmrc: string, env: NodeJS.ProcessEnv): Consumer {
  mkdirSync(path.join(dir, 'src'), { recursive: true });
  const npm = (...args: string[]) => mustRun('npm', [...args, '--no-audit', '--no-fund'], dir, env);
  npm('init', '-y');
  npm('pkg', 'set', 'type=module');
  writeFileSync(path.join(dir, '.npmrc'), npmrc);
  writeFileSync(path.join(dir, 'server.mjs'), SERVER);
  writeFileSync(path.join(dir, 'src', 'record.ts'), RECORD);
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
  const db = path.join(dir, 'runs.sqlite');
  return {
    dir,
    db,
    installLibraries() {
      // The MCP SDK, zod, TypeScript and Node's types come from the normal registry, pinned like the workspace's.
      npm('install', ...CONSUMER_LIBRARIES, '@modelcontextprotocol/server@2.4.0', 'zod@^4.2.0');
      npm('install', '--save-dev', 'typescript@6.0.3', '@types/node@^20.19.0');
    },
    installCli() {
      npm('install', '--save-dev', CONSUMER_CLI);
    },
    update() {
      npm('update');
    },
    install(specs, { dev = false } = {}) {
      npm('install', ...(dev ? ['--save-dev'] : []), ...specs);
    },
    copies(name) {
      const out = mustRun('npm', ['ls', name, '--all', '--parseable'], dir, env).stdout;
      const paths = out.split('\n').filter((line) => line.includes('node_modules'));
      return [...new Set(paths.map((line) => line.slice(line.indexOf('node_modules')).split(path.sep).join('/')))];
    },
    typecheck() {
      mustRun(process.execPath, [path.join(dir, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], dir, env);
    },
    record() {
      const out = mustRun(process.execPath, [path.join(dir, 'dist', 'record.js'), db], dir, env).stdout.trim();
      return JSON.parse(out.split('\n').at(-1) ?? '');
    },
    installedVersion(name) {
      return JSON.parse(readFileSync(path.join(dir, 'node_modules', ...name.split('/'), 'package.json'), 'utf8')).version;
    },
    runsList() {
      return mustRun('npx', ['runledger', 'runs', 'list', '--db', db], dir, env).stdout;
    },
  };
}
