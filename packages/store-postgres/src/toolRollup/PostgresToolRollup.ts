// The per-server-and-tool rollup (the sibling of store-sqlite's SqliteToolRollup): its tables, what
// a move of pending calls, an import and the schema 17 backfill add to it (common table expressions
// of the health rollup's statement), what a prune takes out of it, and the read of
// ToolTotalsRunStore.toolCallTotals over any window.
import type pg from 'pg';
import {
  type ToolCallTotals,
  type ToolCallTotalsQuery,
  TOOL_DURATION_BUCKET_COUNT,
  TOOL_DURATION_BUCKETS_SECONDS,
  toolDurationBucket,
  UNKNOWN_FAILURE_CAUSE,
} from '@runledger/trace';
import {
  checkToolCallTotalsQuery,
  type NormalizedToolCallTotalsQuery,
  planRollupWindow,
  ROLLUP_LEVEL_SIZES,
  rollupBucketSpan,
  rollupBucketStart,
  ToolCallTotalsFold,
} from '@runledger/trace/store';
import type { PostgresAccess } from '../PostgresAccess.js';
import type { DeletedCall } from '../prune/PostgresPruneRollup.js';

const BUCKETS = Array.from({ length: TOOL_DURATION_BUCKET_COUNT }, (_, k) => `b${k}`);
const SUMS = ['ok', 'failed', 'cancelled', 'answered_ms', ...BUCKETS];
const levelsOf = (): string => ROLLUP_LEVEL_SIZES.map((size, level) => `(${level}::smallint, ${size}::bigint)`).join(', ');

/** The rollup's key of a tool name (SQL): `-` for calls without one, `+` and the name otherwise (a key column cannot be null). */
const toolKeySql = (tool: string): string => `CASE WHEN ${tool} IS NULL THEN '-' ELSE '+' || ${tool} END`;
const toolOfKey = (key: string): string | null => (key === '-' ? null : key.slice(1));
const toolKeyOf = (tool: string | null): string => (tool === null ? '-' : `+${tool}`);

/**
 * The bucket of `TOOL_DURATION_BUCKETS_SECONDS` of a duration in ms (SQL): trace's toolDurationBucket
 * in float8, `duration / 1000 <= bound` as JavaScript divides and compares. A duration of 1 ms or
 * less is in the first bucket without the division, which PostgreSQL refuses as an underflow for
 * the tiniest doubles (JavaScript gives 0).
 */
const bucketSql = (duration: string): string =>
  `CASE WHEN ${duration} <= 1 THEN 0 ${TOOL_DURATION_BUCKETS_SECONDS.map((bound, k) => `WHEN ${duration} / 1000::float8 <= ${String(bound)}::float8 THEN ${k}`).join(' ')} ELSE ${TOOL_DURATION_BUCKETS_SECONDS.length} END`;

/** The tables of the rollup (schema version 17). */
export const TOOL_ROLLUP_TABLES = `
CREATE TABLE tool_rollup (
  level smallint NOT NULL,
  bucket_start bigint NOT NULL,
  server text NOT NULL,
  tool text NOT NULL,
  ok bigint NOT NULL,
  failed bigint NOT NULL,
  cancelled bigint NOT NULL,
  answered_ms float8 NOT NULL,
  ${BUCKETS.map((b) => `${b} bigint NOT NULL`).join(',\n  ')},
  PRIMARY KEY (level, bucket_start, server, tool)
);
CREATE TABLE tool_causes (
  level smallint NOT NULL,
  bucket_start bigint NOT NULL,
  server text NOT NULL,
  tool text NOT NULL,
  cause text NOT NULL,
  calls bigint NOT NULL,
  PRIMARY KEY (level, bucket_start, server, tool, cause)
);`;

/**
 * The common table expressions `tool_calls`, `tool_sums` and `tool_cause_sums` that add the calls `calls` reads
 * (server, tool, outcome, duration_ms, created_at, cause, answered) to the rollup, each row upserted
 * once, in key order (the order a prune locks them in). PostgresHealthWriter's statement adds
 * them after its own, so a move of pending calls, an import and the backfill write both rollups
 * in one statement.
 */
export function toolRollupWrites(q: string, calls: string): string {
  const levels = levelsOf();
  return `tool_calls AS (
  SELECT server, ${toolKeySql('tool')} AS tool, outcome, duration_ms, created_at, cause, answered,
         CASE WHEN answered THEN ${bucketSql('duration_ms')} END AS duration_bucket
  FROM ${calls}
), tool_sums AS (
  INSERT INTO ${q}.tool_rollup AS t (level, bucket_start, server, tool, ${SUMS.join(', ')})
  SELECT l.level, ${q}.bucket_start(m.created_at, l.size), m.server, m.tool,
         count(*) FILTER (WHERE m.outcome = 'ok'), count(*) FILTER (WHERE m.outcome = 'failed'),
         count(*) FILTER (WHERE m.outcome = 'cancelled'), coalesce(sum(m.duration_ms) FILTER (WHERE m.answered), 0),
         ${BUCKETS.map((_, k) => `count(*) FILTER (WHERE m.duration_bucket = ${k})`).join(', ')}
  FROM tool_calls m CROSS JOIN (VALUES ${levels}) AS l (level, size)
  GROUP BY 1, 2, 3, 4
  ORDER BY 1, 2, 3, 4
  ON CONFLICT (level, bucket_start, server, tool) DO UPDATE SET ${SUMS.map((c) => `${c} = t.${c} + excluded.${c}`).join(', ')}
  RETURNING 1
), tool_cause_sums AS (
  INSERT INTO ${q}.tool_causes AS c (level, bucket_start, server, tool, cause, calls)
  SELECT l.level, ${q}.bucket_start(m.created_at, l.size), m.server, m.tool, coalesce(m.cause, '${UNKNOWN_FAILURE_CAUSE}'), count(*)
  FROM tool_calls m CROSS JOIN (VALUES ${levels}) AS l (level, size)
    CROSS JOIN (SELECT count(*) FROM tool_sums) AS after_sums
  WHERE m.outcome = 'failed'
  GROUP BY 1, 2, 3, 4, 5
  ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (level, bucket_start, server, tool, cause) DO UPDATE SET calls = c.calls + excluded.calls
  RETURNING 1
)`;
}

/** What deleted calls took out of one row. */
interface Delta {
  level: number;
  bucket: number;
  server: string;
  tool: string;
  ok: number;
  failed: number;
  cancelled: number;
  answered_ms: number;
  [bucket: `b${number}`]: number;
}

/**
 * The read of the per-server-and-tool rollup.
 *
 * @remarks
 * A read covers a window as a health read does, in one statement (one snapshot): whole buckets
 * by level, the calls pending for the rollup in their span (`health_pending.tool`), the steps of
 * the sub-minute edges. The counts are exact at any window. A prune takes its deleted calls out
 * with {@link subtractToolCalls}.
 *
 * @internal
 */
export class PostgresToolRollup {
  readonly #access: PostgresAccess;

  constructor(access: PostgresAccess) {
    this.#access = access;
  }

  /** `ToolTotalsRunStore.toolCallTotals`: refused once the store is closed, the query checked, then {@link PostgresToolRollup.read}. */
  async totals(query?: ToolCallTotalsQuery): Promise<readonly ToolCallTotals[]> {
    this.#access.open();
    return this.read(checkToolCallTotalsQuery(query));
  }

  /** The totals of a checked window. */
  async read(query: NormalizedToolCallTotalsQuery): Promise<ToolCallTotals[]> {
    const q = this.#access.q;
    const plan = planRollupWindow(query.since, query.until);
    const values: unknown[] = [];
    const param = (value: number): string => {
      values.push(value);
      return `$${values.length}::bigint`;
    };
    const sums: string[] = [];
    const causes: string[] = [];
    // a table's calls one by one, in the shape of a rollup row: `prefix` names its call columns (`call_` of steps)
    const calls = (table: string, prefix: string, conditions: string[]): void => {
      const [server, outcome, cause, answered, tool] = [
        `${prefix}server`,
        `${prefix}outcome`,
        `${prefix}cause`,
        `${prefix}answered`,
        `${prefix}tool`,
      ] as const;
      const where = conditions.join(' AND ');
      sums.push(`SELECT server, tool, (outcome = 'ok')::int, (outcome = 'failed')::int, (outcome = 'cancelled')::int,
          CASE WHEN answered THEN duration_ms ELSE 0 END, ${BUCKETS.map((_, k) => `(duration_bucket IS NOT DISTINCT FROM ${k})::int`).join(', ')}
        FROM (SELECT ${server} AS server, ${toolKeySql(tool)} AS tool, ${outcome} AS outcome, ${answered} AS answered, duration_ms,
                CASE WHEN ${answered} THEN ${bucketSql('duration_ms')} END AS duration_bucket
              FROM ${q}.${table} WHERE ${where}) AS c`);
      causes.push(
        `SELECT ${server}, ${toolKeySql(tool)}, coalesce(${cause}, '${UNKNOWN_FAILURE_CAUSE}'), 1 FROM ${q}.${table} WHERE ${where} AND ${outcome} = 'failed'`,
      );
    };
    for (const range of plan.buckets) {
      const conditions = [`level = ${range.level}`];
      if (range.from !== null) conditions.push(`bucket_start >= ${param(range.from)}`);
      if (range.to !== null) conditions.push(`bucket_start < ${param(range.to)}`);
      sums.push(`SELECT server, tool, ${SUMS.join(', ')} FROM ${q}.tool_rollup WHERE ${conditions.join(' AND ')}`);
      causes.push(`SELECT server, tool, cause, calls FROM ${q}.tool_causes WHERE ${conditions.join(' AND ')}`);
    }
    const span = rollupBucketSpan(plan);
    if (span !== null) {
      // a pending call counts where its moved sums would: in the span the plan's buckets cover
      const conditions = ['true'];
      if (span.from !== null) conditions.push(`created_at >= ${param(span.from)}`);
      if (span.to !== null) conditions.push(`created_at < ${param(span.to)}`);
      calls('health_pending', '', conditions);
    }
    for (const range of plan.raw) {
      const conditions = ['call_server IS NOT NULL', 'call_outcome IS NOT NULL'];
      if (range.from !== null) conditions.push(`created_at >= ${param(range.from)}`);
      if (range.to !== null) conditions.push(`created_at < ${param(range.to)}`);
      calls('steps', 'call_', conditions);
    }
    if (sums.length === 0) return [];
    // one statement, one snapshot: the sums per server and tool, then their causes (cause not null)
    const sql = `SELECT server, tool, NULL::text AS cause, ${SUMS.map((c) => `sum(${c})::float8 AS ${c}`).join(', ')}
      FROM (${sums.join('\nUNION ALL\n')}) AS s (server, tool, ${SUMS.join(', ')}) GROUP BY server, tool
      UNION ALL
      SELECT server, tool, cause, sum(calls)::float8, ${SUMS.slice(1)
        .map(() => '0')
        .join(', ')}
      FROM (${causes.join('\nUNION ALL\n')}) AS c (server, tool, cause, calls) GROUP BY server, tool, cause`;
    let rows: Record<string, unknown>[];
    try {
      rows = (await this.#access.timed<Record<string, unknown>>(sql, values)).rows;
    } catch (error) {
      throw this.#access.failure('toolCallTotals', error);
    }
    const fold = new ToolCallTotalsFold();
    for (const row of rows) {
      const server = row['server'] as string;
      const tool = toolOfKey(row['tool'] as string);
      const n = (column: string): number => row[column] as number;
      if (row['cause'] !== null) fold.addCause(server, tool, row['cause'] as string, n('ok'));
      else {
        const answeredBuckets = BUCKETS.map(n);
        fold.addSums(server, tool, {
          ok: n('ok'),
          failed: n('failed'),
          cancelled: n('cancelled'),
          answeredMs: n('answered_ms'),
          answeredBuckets,
        });
      }
    }
    return fold.totals();
  }
}

/**
 * Takes deleted calls (not pending ones: those are in no row) out of the rollup of schema `q`, in
 * the prune's transaction (under the rollup's advisory lock, as the health rollup's): the rows
 * locked in key order, counts subtracted, a row left without calls deleted with its causes.
 *
 * @internal
 */
export async function subtractToolCalls(client: pg.PoolClient, q: string, calls: readonly DeletedCall[]): Promise<void> {
  if (calls.length === 0) return;
  const rows = new Map<string, Delta>();
  const causes = new Map<string, { level: number; bucket: number; server: string; tool: string; cause: string; calls: number }>();
  for (const [server, createdAt, , outcome, cause, answered, , , durationMs, name] of calls) {
    const tool = toolKeyOf(name);
    const k = answered ? toolDurationBucket(durationMs) : -1;
    for (let level = 0; level < ROLLUP_LEVEL_SIZES.length; level++) {
      const bucket = rollupBucketStart(level, createdAt);
      const id = JSON.stringify([level, bucket, server, tool]);
      let d = rows.get(id);
      if (d === undefined) {
        d = { level, bucket, server, tool, ok: 0, failed: 0, cancelled: 0, answered_ms: 0 };
        for (const b of BUCKETS) d[b as `b${number}`] = 0;
        rows.set(id, d);
      }
      d[outcome] += 1;
      if (k >= 0) {
        d[`b${k}`] = (d[`b${k}`] ?? 0) + 1;
        d.answered_ms += durationMs;
      }
      if (outcome !== 'failed') continue;
      const why = cause ?? UNKNOWN_FAILURE_CAUSE;
      const cid = JSON.stringify([level, bucket, server, tool, why]);
      const c = causes.get(cid) ?? { level, bucket, server, tool, cause: why, calls: 0 };
      c.calls += 1;
      causes.set(cid, c);
    }
  }
  // The deltas and the taken causes as rows keyed like the tables' (`bucket_start`), so that one
  // join condition serves every pair of them.
  const recordset = (columns: string): string =>
    `(SELECT r.*, r.bucket AS bucket_start FROM json_to_recordset($1::json) AS r (level smallint, bucket bigint, server text, tool text, ${columns})) k`;
  const keys = recordset(SUMS.map((c) => `${c} ${c === 'answered_ms' ? 'float8' : 'bigint'}`).join(', '));
  const same = (a: string, b: string): string =>
    `${a}.level = ${b}.level AND ${a}.bucket_start = ${b}.bucket_start AND ${a}.server = ${b}.server AND ${a}.tool = ${b}.tool`;
  // One statement, the deltas parsed once: the rows locked in key order, as writes take them (so that
  // a prune and an import never wait for each other in a circle); a row the deleted calls empty is
  // deleted with its causes, never updated first; the others take the deleted calls away. (Three
  // statements that each parsed the deltas, and updated every row before deleting the emptied ones,
  // were 58 % of a prune's time.)
  await client.query(
    `WITH k AS MATERIALIZED (SELECT * FROM ${keys}),
     locked AS MATERIALIZED (
       SELECT t.level, t.bucket_start, t.server, t.tool, t.ok + t.failed + t.cancelled - (k.ok + k.failed + k.cancelled) <= 0 AS emptied
       FROM k JOIN ${q}.tool_rollup t ON ${same('t', 'k')}
       ORDER BY t.level, t.bucket_start, t.server, t.tool FOR UPDATE OF t
     ),
     gone AS (
       DELETE FROM ${q}.tool_rollup t USING locked l WHERE l.emptied AND ${same('t', 'l')}
       RETURNING t.level, t.bucket_start, t.server, t.tool
     ),
     gone_causes AS (DELETE FROM ${q}.tool_causes c USING gone g WHERE ${same('c', 'g')}),
     kept AS (
       UPDATE ${q}.tool_rollup t SET ${SUMS.map((c) => `${c} = t.${c} - k.${c}`).join(', ')}
       FROM locked l JOIN k ON ${same('l', 'k')}
       WHERE NOT l.emptied AND ${same('t', 'l')}
     )
     SELECT 1`,
    [JSON.stringify([...rows.values()])],
  );
  if (causes.size === 0) return;
  const causeKeys = recordset('cause text, calls bigint');
  const taken = JSON.stringify([...causes.values()]);
  await client.query(
    `UPDATE ${q}.tool_causes t SET calls = t.calls - k.calls FROM ${causeKeys} WHERE ${same('t', 'k')} AND t.cause = k.cause`,
    [taken],
  );
  await client.query(`DELETE FROM ${q}.tool_causes t USING ${causeKeys} WHERE ${same('t', 'k')} AND t.cause = k.cause AND t.calls <= 0`, [
    taken,
  ]);
}
