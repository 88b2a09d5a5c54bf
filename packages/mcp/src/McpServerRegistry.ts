import { McpTransportErrorCode, McpTransportException } from '@runledger/core';
import { McpCallTracing, type TracedListing } from './McpCallTracing.js';
import { McpConfigError } from './McpConfigError.js';
import type { McpHealthContact } from './McpHealthContact.js';
import type { McpServerConfig } from './McpServerConfig.js';
import type { McpServerProblem } from './McpServerProblem.js';
import { McpSession } from './McpSession.js';
import type { McpSkippedTool } from './McpSkippedTool.js';
import type { McpTool } from './McpTool.js';
import { MCP_LOCAL_TOOL_NAME_PATTERN, MCP_TOOL_IMPORT_LIMITS } from './McpToolImportLimits.js';
import { type McpTracingOptions, tracingOptionProblems } from './McpTracingOptions.js';
import { validateServerConfigs } from './parseServerConfig.js';
import { RemoteMcpTool } from './RemoteMcpTool.js';
import { isListPageLimit, newAbortReason, toTransportException, type WireTool } from './sdk.js';
import { raceAbort } from './raceAbort.js';

/**
 * Options of {@link McpServerRegistry.create}.
 *
 * @public
 */
export interface McpServerRegistryOptions {
  /**
   * Called once for every call a server answered (also with `isError`), with its latency; never
   * for a failed or cancelled call. An exception it throws is ignored.
   */
  readonly onHealthContact?: (contact: McpHealthContact) => void;
  /**
   * Where the bearer tokens named by `bearerTokenEnv` are read from, when connecting.
   * Default: `process.env`.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * OpenTelemetry spans of the tool calls, and the trace context sent to the servers: see
   * {@link McpTracingOptions}. Default: none (and `@opentelemetry/api` is never loaded).
   */
  readonly tracing?: McpTracingOptions;
  /**
   * Makes the MCP SDK transport for a server instead of the configured one (tests, in-memory
   * servers). Not covered by semver.
   *
   * @internal
   */
  readonly transportFactory?: (config: McpServerConfig) => unknown;
}

/**
 * Options of {@link McpServerRegistry.tools}.
 *
 * @public
 */
export interface McpToolsOptions {
  /** Aborting it stops the listing; `tools()` then rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /** List every server again instead of returning the tools of the last import. */
  readonly refresh?: boolean;
}

interface ImportResult {
  readonly tools: readonly McpTool[];
  readonly skipped: readonly McpSkippedTool[];
  readonly problems: readonly McpServerProblem[];
}

/**
 * The configured MCP servers: one shared connection per server, and their tools as
 * {@link McpTool}s.
 *
 * @remarks
 * Nothing connects until {@link McpServerRegistry.tools} lists the servers (all at once, each
 * within its deadline). A server's connection is reused by all its tools, reopened after a crash,
 * and closed — ending a stdio child process — by {@link McpServerRegistry.close}. A server that
 * cannot be listed, or lists more than {@link MCP_TOOL_IMPORT_LIMITS} allow, contributes no tools
 * and is named in {@link McpServerRegistry.serverProblems}; a tool whose local name would not
 * match {@link MCP_LOCAL_TOOL_NAME_PATTERN}, or would repeat another, is skipped and named in
 * {@link McpServerRegistry.skippedTools}.
 *
 * @public
 */
export class McpServerRegistry {
  /** The servers, in configuration order. */
  readonly servers: readonly McpServerConfig[];
  readonly #sessions: ReadonlyMap<string, McpSession>;
  readonly #onHealthContact: ((contact: McpHealthContact) => void) | undefined;
  readonly #tracingOptions: McpTracingOptions | undefined;
  #tracing: Promise<McpCallTracing> | undefined;
  #import: Promise<ImportResult> | undefined;
  #last: ImportResult = { tools: [], skipped: [], problems: [] };
  #closed = false;

  private constructor(servers: readonly McpServerConfig[], options: McpServerRegistryOptions) {
    this.servers = servers;
    this.#onHealthContact = options.onHealthContact;
    this.#tracingOptions = options.tracing;
    const sessionOptions = {
      env: options.env ?? process.env,
      maxListPages: MCP_TOOL_IMPORT_LIMITS.maxPages,
      transportFactory: options.transportFactory,
    };
    this.#sessions = new Map(servers.map((config) => [config.id, new McpSession(config, sessionOptions)]));
  }

  /**
   * Makes a registry of the servers; connects nothing yet.
   *
   * @throws {@link McpConfigError} from `McpServerRegistry.create` when a configuration breaks a
   * rule of {@link parseServerConfig} (e.g. two servers with the same id), or `options.tracing`
   * a rule of {@link McpTracingOptions}.
   */
  static create(configs: readonly McpServerConfig[], options: McpServerRegistryOptions = {}): McpServerRegistry {
    const servers = validateServerConfigs(configs);
    if (options.tracing !== undefined) {
      const problems = tracingOptionProblems(options.tracing);
      if (problems.length > 0) throw new McpConfigError(problems);
    }
    return new McpServerRegistry(servers, options);
  }

  /** The tools skipped by the last import, each with its reason. */
  get skippedTools(): readonly McpSkippedTool[] {
    return this.#last.skipped;
  }

  /** The servers whose tools the last import could not get, each with its reason. */
  get serverProblems(): readonly McpServerProblem[] {
    return this.#last.problems;
  }

  /** True once {@link McpServerRegistry.close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Lists the tools of every server (once; again with `refresh`) and returns them as McpTools,
   * in configuration order and then in the server's order.
   *
   * @remarks
   * Does not reject for a server that cannot be reached: that server contributes no tools and is
   * named in {@link McpServerRegistry.serverProblems}.
   *
   * @throws the signal's reason from `McpServerRegistry.tools` when `signal` aborts first.
   *
   * @throws {@link McpConfigError} from `McpServerRegistry.tools` when `tracing` is on and
   * `@opentelemetry/api` cannot be loaded.
   */
  async tools(options: McpToolsOptions = {}): Promise<readonly McpTool[]> {
    const signal = options.signal;
    signal?.throwIfAborted();
    if (this.#import === undefined || options.refresh === true) {
      const attempt = this.#importAll();
      this.#import = attempt;
      attempt.then(
        (result) => {
          if (this.#import === attempt) this.#last = result;
        },
        () => {
          if (this.#import === attempt) this.#import = undefined;
        },
      );
    }
    const pending = this.#import;
    const result = signal === undefined ? await pending : await raceAbort(pending, signal);
    return result.tools;
  }

  /** The tool of the last import with this local name, or undefined. */
  tool(name: string): McpTool | undefined {
    return this.#last.tools.find((tool) => tool.name === name);
  }

  /**
   * Closes every server's connection and transport, and resolves once every stdio child process
   * this registry started has exited (stdin closed, then SIGTERM, then SIGKILL), one still stuck
   * before `initialize` included. Calls still in flight end `cancelled` (our own side gave them
   * up: never counted against the server); later calls end `cancelled` without connecting.
   * Idempotent: every call waits for the same close.
   */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#sessions.values()].map((session) => session.close()));
  }

  async #importAll(): Promise<ImportResult> {
    const tracing = await this.#loadTracing();
    const listings = await Promise.all(
      this.servers.map(async (config) => {
        try {
          return { config, tools: await this.#list(config, tracing) };
        } catch (error) {
          return { config, error: error instanceof Error ? error.message : String(error) };
        }
      }),
    );
    const tools: McpTool[] = [];
    const skipped: McpSkippedTool[] = [];
    const problems: McpServerProblem[] = [];
    const taken = new Map<string, { server: string; remote: string }>();
    for (const listing of listings) {
      const server = listing.config.id;
      if (listing.tools === undefined) {
        problems.push(Object.freeze({ server, reason: listing.error ?? 'unknown error' }));
        continue;
      }
      const session = this.#sessions.get(server);
      if (session === undefined) continue;
      const seenRemote = new Set<string>();
      for (const wire of listing.tools) {
        const skip = (reason: string) => skipped.push(Object.freeze({ server, remoteName: wire.name, reason }));
        if (seenRemote.has(wire.name)) {
          skip(`the server lists the tool "${wire.name}" more than once`);
          continue;
        }
        seenRemote.add(wire.name);
        const name = `mcp_${server}_${wire.name}`;
        if (!MCP_LOCAL_TOOL_NAME_PATTERN.test(name)) {
          const length = [...name].length;
          skip(
            `local name ${JSON.stringify(name)} must match ${MCP_LOCAL_TOOL_NAME_PATTERN.source}` +
              (length > 64 ? ` (it has ${length} characters)` : ' (only letters, digits, "_" and "-")'),
          );
          continue;
        }
        const owner = taken.get(name);
        if (owner !== undefined) {
          skip(`local name "${name}" is already taken by the tool "${owner.remote}" of server "${owner.server}"`);
          continue;
        }
        taken.set(name, { server, remote: wire.name });
        tools.push(new RemoteMcpTool({ name, wire, session, onContact: this.#onHealthContact, tracing }));
      }
    }
    return { tools: Object.freeze(tools), skipped: Object.freeze(skipped), problems: Object.freeze(problems) };
  }

  /** Loads the tracing once, when it is on: the only place @opentelemetry/api is imported from. */
  async #loadTracing(): Promise<McpCallTracing | undefined> {
    const options = this.#tracingOptions;
    if (options === undefined) return undefined;
    const loading = (this.#tracing ??= McpCallTracing.load(options));
    try {
      return await loading;
    } catch (error) {
      this.#tracing = undefined;
      const detail = error instanceof Error ? error.message : String(error);
      throw new McpConfigError([
        `options.tracing needs the package @opentelemetry/api (a peer dependency of @runledger/mcp), which could not be loaded: ${detail}`,
      ]);
    }
  }

  /** Lists a server's tools, inside a `tools/list` span when tracing is on. */
  #list(config: McpServerConfig, tracing: McpCallTracing | undefined): Promise<readonly WireTool[]> {
    if (tracing === undefined) return this.#listTools(config, undefined);
    return tracing.traceListing(config, (listing) => this.#listTools(config, listing), listingErrorType);
  }

  async #listTools(config: McpServerConfig, listing: TracedListing | undefined): Promise<readonly WireTool[]> {
    const session = this.#sessions.get(config.id);
    if (session === undefined) throw new Error(`no session for server "${config.id}"`);
    const deadlineReason = newAbortReason(`listing the tools of "${config.id}" used up its deadline`);
    const controller = new AbortController();
    // One deadline for the whole listing, connecting included: a server that never answers
    // `initialize` is refused at the deadline (its connect goes on in the background, bounded by
    // the session's connect timeout).
    const timer = setTimeout(() => controller.abort(deadlineReason), config.deadlineMs);
    let connection;
    try {
      connection = await raceAbort(session.connection(), controller.signal);
      listing?.connected(connection);
      const tools = await connection.listTools({ signal: controller.signal, timeoutMs: config.deadlineMs + 1_000 });
      if (tools.length > MCP_TOOL_IMPORT_LIMITS.maxTools) {
        throw new ImportRefused(
          `refused: the server lists ${tools.length} tools, more than the limit of ${MCP_TOOL_IMPORT_LIMITS.maxTools}`,
          'too_many_tools',
        );
      }
      return tools;
    } catch (error) {
      if (error instanceof ImportRefused) throw error;
      if (error === deadlineReason) {
        const what = connection === undefined ? 'connecting to it' : 'listing its tools';
        throw new ImportRefused(
          `${what} took longer than its deadline of ${config.deadlineMs} ms`,
          McpTransportErrorCode.DEADLINE_EXHAUSTED,
        );
      }
      if (isListPageLimit(error)) {
        throw new ImportRefused(
          `refused: the server lists its tools on more than ${MCP_TOOL_IMPORT_LIMITS.maxPages} pages`,
          'too_many_pages',
        );
      }
      throw toTransportException(config.id, error, { deadlineMs: config.deadlineMs, connection });
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Why a server's tools were not imported, in words, and as the `error.type` of its span. */
class ImportRefused extends Error {
  readonly errorType: string;

  constructor(message: string, errorType: string) {
    super(message);
    this.errorType = errorType;
  }
}

/** The `error.type` of a failed listing. */
function listingErrorType(error: unknown): string {
  if (error instanceof ImportRefused) return error.errorType;
  return McpTransportException.is(error) ? error.code : '_OTHER';
}
