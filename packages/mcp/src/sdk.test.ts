// Checks, on the installed SDK version, the facts the outcome classification rests on.
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { McpTransportErrorCode } from '@runledger/core';
import { describe, expect, it } from 'vitest';
import { newAbortReason, toTransportException } from './sdk.js';
import { createFixtureServer } from './testing/fixture-server.mjs';

async function bareClient() {
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  await createFixtureServer().connect(serverEnd);
  const client = new Client({ name: 't', version: '1' });
  await client.connect(clientEnd);
  return client;
}

describe('the MCP SDK abort contract this package relies on', () => {
  it('a reason made by newAbortReason comes back as the very same object', async () => {
    const client = await bareClient();
    const controller = new AbortController();
    const reason = newAbortReason('ours');
    const pending = client.callTool({ name: 'slow', arguments: { ms: 2000 } }, { signal: controller.signal });
    setTimeout(() => controller.abort(reason), 10);
    await expect(pending).rejects.toBe(reason);
    await client.close();
  });

  it('a plain Error as the reason is replaced by an error with the code of a timeout (issue 2165)', async () => {
    const client = await bareClient();
    const controller = new AbortController();
    const reason = new Error('plain');
    const pending = client.callTool({ name: 'slow', arguments: { ms: 2000 } }, { signal: controller.signal });
    setTimeout(() => controller.abort(reason), 10);
    const error = await pending.catch((e: unknown) => e);
    expect(error).not.toBe(reason);
    expect((error as { code?: unknown }).code).toBe('REQUEST_TIMEOUT');
    // ...which is why a code can never tell a cancel from a timeout: it maps to a timeout.
    expect(toTransportException('s', error, { deadlineMs: 5 }).code).toBe(McpTransportErrorCode.TIMEOUT);
    await client.close();
  });

  it('an already-aborted signal rejects with the same object before anything is sent', async () => {
    const client = await bareClient();
    const reason = newAbortReason('ours');
    await expect(client.callTool({ name: 'echo', arguments: { text: 'x' } }, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    await client.close();
  });
});
