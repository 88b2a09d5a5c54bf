// The release test's reads of the registry: each on a connection of its own, so none can meet a
// keep-alive socket that Verdaccio closed while the test process was blocked in spawnSync.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { getOnce, startVerdaccio, type Verdaccio } from './verdaccio.js';

describe('getOnce: one GET, one connection, closed after the answer', () => {
  it('opens a new connection for every read and asks the server to close it', async () => {
    const connections: string[] = [];
    const requested: (string | undefined)[] = [];
    const server = http.createServer((req, res) => {
      requested.push(req.headers.connection);
      res.setHeader('content-type', 'application/json; charset=utf-8');
      res.end(JSON.stringify({ path: req.url }));
    });
    // keep-alive on the server's side: only the client's request decides that nothing is reused
    server.keepAliveTimeout = 60_000;
    server.on('connection', (socket) => connections.push(`${socket.remoteAddress}:${socket.remotePort}`));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      expect(await getOnce(`${url}/@runledger%2fcore`)).toEqual({ status: 200, body: { path: '/@runledger%2fcore' } });
      expect(await getOnce(`${url}/second`)).toEqual({ status: 200, body: { path: '/second' } });
      expect(connections).toHaveLength(2);
      expect(new Set(connections).size).toBe(2);
      expect(requested).toEqual(['close', 'close']);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('gives a body that is not JSON as text, and rejects when nothing listens', async () => {
    const server = http.createServer((_req, res) => {
      res.statusCode = 404;
      res.setHeader('content-type', 'text/plain');
      res.end('not found');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
    expect(await getOnce(url)).toEqual({ status: 404, body: 'not found' });
    await new Promise((resolve) => server.close(resolve));
    await expect(getOnce(url)).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe('startVerdaccio: a registry in its own process', () => {
  let registry: Verdaccio | undefined;
  afterAll(async () => registry?.stop());

  it("answers a package's document over getOnce: 404 before anything is published", async () => {
    registry = await startVerdaccio('@runledger');
    const { status } = await registry.packument('@runledger/never-published');
    expect(status).toBe(404);
    expect((await getOnce(`${registry.url}-/ping`)).status).toBe(200);
  });
});
