import { describe, expect, it } from 'vitest';
import { InMemoryRunStore } from './InMemoryRunStore.js';
import { RunStoreError } from './RunStoreError.js';

describe('InMemoryRunStore', () => {
  it('refuses every call once closed, while a peer on the same data goes on', async () => {
    const store = InMemoryRunStore.create();
    const peer = store.openPeer();
    const run = await store.createRun({ configuration: 'c' });
    let fired = 0;
    store.watchCancel(run.id, () => fired++);
    await store.close();
    await store.close();
    await expect(store.getRun(run.id)).rejects.toSatisfy((e: unknown) => RunStoreError.is(e) && e.code === 'storage_failure');
    expect(() => store.watchCancel(run.id, () => undefined)).toThrow(/closed/);
    await peer.requestCancel(run.id);
    await Promise.resolve();
    expect(fired).toBe(0);
    expect((await peer.getRun(run.id))?.cancelRequestedAt).not.toBeNull();
  });

  it('uses its clock for default times', async () => {
    let now = 5;
    const store = InMemoryRunStore.create({ clock: () => now });
    const run = await store.createRun({ configuration: 'c' });
    now = 9;
    expect((await store.finishRun(run.id, { status: 'completed' })).finishedAt).toBe(9);
    expect(run.createdAt).toBe(5);
  });
});
