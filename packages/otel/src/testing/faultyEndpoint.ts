// An OTLP/HTTP endpoint for tests that never answers well: it reads each request whole, then
// drips its answer one byte every 100 ms forever (from the first byte of the status line, or after
// complete 200 headers), or answers every request with one HTTP status. Listens on 127.0.0.1.
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** How the endpoint answers. */
export type EndpointFault = { readonly drip: 'status-line' | 'body' } | { readonly status: number; readonly retryAfter?: string };

export interface FaultyEndpoint {
  /** `http://127.0.0.1:<port>` (no path). */
  readonly url: string;
  /** Requests read whole so far. */
  readonly requests: number;
  /** Connections still open. */
  readonly openConnections: number;
  close(): Promise<void>;
}

const DRIP_MS = 100;

/** Starts an endpoint answering with the fault (a free port on 127.0.0.1). */
export async function startFaultyEndpoint(fault: EndpointFault): Promise<FaultyEndpoint> {
  let requests = 0;
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests++;
      if ('status' in fault) {
        res
          .writeHead(fault.status, fault.retryAfter === undefined ? {} : { 'retry-after': fault.retryAfter })
          .end('refused by the test endpoint');
        return;
      }
      const socket = res.socket!;
      let head: string;
      if (fault.drip === 'status-line') {
        head = 'HTTP/1.1 200 OK\r\nx-drip: ';
      } else {
        res.writeHead(200, { 'content-type': 'application/x-protobuf', 'content-length': '1000000' });
        res.flushHeaders();
        head = '';
      }
      let at = 0;
      const timer = setInterval(() => {
        // the raw socket: the status line itself is dripped, past Node's own response writer
        if (socket.destroyed) return;
        socket.write(head.charAt(at) || 'a');
        at++;
      }, DRIP_MS);
      timers.add(timer);
      socket.once('close', () => {
        clearInterval(timer);
        timers.delete(timer);
      });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return requests;
    },
    get openConnections() {
      return sockets.size;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearInterval(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
