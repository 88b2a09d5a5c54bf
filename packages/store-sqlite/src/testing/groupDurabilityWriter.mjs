// Child process of the group-commit durability test: appends `perRun` tool steps to each of the
// given runs, all runs at once (their appends share commits), through the store's sources (spawned
// with spawnNode's `sources`, so that it reaches the test seam) with group commit on; prints `ack <run index> <sequence>` as soon as each append resolves. An optional
// fourth argument is a pause in ms after each append (an agent waiting for its model and tools).
//
//   node groupDurabilityWriter.mjs <file> <run ids, comma-separated> <per run> [pause ms] [roll pending at]
import { SqliteRunStore } from '../SqliteRunStore.ts';
import { setRollPendingAt } from '../SqliteRunStoreInternals.ts';

const [path, runIdList, perRunText] = process.argv.slice(2);
const runIds = runIdList.split(',');
const perRun = Number(perRunText);
const pauseMs = Number(process.argv[5] ?? 0);
// a fifth argument: move pending calls into the health rollup every that many calls (else the store's default)
const rollPendingAt = process.argv[6] === undefined ? undefined : Number(process.argv[6]);
const store = await SqliteRunStore.open({ path, groupCommit: true });
if (rollPendingAt !== undefined) setRollPendingAt(store, rollPendingAt);
await Promise.all(
  runIds.map(async (runId, r) => {
    for (let i = 0; i < perRun; i++) {
      const sequence = await store.appendStep(runId, {
        kind: 'tool',
        round: 0,
        durationMs: i % 50,
        createdAt: Date.now(),
        payload: { kind: 'tool', run: r, index: i, toolName: 'mcp_disk_write', toolServer: 'disk', toolIsError: false, toolOutcome: 'ok' },
        toolServer: 'disk',
        toolOutcome: 'ok',
      });
      if (sequence !== i) throw new Error(`run ${r}: expected sequence ${i}, got ${sequence}`);
      // a pipe is written synchronously on Linux: the parent has the line before the next append
      process.stdout.write(`ack ${r} ${sequence}\n`);
      if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }),
);
await store.close();
process.stdout.write('done\n');
