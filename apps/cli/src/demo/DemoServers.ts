import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type McpTool, McpServerRegistry, parseServerConfig } from '@runledger/mcp';

/** The ids of the bundled demo MCP servers. @internal */
export const DEMO_SERVER_IDS = ['docs', 'flaky', 'slow'] as const;

/**
 * Finds the built demo server script: beside this module in `dist/`, or in the package's `dist/`
 * when running from the sources (tests).
 *
 * @throws Error from `demoServerScript` when the package has not been built.
 * @internal
 */
export function demoServerScript(): string {
  const candidates = [new URL('./demo-server.js', import.meta.url), new URL('../../dist/demo-server.js', import.meta.url)];
  for (const candidate of candidates) {
    const path = fileURLToPath(candidate);
    if (existsSync(path)) return path;
  }
  throw new Error(
    'the demo MCP server script dist/demo-server.js is missing: build @runledger/cli first (pnpm --filter @runledger/cli build)',
  );
}

/** The running demo servers and their tools by local name. @internal */
export interface DemoServers {
  readonly registry: McpServerRegistry;
  readonly tools: ReadonlyMap<string, McpTool>;
  /** The tool with this local name. @throws Error when the demo servers do not offer it. */
  tool(name: string): McpTool;
  /** Ends the child processes. */
  close(): Promise<void>;
}

/**
 * Starts the bundled demo MCP servers — `docs` (reliable), `flaky` (every third call fails) and
 * `slow` (long calls that honour cancellation) — as child processes over stdio, through the
 * server registry, and lists their tools.
 *
 * @throws Error from `startDemoServers` when a server does not come up.
 * @internal
 */
export async function startDemoServers(options: { readonly deadlineMs?: number } = {}): Promise<DemoServers> {
  const script = demoServerScript();
  const configs = parseServerConfig({
    servers: DEMO_SERVER_IDS.map((id) => ({
      id,
      name: `demo ${id}`,
      transport: { type: 'stdio', command: process.execPath, args: [script, id] },
      // the slow server's calls may take ten minutes (the demo's live run): its deadline is longer
      deadlineMs: options.deadlineMs ?? (id === 'slow' ? 900_000 : 30_000),
    })),
  });
  const registry = McpServerRegistry.create(configs);
  let listed: readonly McpTool[];
  try {
    listed = await registry.tools();
  } catch (error) {
    await registry.close();
    throw error;
  }
  const tools = new Map(listed.map((tool) => [tool.name, tool]));
  const missing = DEMO_SERVER_IDS.filter((id) => !listed.some((tool) => tool.server === id));
  if (missing.length > 0) {
    await registry.close();
    throw new Error(`the demo MCP server(s) ${missing.join(', ')} did not come up`);
  }
  return {
    registry,
    tools,
    tool(name) {
      const tool = tools.get(name);
      if (tool === undefined) throw new Error(`the demo servers offer no tool ${name} (they offer ${[...tools.keys()].join(', ')})`);
      return tool;
    },
    close: () => registry.close(),
  };
}
