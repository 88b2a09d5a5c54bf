import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { TOOLS } from './helpers.js';

/** A Verdaccio registry in its own process, on 127.0.0.1, with temporary storage and no uplink. */
export interface Verdaccio {
  /** e.g. "http://127.0.0.1:41234/" (with the trailing slash npm uses) */
  url: string;
  /** the `.npmrc` lines that send the scope to it and authenticate (any token publishes) */
  npmrc(scope: string): string;
  /** The registry's document of one package (what `npm view` reads), read with {@link getOnce}. */
  packument(name: string): Promise<{ status: number; body: unknown }>;
  /** Stops the process and deletes the storage; safe to call twice. */
  stop(): Promise<void>;
}

const VERDACCIO_BIN = path.join(TOOLS, 'node_modules', 'verdaccio', 'bin', 'verdaccio');

/**
 * One GET on a connection of its own (`agent: false`: the request says `Connection: close` and no
 * socket is kept or reused); the body parsed as JSON when it is JSON.
 * @remarks The release test blocks its event loop for minutes in `spawnSync` while a release runs.
 * A keep-alive socket from before (fetch keeps them in a pool) may by then have been closed by
 * Verdaccio without this process having seen it, and a request written to it fails with
 * `write EPIPE`. A fresh connection per read cannot be stale; the reads are few.
 */
export function getOnce(url: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, headers: { accept: 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('error', reject);
      res.on('end', () => {
        const json = /^application\/json\b/.test(res.headers['content-type'] ?? '');
        try {
          resolve({ status: res.statusCode ?? 0, body: json ? JSON.parse(text) : text });
        } catch (e) {
          reject(new Error(`GET ${url}: ${(e as Error).message} in ${text.slice(0, 200)}`));
        }
      });
    });
    req.on('error', reject);
  });
}

/** A port that was free a moment ago (the kernel picks it). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * Starts Verdaccio 5 for the packages of `scope` (`access: $all`, `publish: $anonymous`,
 * `uplinks: {}`: only what is published to it exists) and waits until `/-/ping` answers.
 * On any failure to start, the process is killed and the storage removed before the error.
 */
export async function startVerdaccio(scope: string, { readyTimeoutMs = 30_000 } = {}): Promise<Verdaccio> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'runledger-verdaccio-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const config = path.join(dir, 'config.yaml');
  writeFileSync(
    config,
    [
      `storage: ${JSON.stringify(path.join(dir, 'storage'))}`,
      'uplinks: {}',
      'packages:',
      `  '${scope}/*':`,
      '    access: $all',
      '    publish: $anonymous',
      '    unpublish: $anonymous',
      `  '**':`,
      '    access: $all',
      'log: { type: stdout, format: pretty, level: warn }',
      '',
    ].join('\n'),
  );
  let output = '';
  const child = spawn(process.execPath, [VERDACCIO_BIN, '--config', config, '--listen', `127.0.0.1:${port}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const stop = async () => {
    await stopProcess(child);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const deadline = Date.now() + readyTimeoutMs;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`verdaccio exited with ${child.exitCode} before it was ready:\n${output}`);
      try {
        if ((await getOnce(`${url}-/ping`)).status === 200) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`verdaccio did not answer ${url}-/ping within ${readyTimeoutMs} ms:\n${output}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  } catch (e) {
    await stop();
    throw e;
  }
  const hostPath = url.replace(/^https?:/, '');
  return {
    url,
    npmrc: (s) => `${s}:registry=${url}\n${hostPath}:_authToken=runledger-release-test\n`,
    packument: (name) => getOnce(new URL(name.replace('/', '%2f'), url).href),
    stop,
  };
}
