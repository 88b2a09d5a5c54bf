// Child process of the multi-process test: appends `count` steps to a shared run and `count` to its
// own run, alternating, through the built store; prints one JSON line with the sequences it got.
import { SqliteRunStore } from '../../dist/index.js';

const [path, writer, sharedRunId, ownRunId, countText] = process.argv.slice(2);
const count = Number(countText);
const store = await SqliteRunStore.open({ path, busyTimeoutMs: 30_000 });
const step = (i, target) => ({
  kind: 'tool',
  round: 0,
  durationMs: 1,
  createdAt: Date.now(),
  payload: { kind: 'tool', writer, i, target, toolName: `mcp_w${writer}_x`, toolIsError: false, toolOutcome: 'ok' },
  toolServer: `w${writer}`,
  toolOutcome: 'ok',
});
const shared = [];
const own = [];
for (let i = 0; i < count; i++) {
  shared.push(await store.appendStep(sharedRunId, step(i, 'shared')));
  own.push(await store.appendStep(ownRunId, step(i, 'own')));
}
await store.close();
process.stdout.write(`${JSON.stringify({ writer, shared, own })}\n`);
