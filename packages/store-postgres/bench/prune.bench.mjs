// Retention on PostgreSQL: bench/pruneWhileRecording.mjs (pruning 1 000 000 old steps while 4 runs
// record in another process) on a fresh schema of the test database (RUNLEDGER_PG_URL).
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { pruneWhileRecording } from '../../../bench/pruneWhileRecording.mjs';
import { PostgresRunStore } from '../dist/index.js';

const URL = process.env.RUNLEDGER_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const POSTGRES = {
  name: 'PostgreSQL',
  heading: 'store-postgres',
  fresh: (_dir, label) => `rl_bench_${label.replace(/\W/g, '_')}_${process.pid}`,
  open: (schema) => PostgresRunStore.connect({ connectionString: URL, schema }),
  drop: async (schema) => {
    const admin = new pg.Client({ connectionString: URL });
    await admin.connect();
    try {
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    } finally {
      await admin.end();
    }
  },
};

await pruneWhileRecording(POSTGRES, fileURLToPath(import.meta.url));
