// Helpers that run the fixture MCP server for tests and benchmarks: over stdio as a child process,
// over Streamable HTTP on 127.0.0.1 (a child process too), and in memory. Not part of the build.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { InMemoryTransport } from '@modelcontextprotocol/client';
import type { McpServerConfig } from '../McpServerConfig.js';
import type { McpServerRegistry } from '../McpServerRegistry.js';
import type { McpTool } from '../McpTool.js';
import { parseServerConfig } from '../parseServerConfig.js';
import { createFixtureServer, withWireFaults } from './fixture-server.mjs';

/** The absolute path of the fixture server script (run it with `node`). */
export const FIXTURE_SERVER_PATH = fileURLToPath(new URL('./fixture-server.mjs', import.meta.url));

/** One line of a fixture events file. */
export interface FixtureEvent {
  readonly pid: number;
  readonly at: number;
  readonly event: string;
  readonly tool?: string;
  readonly tag?: string;
  /** (drop tool) Which call with its tag this was, from 1. */
  readonly attempt?: number;
  /** (vanish tool) How many times the tool ran with its tag, from 1. */
  readonly run?: number;
  /** (vanish tool, HTTP) How many requests the connection carried before this call's POST. */
  readonly earlierRequests?: number;
  /** (notification, --stateless) The method of a notification the server received. */
  readonly method?: string;
  /** (meta tool) The `_meta` of the request as the server saw it, or null when it had none. */
  readonly meta?: Readonly<Record<string, unknown>> | null;
  /** (meta tool) The JSON-RPC id of the request. */
  readonly requestId?: string | number;
  /** (meta tool) The HTTP session id the server knows the client by, or null. */
  readonly sessionId?: string | null;
}

/**
 * The folders of the events files made in this process, removed when it exits: a benchmark's
 * process does; vitest's workers never run exit handlers, so under vitest the run's own temporary
 * folder holds them (vitest.tempRoot.mjs) and goes when the run ends.
 */
const eventFolders: string[] = [];
process.once('exit', () => {
  for (const folder of eventFolders) rmSync(folder, { recursive: true, force: true });
});

/** A fresh, empty events file in a temporary folder (removed when the test process exits). */
export function newEventsFile(): string {
  const folder = mkdtempSync(path.join(tmpdir(), 'runledger-mcp-'));
  eventFolders.push(folder);
  const file = path.join(folder, 'events.jsonl');
  writeFileSync(file, '');
  return file;
}

/** The events written so far. */
export function readEvents(file: string): FixtureEvent[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as FixtureEvent);
}

/** Polls until `check` returns true or the time is up; returns whether it did. */
export async function waitFor(check: () => boolean, timeoutMs = 3000, stepMs = 10): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, stepMs));
  }
  return check();
}

/**
 * How many TCP connections to `port` on this machine are established from the client side (Linux:
 * read from /proc/net/tcp and tcp6, where the remote end is the port).
 */
export function establishedConnectionsTo(port: number): number {
  const remote = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  let count = 0;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(table)) continue;
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const [, , remoteAddress, state] = line.trim().split(/\s+/);
      // State 01 is ESTABLISHED.
      if (state === '01' && remoteAddress?.endsWith(remote) === true) count++;
    }
  }
  return count;
}

/** How many file descriptors this process has open (Linux). */
export function openDescriptorCount(): number {
  return readdirSync('/proc/self/fd').length;
}

/**
 * Whether a process with this id is still running: a zombie (dead, not yet reaped by whoever
 * inherited it) holds nothing but its id, so it counts as gone (Linux: its state in /proc).
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false; // gone between the two looks
  }
  // the state follows the command name, which is in parentheses and may itself hold some
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
}

/** Options of the fixture configurations. */
export interface FixtureConfigOptions {
  readonly id?: string;
  readonly eventsFile?: string;
  readonly deadlineMs?: number;
  readonly requiresApproval?: boolean;
  /** Whether the server's tool annotations are trusted (`trustAnnotations`). */
  readonly trustAnnotations?: boolean;
  /**
   * (stdio) `stuck`: the server never answers `initialize` and only SIGKILL ends it. `mute`: the
   * server writes nothing and exits after `MUTE_EXIT_MS`.
   */
  readonly mode?: 'stuck' | 'mute';
  /** (stdio) Serve MCP 2026-07-28 (stateless) through the server SDK's serveStdio (`--stateless`). */
  readonly stateless?: boolean;
}

/** A listed tool without annotations, as a wire tool made by hand in a test states it. */
export const NO_ANNOTATIONS = Object.freeze({
  readOnlyHint: undefined,
  destructiveHint: undefined,
  idempotentHint: undefined,
  openWorldHint: undefined,
});

/** The configuration of the fixture server as a stdio child process. */
export function stdioFixtureConfig(options: FixtureConfigOptions = {}): McpServerConfig {
  const [config] = parseServerConfig({
    servers: [
      {
        id: options.id ?? 'fixture',
        transport: {
          type: 'stdio',
          command: process.execPath,
          args: options.stateless === true ? [FIXTURE_SERVER_PATH, '--stateless'] : [FIXTURE_SERVER_PATH],
          env: {
            ...(options.eventsFile !== undefined && { FIXTURE_EVENTS_FILE: options.eventsFile }),
            ...(options.mode !== undefined && { FIXTURE_MODE: options.mode }),
          },
        },
        ...(options.deadlineMs !== undefined && { deadlineMs: options.deadlineMs }),
        ...(options.requiresApproval !== undefined && { requiresApproval: options.requiresApproval }),
        ...(options.trustAnnotations !== undefined && { trustAnnotations: options.trustAnnotations }),
      },
    ],
  });
  return config as McpServerConfig;
}

/** A running HTTP fixture server (a child process on 127.0.0.1). */
export interface HttpFixture {
  readonly port: number;
  readonly url: string;
  readonly pid: number;
  /** The configuration of a server that reaches it. */
  config(options?: FixtureConfigOptions & { readonly bearerTokenEnv?: string }): McpServerConfig;
  /** Ends the process (SIGKILL) and waits until it is gone. */
  stop(): Promise<void>;
  /** Starts it again on the same port (after it crashed or was stopped). */
  restart(): Promise<void>;
}

/**
 * Starts the fixture server over Streamable HTTP on 127.0.0.1, on a random port by default;
 * `stateless`: serving MCP 2026-07-28 through the server SDK's createMcpHandler (`--stateless`).
 */
export async function startHttpFixture(
  options: { port?: number; expectBearer?: string; eventsFile?: string; stateless?: boolean } = {},
): Promise<HttpFixture> {
  let child: ChildProcess;
  let port = options.port ?? 0;
  const launch = async () => {
    const args = [FIXTURE_SERVER_PATH, '--http', '--port', String(port)];
    if (options.expectBearer !== undefined) args.push('--expect-bearer', options.expectBearer);
    if (options.stateless === true) args.push('--stateless');
    child = spawn(process.execPath, args, {
      env: { ...process.env, ...(options.eventsFile !== undefined && { FIXTURE_EVENTS_FILE: options.eventsFile }) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stderr?.resume();
    port = await new Promise<number>((resolve, reject) => {
      let buffered = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        buffered += String(chunk);
        const match = /listening (\d+)/.exec(buffered);
        if (match) resolve(Number(match[1]));
      });
      child.once('exit', (code) => reject(new Error(`the HTTP fixture exited with code ${code} before listening`)));
    });
  };
  await launch();
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  };
  return {
    get port() {
      return port;
    },
    get url() {
      return `http://127.0.0.1:${port}/mcp`;
    },
    get pid() {
      return child.pid ?? -1;
    },
    config(configOptions = {}) {
      const [config] = parseServerConfig({
        servers: [
          {
            id: configOptions.id ?? 'fixture',
            transport: {
              type: 'http',
              url: `http://127.0.0.1:${port}/mcp`,
              ...(configOptions.bearerTokenEnv !== undefined && { bearerTokenEnv: configOptions.bearerTokenEnv }),
            },
            ...(configOptions.deadlineMs !== undefined && { deadlineMs: configOptions.deadlineMs }),
            ...(configOptions.requiresApproval !== undefined && { requiresApproval: configOptions.requiresApproval }),
            ...(configOptions.trustAnnotations !== undefined && { trustAnnotations: configOptions.trustAnnotations }),
          },
        ],
      });
      return config as McpServerConfig;
    },
    stop,
    async restart() {
      await stop();
      await launch();
    },
  };
}

/** Holds back or forwards one message the in-memory server sends. */
export type ServerMessageInterceptor = (message: unknown, deliver: () => void) => void;

/** An in-memory fixture: pass `transportFactory` to `McpServerRegistry.create`. */
export interface InMemoryFixture {
  /** Makes a fresh in-memory server and returns the client end of its link. */
  readonly transportFactory: (config: McpServerConfig) => unknown;
  /** How many servers (connections) were made so far. */
  readonly connections: number;
  /** A configuration for the in-memory server (its transport part is never used). */
  config(options?: FixtureConfigOptions): McpServerConfig;
}

/** The fixture server in this process, over the SDK's in-memory transport. */
export function inMemoryFixture(options: { eventsFile?: string; intercept?: ServerMessageInterceptor } = {}): InMemoryFixture {
  let connections = 0;
  return {
    get connections() {
      return connections;
    },
    transportFactory() {
      connections++;
      const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
      const server = createFixtureServer({
        ...(options.eventsFile !== undefined && { eventsFile: options.eventsFile }),
        onCrash: () => void serverEnd.close(),
      });
      const wrapped = withWireFaults(serverEnd);
      if (options.intercept !== undefined) {
        const intercept = options.intercept;
        const send = wrapped.send.bind(wrapped);
        wrapped.send = (message, sendOptions) =>
          new Promise<void>((resolve, reject) => {
            // the send settles this promise (resolve or reject), so its own result is not needed
            intercept(message, () => void send(message, sendOptions).then(resolve, reject));
          });
      }
      void server.connect(wrapped);
      return clientEnd;
    },
    config(configOptions = {}) {
      return stdioFixtureConfig(configOptions);
    },
  };
}

/**
 * Lists the registry's tools once every server is connected. A fixture with a short deadline
 * (300 ms) may take longer than that to start cold — the deadline covers connecting — while its
 * connect goes on in the background: a refresh then finds it.
 */
export async function toolsOnceConnected(registry: McpServerRegistry, attempts = 10): Promise<readonly McpTool[]> {
  let tools = await registry.tools();
  for (let attempt = 0; attempt < attempts && registry.serverProblems.length > 0; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    tools = await registry.tools({ refresh: true });
  }
  if (registry.serverProblems.length > 0) {
    throw new Error(`servers still not connected: ${registry.serverProblems.map((p) => `${p.server}: ${p.reason}`).join('; ')}`);
  }
  return tools;
}
