import { request } from 'node:http';
import type { RunStore } from '@runledger/trace';
import { type RunsServer, startRunsServer } from '../src/app/startRunsServer.js';

/** A response read to the end. */
export interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** Sends a raw request (any header, Host included) to the server. */
export function send(
  server: RunsServer,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        path,
        method: options.method ?? 'GET',
        headers: { host: `127.0.0.1:${server.port}`, ...options.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Starts the app on 127.0.0.1 and a random port, in UTC. */
export function serve(store: RunStore, token: string | null = null, host = '127.0.0.1'): Promise<RunsServer> {
  return startRunsServer({ store, token, host, port: 0, timeZone: 'UTC' });
}

/** The visible text of an HTML fragment, roughly: tags dropped, entities of the five decoded. */
export function textOf(markup: string): string {
  return markup
    .replace(/<[^>]*>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}
