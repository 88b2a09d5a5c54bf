// Child process of the durability test: writes one run of `total` tool steps through the built
// store and prints `ack <n>` after every 100th acknowledged append (n = steps acknowledged so far).
import { SqliteRunStore } from '../../dist/index.js';

const [path, runId, totalText] = process.argv.slice(2);
const total = Number(totalText);
const store = await SqliteRunStore.open({ path });
await store.createRun({ id: runId, configuration: 'durability', createdAt: Date.now() });
await store.heartbeat(runId);
for (let i = 0; i < total; i++) {
  const outcome = i % 7 === 0 ? 'failed' : 'ok';
  const sequence = await store.appendStep(runId, {
    kind: 'tool',
    round: Math.floor(i / 10),
    durationMs: i % 100,
    createdAt: Date.now(),
    payload: {
      kind: 'tool',
      index: i,
      toolName: 'mcp_disk_write',
      toolServer: 'disk',
      toolIsError: outcome !== 'ok',
      toolOutcome: outcome,
    },
    toolServer: 'disk',
    toolOutcome: outcome,
  });
  if (sequence !== i) throw new Error(`expected sequence ${i}, got ${sequence}`);
  if ((i + 1) % 100 === 0) process.stdout.write(`ack ${i + 1}\n`);
}
await store.close();
process.stdout.write('done\n');
