// The connections of one HTTP session, against a real HTTP server process: aborted requests and a
// closed pool leave no connection open.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpConnectionPool, MAX_IDLE_CONNECTIONS } from './HttpConnectionPool.js';
import { establishedConnectionsTo, waitFor } from './testing/fixtures.js';

// POST /hang: the headers of an event stream, then nothing, ever. GET /ok: a short answer.
// GET /moved: a redirect to /ok. /once-per-connection: answered on a connection's first request only.
const SERVER = `
const http = require('node:http');
const server = http.createServer((req, res) => {
  req.resume();
  if (req.url === '/hang') { res.writeHead(200, { 'content-type': 'text/event-stream' }); res.flushHeaders(); return; }
  // The second request on a connection: the server drops the connection without an answer, as one
  // does that closes an idle keep-alive connection just as the client reuses it.
  req.socket.served = (req.socket.served ?? 0) + 1;
  if (req.url === '/once-per-connection' && req.socket.served > 1) { req.socket.destroy(); return; }
  if (req.url === '/moved') { res.writeHead(307, { location: '/ok' }); res.end(); return; }
  res.end('ok');
});
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
`;

describe('HttpConnectionPool against a real HTTP server', () => {
  let server: ChildProcess;
  let port: number;
  let base: string;

  beforeAll(async () => {
    server = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
    const [chunk] = (await once(server.stdout!, 'data')) as [Buffer];
    port = Number(chunk.toString().trim());
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(() => {
    server.kill();
  });

  it("leaves no connection open after requests are aborted mid-answer (undici's pool opens one per abort)", async () => {
    const pool = new HttpConnectionPool();
    const calls = 20;
    const controllers = Array.from({ length: calls }, () => new AbortController());
    const bodies = await Promise.all(
      controllers.map(async (controller) => {
        const response = await pool.fetch(`${base}/hang`, { method: 'POST', body: '{}', signal: controller.signal });
        const reader = response.body!.getReader();
        // Wrapped: an async function returning the read would wait for it.
        return {
          read: reader.read().then(
            () => 'answered',
            (error: unknown) => (error as Error).name,
          ),
        };
      }),
    );
    expect(establishedConnectionsTo(port)).toBe(calls);
    for (const controller of controllers) controller.abort();
    expect(await Promise.all(bodies.map((body) => body.read))).toEqual(Array.from({ length: calls }, () => 'AbortError'));
    // Well inside the keep-alive time (4 s): what closes here is closed because of the abort. And it
    // stays closed: the leak is a connection opened again a moment after the aborted one closed.
    const drained = await waitFor(() => establishedConnectionsTo(port) === 0, 2000, 20);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(drained && establishedConnectionsTo(port) === 0, `${establishedConnectionsTo(port)} connections still open`).toBe(true);
    await pool.close();
  });

  it('closes its idle keep-alive connections at once when closed, and refuses to fetch after', async () => {
    const pool = new HttpConnectionPool();
    const answers = await Promise.all(Array.from({ length: 5 }, () => pool.fetch(`${base}/ok`).then((r) => r.text())));
    expect(answers).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    expect(establishedConnectionsTo(port)).toBeGreaterThan(0);
    await pool.close();
    expect(await waitFor(() => establishedConnectionsTo(port) === 0, 1000, 10)).toBe(true);
    await expect(pool.fetch(`${base}/ok`)).rejects.toThrow('the HTTP connection pool of this session is closed');
    await pool.close();
  });

  it(`keeps at most ${MAX_IDLE_CONNECTIONS} idle connections after a burst of requests`, async () => {
    const pool = new HttpConnectionPool();
    const answers = await Promise.all(Array.from({ length: 40 }, () => pool.fetch(`${base}/ok`).then((r) => r.text())));
    expect(answers.every((a) => a === 'ok')).toBe(true);
    expect(
      await waitFor(() => establishedConnectionsTo(port) <= MAX_IDLE_CONNECTIONS, 1000, 10),
      `${establishedConnectionsTo(port)} open`,
    ).toBe(true);
    await pool.close();
  });

  it('passes a redirect back as it is, with its Location, and refuses what it cannot send', async () => {
    const pool = new HttpConnectionPool();
    const moved = await pool.fetch(`${base}/moved`);
    expect(moved.status).toBe(307);
    expect(moved.headers.get('location')).toBe('/ok');
    await expect(pool.fetch(`${base}/ok`, { method: 'POST', body: new Blob(['x']) })).rejects.toThrow(
      'body: a string or bytes, not [object Blob]',
    );
    await expect(pool.fetch('ftp://127.0.0.1/x')).rejects.toThrow('url: only http: and https: are supported, not ftp:');
    await pool.close();
  });

  it('sends a repeatable request once more on a fresh connection when the server dropped the reused one unanswered', async () => {
    const pool = new HttpConnectionPool();
    expect(await (await pool.fetch(`${base}/once-per-connection`, { method: 'POST', body: '1' }, { repeatable: true })).text()).toBe('ok');
    // Reuses the idle connection, which the server drops: sent again on a new one, answered.
    expect(await (await pool.fetch(`${base}/once-per-connection`, { method: 'POST', body: '2' }, { repeatable: true })).text()).toBe('ok');
    // A GET is idempotent: sent again without being told.
    expect(await (await pool.fetch(`${base}/once-per-connection`)).text()).toBe('ok');
    expect(await (await pool.fetch(`${base}/once-per-connection`)).text()).toBe('ok');
    await pool.close();
  });

  it('never sends a written request that must not run twice again: it fails with the connection error, written once', async () => {
    const pool = new HttpConnectionPool();
    let written = 0;
    const delivery = { repeatable: false, onWritten: () => written++ };
    expect(await (await pool.fetch(`${base}/once-per-connection`, { method: 'POST', body: '1' }, delivery)).text()).toBe('ok');
    expect(written).toBe(1);
    // A POST is not repeatable by default either.
    await expect(pool.fetch(`${base}/once-per-connection`, { method: 'POST', body: '2' })).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(await (await pool.fetch(`${base}/once-per-connection`, { method: 'POST', body: '3' }, delivery)).text()).toBe('ok');
    await expect(pool.fetch(`${base}/once-per-connection`, { method: 'POST', body: '4' }, delivery)).rejects.toMatchObject({
      code: 'ECONNRESET',
    });
    expect(written).toBe(3);
    await pool.close();
  });

  it('does not count a request that never reached a connection as written', async () => {
    const pool = new HttpConnectionPool();
    let written = 0;
    // Nothing listens on port 1: the connection is refused before a byte is written.
    await expect(pool.fetch('http://127.0.0.1:1/x', { method: 'POST', body: '{}' }, { onWritten: () => written++ })).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
    expect(written).toBe(0);
    await pool.close();
  });

  it('sends a repeatable request again past every stale idle connection, when the server dropped them all', async () => {
    const pool = new HttpConnectionPool();
    // MAX_IDLE_CONNECTIONS idle connections, each of which has served its one request.
    const first = await Promise.all(
      Array.from({ length: MAX_IDLE_CONNECTIONS }, () => pool.fetch(`${base}/once-per-connection`).then((r) => r.text())),
    );
    expect(first.every((a) => a === 'ok')).toBe(true);
    expect(await waitFor(() => establishedConnectionsTo(port) === MAX_IDLE_CONNECTIONS, 1000, 10)).toBe(true);
    expect(await (await pool.fetch(`${base}/once-per-connection`, { method: 'POST', body: 'again' }, { repeatable: true })).text()).toBe(
      'ok',
    );
    await pool.close();
  });

  it('fails a request in flight when it is closed, instead of leaving it waiting', async () => {
    const pool = new HttpConnectionPool();
    const response = await pool.fetch(`${base}/hang`, { method: 'POST', body: '{}' });
    const read = response.body!.getReader().read();
    await pool.close();
    await expect(read).rejects.toThrow();
    expect(await waitFor(() => establishedConnectionsTo(port) === 0, 1000, 10)).toBe(true);
  });
});
