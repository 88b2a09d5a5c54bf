import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunStore } from '@runledger/trace';
import { isLoopbackHost } from './AccessPolicy.js';
import { createRunsApp, SECURITY_HEADERS } from './createRunsApp.js';

/** Where and how the runs app listens. @public */
export interface RunsServerOptions {
  readonly store: RunStore;
  /** Default 127.0.0.1. Any other address requires a token. */
  readonly host?: string;
  /** Default 0 (a free port). */
  readonly port?: number;
  readonly token?: string | null;
  /** The access token's name, who asked for a cancel through the app; default `token`. */
  readonly tokenName?: string | null;
  /** The header an authenticating proxy names its user in, trusted for who asked a cancel; default none. */
  readonly trustUserHeader?: string | null;
  readonly timeZone?: string;
  /** Where failures are logged; default stderr. */
  readonly log?: (line: string) => void;
  /** The alert evaluator's state file, shown on the servers page (see RunsAppOptions.alertStateFile). */
  readonly alertStateFile?: string | null;
}

/** A listening runs app. @public */
export interface RunsServer {
  /** The address to open, e.g. `http://127.0.0.1:4310/`. */
  readonly url: string;
  readonly port: number;
  readonly server: Server;
  close(): Promise<void>;
}

/**
 * An error in how the app was asked to listen (a non-loopback address without a token).
 *
 * @public
 */
export class ServeConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ServeConfigError';
  }
}

/**
 * Refuses a serving configuration that is not safe, before anything is opened.
 *
 * @throws ServeConfigError from `checkServeConfig` when the token is too short, or the host is not a loopback address and no token is given.
 * @internal
 */
export function checkServeConfig(host: string, token: string | null): void {
  if (token !== null && token.length < 8) {
    throw new ServeConfigError('serve --token must be at least 8 characters long');
  }
  if (!isLoopbackHost(host) && token === null) {
    throw new ServeConfigError(
      `serve --host ${host} is not a loopback address: listening there requires an access token (--token or RUNLEDGER_TOKEN)`,
    );
  }
}

/**
 * Starts the runs app on node:http.
 *
 * @throws ServeConfigError from `startRunsServer` when the host is not a loopback address and no token is given.
 * @public
 */
export async function startRunsServer(options: RunsServerOptions): Promise<RunsServer> {
  const host = options.host ?? '127.0.0.1';
  const token = options.token ?? null;
  checkServeConfig(host, token);
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const handler = createRunsApp({
    store: options.store,
    token,
    tokenName: options.tokenName ?? null,
    trustUserHeader: options.trustUserHeader ?? null,
    timeZone: options.timeZone,
    log,
    alertStateFile: options.alertStateFile ?? null,
  });
  const server = createServer((req, res) => {
    handler(req, res).catch((error: unknown) => {
      const text = `runledger app: a request failed: ${error instanceof Error ? error.message : String(error)}`;
      log(token === null ? text : text.split(token).join('[token]'));
      if (!res.headersSent) res.writeHead(500, { ...SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8' });
      res.end('internal error\n');
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}/`,
    port: address.port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
