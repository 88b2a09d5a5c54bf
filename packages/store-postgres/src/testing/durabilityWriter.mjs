// A child process for the durability test: appends up to 10 000 steps to one run and prints each
// acknowledged sequence on its own line, with a heartbeat every 100 steps. The test SIGKILLs it.
// Plain JavaScript against the built package (turbo's test task depends on the package's build).
import { PostgresRunStore } from '../../dist/index.js';

const [connectionString, schema, runId] = process.argv.slice(2);
// named, so that the test can wait until the server has finished what the killed writer sent
const store = await PostgresRunStore.connect({ connectionString, schema, poolSize: 2, applicationName: `rl-writer-${schema}` });
process.stdout.write('ready\n');
for (let i = 0; i < 10_000; i++) {
  const outcome = i % 7 === 0 ? 'failed' : 'ok';
  const sequence = await store.appendStep(runId, {
    kind: 'tool',
    round: Math.floor(i / 10),
    durationMs: 1 + (i % 50),
    createdAt: Date.now(),
    payload: {
      kind: 'tool',
      round: Math.floor(i / 10),
      toolName: 'mcp_disk_write',
      toolServer: 'disk',
      toolIsError: outcome !== 'ok',
      toolOutcome: outcome,
      i,
    },
    toolServer: 'disk',
    toolOutcome: outcome,
  });
  process.stdout.write(`${sequence}\n`);
  if (i % 100 === 99) await store.heartbeat(runId);
}
await store.close();
