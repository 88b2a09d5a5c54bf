import { afterAll, describe, expect, it } from 'vitest';
import { connectTestStore, dropSchema, randomSchema, requirePostgres } from './testing/pgTest.js';

describe('session settings on connect', () => {
  const schemas: string[] = [];
  afterAll(async () => {
    for (const schema of schemas) await dropSchema(schema);
  });

  it('connecting and querying emits no "already executing a query" deprecation warning', async () => {
    await requirePostgres();
    const warnings: string[] = [];
    const listen = (warning: Error): void => {
      warnings.push(`${warning.name}: ${warning.message}`);
    };
    process.on('warning', listen);
    try {
      const schema = randomSchema('rl_session');
      schemas.push(schema);
      const store = await connectTestStore(schema);
      try {
        // Many queries at once make the pool open several new connections, each of which gets the
        // session settings first; with an unawaited settings query the store's own query was sent
        // while it still ran.
        const runs = await Promise.all(
          Array.from({ length: 8 }, (_, i) => store.createRun({ configuration: `session-${i}`, actor: null, createdAt: Date.now() })),
        );
        await Promise.all(runs.map((run) => store.getRun(run.id)));
        await Promise.all([store.listRuns({ limit: 5 }), store.serverHealth({}), store.getRun(runs[0]!.id)]);
      } finally {
        await store.close();
      }
      // warnings are emitted on the next tick
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      process.off('warning', listen);
    }
    expect(warnings.filter((w) => /already executing a query/.test(w))).toEqual([]);
  });
});
