import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of the test server, for fault tests: it forwards bytes both
 * ways until told to cut connections, refuse new ones, or cut a connection at the moment its
 * answer comes back (after the server did the work: an ambiguous commit), or hold a connection's
 * answers back (a connection gone silent).
 */
export class TcpProxy {
  readonly #server: Server;
  readonly #target: { host: string; port: number };
  readonly #pairs = new Set<{ client: Socket; upstream: Socket }>();
  #refusing = false;
  /** Armed: the next connection that sends a request (holding `#cutMatch`) is cut when its answer arrives. */
  #cutNextAnswer: ((cut: boolean) => void) | null = null;
  #cutMatch: Buffer | null = null;
  /** Armed: the next connection that sends a request holding `#holdMatch` goes silent (its answers are kept back). */
  #holdNext: ((held: boolean) => void) | null = null;
  #holdMatch: Buffer | null = null;
  /** The answers kept back from a silent connection, and how to send them on. */
  #releases: (() => void)[] = [];
  /** Connections accepted since start (refused ones included). */
  accepted = 0;

  private constructor(server: Server, target: { host: string; port: number }) {
    this.#server = server;
    this.#target = target;
  }

  /** Starts a proxy on a free port of 127.0.0.1 towards `target`. */
  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const server = createServer();
    const proxy = new TcpProxy(server, target);
    server.on('connection', (client) => proxy.#accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return proxy;
  }

  /** The proxy's port. */
  get port(): number {
    const address = this.#server.address();
    if (address === null || typeof address === 'string') throw new Error('the proxy is not listening');
    return address.port;
  }

  /** `url` with its host and port replaced by the proxy's. */
  urlFor(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = '127.0.0.1';
    parsed.port = String(this.port);
    return parsed.toString();
  }

  /** Open connections through the proxy. */
  get open(): number {
    return this.#pairs.size;
  }

  /** Cuts every open connection (both ends reset) and, until {@link TcpProxy.restore}, every new one at once. */
  refuse(): void {
    this.#refusing = true;
    this.cutAll();
  }

  /** Forwards new connections again. */
  restore(): void {
    this.#refusing = false;
  }

  /** Cuts every open connection. */
  cutAll(): void {
    for (const pair of [...this.#pairs]) this.#cut(pair);
  }

  /**
   * Arms a cut: the next connection that sends a request (whose bytes contain `match`, when
   * given: e.g. a prepared statement's name) is cut the moment the server's answer reaches the
   * proxy, which does not forward it. Resolves true when a cut happened.
   */
  cutNextAnswer(match?: string): Promise<boolean> {
    this.#cutMatch = match === undefined ? null : Buffer.from(match, 'utf8');
    return new Promise((resolve) => {
      this.#cutNextAnswer = resolve;
    });
  }

  /**
   * Arms a silence: the next connection that sends a request whose bytes contain `match` keeps
   * working on the server, but the proxy forwards none of its answers until {@link TcpProxy.release}
   * (a connection gone silent: a stalled network path, a frozen peer). Resolves true when it happened.
   */
  holdNextAnswer(match: string): Promise<boolean> {
    this.#holdMatch = Buffer.from(match, 'utf8');
    return new Promise((resolve) => {
      this.#holdNext = resolve;
    });
  }

  /** Sends on what silent connections kept back, and forwards their answers again. */
  release(): void {
    for (const release of this.#releases.splice(0)) release();
  }

  /** Cuts everything and stops listening. */
  async close(): Promise<void> {
    this.#refusing = true;
    this.cutAll();
    this.#cutNextAnswer?.(false);
    this.#holdNext?.(false);
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #accept(client: Socket): void {
    this.accepted++;
    if (this.#refusing) {
      client.resetAndDestroy();
      return;
    }
    const upstream = createConnection(this.#target);
    const pair = { client, upstream };
    this.#pairs.add(pair);
    let armedHere = false;
    let kept: Buffer[] | null = null;
    client.on('data', (chunk: Buffer) => {
      if (this.#cutNextAnswer !== null && !armedHere && (this.#cutMatch === null || chunk.includes(this.#cutMatch))) armedHere = true;
      if (this.#holdNext !== null && kept === null && chunk.includes(this.#holdMatch!)) {
        const resolve = this.#holdNext;
        this.#holdNext = null;
        kept = [];
        this.#releases.push(() => {
          const chunks = kept!;
          kept = null;
          for (const answer of chunks) client.write(answer);
        });
        resolve(true);
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (kept !== null) {
        kept.push(chunk);
        return;
      }
      if (armedHere && this.#cutNextAnswer !== null) {
        const resolve = this.#cutNextAnswer;
        this.#cutNextAnswer = null;
        this.#cut(pair);
        resolve(true);
        return;
      }
      client.write(chunk);
    });
    const close = (): void => this.#cut(pair);
    client.on('error', close);
    upstream.on('error', close);
    client.on('close', close);
    upstream.on('close', close);
  }

  #cut(pair: { client: Socket; upstream: Socket }): void {
    if (!this.#pairs.delete(pair)) return;
    if (!pair.client.destroyed) pair.client.resetAndDestroy();
    if (!pair.upstream.destroyed) pair.upstream.resetAndDestroy();
  }
}
