// McpConnection.callTool's promise cost: the call's handlers run on the SDK's own promise, and
// nothing else. Each promise more is one more turn before the caller hears of the result — the
// cancel path included (a `.finally` that forgot the call's arguments doubled its p99 in the bench).
import { createHook } from 'node:async_hooks';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { parseServerConfig } from './parseServerConfig.js';
import { type McpConnection, openConnection } from './sdk.js';
import { createFixtureServer } from './testing/fixture-server.mjs';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

function linked(): InMemoryTransport {
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  void createFixtureServer().connect(serverEnd);
  return clientEnd;
}

/** How many promises `run` makes until it settles. */
async function promisesMadeBy(run: () => Promise<unknown>): Promise<number> {
  let made = 0;
  const hook = createHook({
    init(_id, type) {
      if (type === 'PROMISE') made++;
    },
  });
  hook.enable();
  try {
    await run();
  } finally {
    hook.disable();
  }
  return made;
}

describe('McpConnection.callTool makes no promise beyond the SDK call and its handlers', () => {
  it('an answered call and an aborted one cost what the bare client call with the same handlers costs', async () => {
    const [config] = parseServerConfig({ servers: [{ id: 'p', transport: { type: 'stdio', command: 'unused' } }] });
    const connection: McpConnection = await openConnection(config!, {
      transportFactory: () => linked(),
      timeoutMs: 5000,
      env: {},
      maxListPages: 10,
      signal: new AbortController().signal,
    });
    closers.push(() => connection.close());
    const client = new Client({ name: 't', version: '1' });
    await client.connect(linked());
    closers.push(() => client.close());
    const handlers = [(answer: unknown) => answer, (error: unknown) => error] as const;
    const ours = (signal?: AbortSignal) => connection.callTool('echo', { text: 'x' }, { signal, timeoutMs: 5000 }, ...handlers);
    const bare = (signal?: AbortSignal) =>
      client.callTool({ name: 'echo', arguments: { text: 'x' } }, { signal, timeout: 5000 }).then(...handlers);
    // warm both paths (lazy schema compilation and the like make promises once)
    await ours();
    await bare();
    expect(await promisesMadeBy(() => ours())).toBe(await promisesMadeBy(() => bare()));

    const aborted = (call: (signal: AbortSignal) => Promise<unknown>) => () => {
      const controller = new AbortController();
      const pending = call(controller.signal);
      controller.abort();
      return pending;
    };
    expect(await promisesMadeBy(aborted(ours))).toBe(await promisesMadeBy(aborted(bare)));
  });
});
