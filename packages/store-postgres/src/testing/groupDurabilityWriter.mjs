// A child process for the group-commit durability test: appends up to `perRun` tool steps to each
// of the given runs, all runs at once (their appends share batches), through the built package
// with group commit on; prints `ack <run index> <sequence>` as soon as each append resolves. The
// test SIGKILLs it.
//
//   node groupDurabilityWriter.mjs <connection string> <schema> <run ids, comma-separated> <per run>
import { PostgresRunStore } from '../../dist/index.js';

const [connectionString, schema, runIdList, perRunText] = process.argv.slice(2);
const runIds = runIdList.split(',');
const perRun = Number(perRunText);
// named, so that the test can wait until the server has finished what the killed writer sent
const store = await PostgresRunStore.connect({
  connectionString,
  schema,
  poolSize: 4,
  groupCommit: true,
  applicationName: `rl-gwriter-${schema}`,
});
process.stdout.write('ready\n');
await Promise.all(
  runIds.map(async (runId, r) => {
    for (let i = 0; i < perRun; i++) {
      const outcome = i % 7 === 0 ? 'failed' : 'ok';
      const sequence = await store.appendStep(runId, {
        kind: 'tool',
        round: 0,
        durationMs: 1 + (i % 50),
        createdAt: Date.now(),
        payload: {
          kind: 'tool',
          run: r,
          i,
          toolName: 'mcp_disk_write',
          toolServer: 'disk',
          toolIsError: outcome !== 'ok',
          toolOutcome: outcome,
        },
        toolServer: 'disk',
        toolOutcome: outcome,
      });
      if (sequence !== i) throw new Error(`run ${r}: expected sequence ${i}, got ${sequence}`);
      // a pipe is written synchronously on Linux: the parent has the line before the next append
      process.stdout.write(`ack ${r} ${sequence}\n`);
    }
  }),
);
