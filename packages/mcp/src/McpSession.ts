import { McpTransportException } from '@runledger/core';
import type { McpServerConfig } from './McpServerConfig.js';
import { type McpConnection, openConnection, type TransportFactory } from './sdk.js';

/**
 * How long a connect (process start and MCP handshake) may take: the server's deadline, but at
 * least 10 s. A call that has to wait for a connect still ends at its own deadline; the connect
 * goes on in the background so that the next call finds it.
 *
 * @internal
 */
export function connectTimeoutMs(config: McpServerConfig): number {
  return Math.max(config.deadlineMs, MIN_CONNECT_TIMEOUT_MS);
}

const MIN_CONNECT_TIMEOUT_MS = 10_000;

/** Options of an {@link McpSession}. */
export interface McpSessionOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly maxListPages: number;
  readonly transportFactory?: TransportFactory | undefined;
}

/**
 * The one connection to one server, shared by all its tools.
 *
 * @remarks
 * Connects on first use; concurrent callers share the same connect, and when it fails they all
 * fail with its error (none of them starts another). A connection that closed (the process
 * crashed, the server hung up) is replaced by a new one on the next use. A failed connect is not
 * remembered: the next use tries again. After {@link McpSession.close} every use fails with a
 * transport failure.
 *
 * @internal
 */
export class McpSession {
  readonly config: McpServerConfig;
  readonly #options: McpSessionOptions;
  #current: Promise<McpConnection> | undefined;
  #live: McpConnection | undefined;
  #closed = false;
  readonly #lifetime = new AbortController();
  readonly #opened = new Set<McpConnection>();
  /** Closes under way (a stale connection being replaced): close() waits for them too. */
  readonly #closing = new Set<Promise<void>>();
  #closeAllPromise: Promise<void> | undefined;

  constructor(config: McpServerConfig, options: McpSessionOptions) {
    this.config = config;
    this.#options = options;
  }

  /** The connection when one is open and not closed, without waiting; else undefined. */
  get live(): McpConnection | undefined {
    const live = this.#live;
    return live !== undefined && !live.closed && !this.#closed ? live : undefined;
  }

  /** Whether {@link McpSession.close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * The live connection, connecting (again) when there is none.
   *
   * @throws McpTransportException when the session is closed; anything a connect throws.
   */
  connection(): Promise<McpConnection> {
    if (this.#closed) {
      return Promise.reject(McpTransportException.forTransportFailure(this.config.id, 'the server registry is closed'));
    }
    const current = this.#current;
    if (current !== undefined) {
      // A connect that fails fails every caller that waited on it, with its own error: none of
      // them connects again (one new server process per waiting caller, started after their calls
      // had ended); the next use does. A connection that closed is replaced once, for all.
      return current.then((connection) => (connection.closed ? this.#connect(current) : connection));
    }
    return this.#connect(undefined);
  }

  #connect(stale: Promise<McpConnection> | undefined): Promise<McpConnection> {
    if (this.#closed) {
      return Promise.reject(McpTransportException.forTransportFailure(this.config.id, 'the server registry is closed'));
    }
    // Another caller may already have replaced the stale connection.
    if (this.#current !== stale && this.#current !== undefined) return this.connection();
    const attempt = openConnection(this.config, {
      env: this.#options.env,
      maxListPages: this.#options.maxListPages,
      signal: this.#lifetime.signal,
      timeoutMs: connectTimeoutMs(this.config),
      transportFactory: this.#options.transportFactory,
    }).then(async (connection) => {
      if (this.#closed) {
        await connection.close();
        throw McpTransportException.forTransportFailure(this.config.id, 'the server registry is closed');
      }
      this.#opened.add(connection);
      if (this.#current === attempt) this.#live = connection;
      return connection;
    });
    this.#current = attempt;
    this.#live = undefined;
    // A failed connect must not stay the current one; an unobserved rejection must not crash.
    attempt.catch(() => {
      if (this.#current === attempt) this.#current = undefined;
    });
    // Close the stale connection, if any, so a half-dead transport does not linger.
    if (stale !== undefined) {
      const closing = stale
        .then((connection) => {
          this.#opened.delete(connection);
          return connection.close();
        })
        .catch(() => undefined);
      this.#closing.add(closing);
      void closing.then(() => this.#closing.delete(closing));
    }
    return attempt;
  }

  /**
   * Closes the connection and its transport; idempotent, never rejects. Resolves only when every
   * stdio child this session started has exited (a connect still under way included).
   */
  close(): Promise<void> {
    this.#closeAllPromise ??= this.#closeAll();
    return this.#closeAllPromise;
  }

  async #closeAll(): Promise<void> {
    this.#closed = true;
    this.#lifetime.abort(new Error('the server registry is closed'));
    const pending = this.#current;
    this.#current = undefined;
    this.#live = undefined;
    if (pending !== undefined) {
      await pending.then((c) => c.close()).catch(() => undefined);
    }
    await Promise.all([...[...this.#opened].map((c) => c.close()), ...this.#closing]);
    this.#opened.clear();
  }
}
