// Schema version 14: the health rollup and its causes keyed time first (level, bucket_start,
// server), so the calls of one batch or one prune transaction dirty a few pages per level, not one
// per server.
import type Database from 'better-sqlite3';
import { DURATION_HISTOGRAM_SLOTS } from '@runledger/trace/store';
import { histogramColumnsOf } from './histogramColumnsOf.js';

/**
 * Rebuilds health_rollup and health_causes keyed time first and drops health_servers.
 *
 * @internal
 */
export function keyRollupTimeFirst(db: Database.Database): void {
  // Keyed server first (version 5), a batch of calls consecutive in time but of many servers —
  // a prune transaction, a move of pending calls — wrote a page per server at every level: most
  // of a prune's log pages were the rollup's (docs/benchmarks.md, the SQLite prune's census).
  // Time first, a window's buckets are one range per level for every server, so a health read
  // no longer needs health_servers to know which servers to visit; it goes.
  const slots = Array.from({ length: DURATION_HISTOGRAM_SLOTS }, (_, k) => `h${k}`).join(', ');
  const columns = `level, bucket_start, server, ok, failed, cancelled, not_counted, answered, last_failure_at, min_ms, max_ms, ${slots}`;
  db.exec(`
CREATE TABLE health_rollup_v14 (
  level INTEGER NOT NULL,
  bucket_start INTEGER NOT NULL,
  server TEXT NOT NULL,
  ok INTEGER NOT NULL DEFAULT 0,
  failed INTEGER NOT NULL DEFAULT 0,
  cancelled INTEGER NOT NULL DEFAULT 0,
  not_counted INTEGER NOT NULL DEFAULT 0,
  answered INTEGER NOT NULL DEFAULT 0,
  last_failure_at INTEGER,
  min_ms REAL,
  max_ms REAL,
  ${histogramColumnsOf(DURATION_HISTOGRAM_SLOTS)},
  PRIMARY KEY (level, bucket_start, server)
) WITHOUT ROWID;
INSERT INTO health_rollup_v14 (${columns})
  SELECT ${columns} FROM health_rollup ORDER BY level, bucket_start, server;
DROP TABLE health_rollup;
ALTER TABLE health_rollup_v14 RENAME TO health_rollup;
CREATE TABLE health_causes_v14 (
  level INTEGER NOT NULL,
  bucket_start INTEGER NOT NULL,
  server TEXT NOT NULL,
  cause TEXT NOT NULL,
  calls INTEGER NOT NULL,
  PRIMARY KEY (level, bucket_start, server, cause)
) WITHOUT ROWID;
INSERT INTO health_causes_v14 (level, bucket_start, server, cause, calls)
  SELECT level, bucket_start, server, cause, calls FROM health_causes ORDER BY level, bucket_start, server, cause;
DROP TABLE health_causes;
ALTER TABLE health_causes_v14 RENAME TO health_causes;
DROP TABLE health_servers;`);
}
