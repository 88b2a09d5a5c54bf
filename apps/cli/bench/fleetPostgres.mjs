// Bulk-loads the fleet of fleetData.mjs into a PostgresRunStore's own tables: one INSERT … SELECT
// from generate_series per table (the steps with FK triggers off and the secondary indexes
// dropped, then rebuilt from their own definitions), the run counters from one aggregate UPDATE over the steps, and the
// health rollup by the store's own rollup_add_runs() (the function importRun uses), the tool rollup by
// its tool_rollup_add_runs() (schema 17, the statement its moves use), then ANALYZE.
// open_calls stays empty, as the store would keep it: every call of the fleet has its end.
import { SERVERS, SPAN_MS, stepMs } from './fleetData.mjs';

/** Loads `shape` into schema `q` (quoted, created and migrated by the store) with `client`; returns the phases' seconds. */
export async function loadPostgresFleet(client, q, shape, start, log) {
  const t0 = performance.now();
  const phases = [];
  const phase = (name) => {
    phases.push([name, (performance.now() - t0) / 1000]);
    log(`${name} after ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  };
  await client.query(`SET maintenance_work_mem = '256MB'; SET synchronous_commit = off; SET work_mem = '64MB'`);
  const runId = (r) => `('f1ee7000-0000-4000-8000-' || lpad(to_hex(${r} + 1), 12, '0'))::uuid`;
  const big = `r IN (${shape.bigIndex}, ${shape.liveIndex})`;
  const steps = `(CASE WHEN ${big} THEN ${shape.big} ELSE ${shape.perRun} END)`;
  const createdAt = `(${start}::bigint + (r::bigint * ${SPAN_MS}) / ${shape.runs})`;
  const status = `(CASE WHEN r = ${shape.bigIndex} THEN 'completed' WHEN r = ${shape.liveIndex} THEN 'running' ELSE (CASE WHEN (r * 7919) % 100 < 85 THEN 'completed'
      WHEN (r * 7919) % 100 < 93 THEN 'failed' WHEN (r * 7919) % 100 < 97 THEN 'cancelled'
      WHEN (r * 7919) % 100 < 99 THEN 'interrupted' ELSE 'running' END) END)`;
  const stepMsOf = `(CASE WHEN ${big} THEN ${stepMs(true)} ELSE ${stepMs(false)} END)`;
  await client.query(
    `INSERT INTO ${q}.runs (id, status, configuration, actor, created_at, started_at, finished_at, termination_reason, cancel_requested_at)
     SELECT ${runId('r')}, st, 'agent-' || (r % 12), 'user' || (r % 40), c, c,
            CASE WHEN st = 'running' THEN NULL ELSE c + ${steps} * ${stepMsOf} + 1000 END,
            CASE st WHEN 'failed' THEN 'model error' WHEN 'cancelled' THEN 'cancel requested' END,
            CASE WHEN st = 'cancelled' THEN c + ${steps} * ${stepMsOf} + 500 END
     FROM (SELECT r, ${status} AS st, ${createdAt} AS c FROM generate_series(0, ${shape.runs - 1}) AS r) g`,
  );
  phase('runs');
  const definitions = (
    await client.query(`SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = 'steps'`, [q.slice(1, -1)])
  ).rows;
  for (const { indexname } of definitions) if (indexname !== 'steps_pkey') await client.query(`DROP INDEX ${q}.${indexname}`);
  await client.query(`ALTER TABLE ${q}.steps DROP CONSTRAINT steps_pkey`);
  // FK checks off for this session's bulk insert (every run_id comes from the runs just inserted)
  await client.query(`SET session_replication_role = replica`);
  await client.query(
    `INSERT INTO ${q}.steps (run_id, sequence, kind, round, duration_ms, created_at, payload, tool_server, tool_outcome,
       call_server, call_outcome, call_cause, call_answered, call_counted, call_tool)
     SELECT ${runId('r')}, i, kind, i / 3, d, c + i::bigint * ${stepMsOf},
            CASE kind
              WHEN 'llm' THEN json_build_object('kind', 'llm', 'round', i / 3, 'durationMs', d, 'model', 'demo-model-1',
                'promptTokens', 1200 + i, 'completionTokens', 88, 'finishReason', 'tool_calls')
              WHEN 'tool_start' THEN json_build_object('kind', 'tool_start', 'round', i / 3, 'durationMs', 0, 'toolName', 'mcp_' || s || '_search',
                'toolServer', s, 'toolArguments', json_build_object('query', 'q' || i, 'limit', 10), 'toolCallId', 'c' || r || '-' || (i / 3))
              ELSE json_build_object('kind', 'tool', 'round', i / 3, 'durationMs', d, 'toolName', 'mcp_' || s || '_search',
                'toolServer', s, 'toolIsError', o <> 'ok', 'toolOutcome', o, 'toolCallId', 'c' || r || '-' || (i / 3))
            END::text,
            CASE WHEN kind <> 'llm' THEN s END, CASE WHEN kind = 'tool' THEN o END,
            CASE WHEN kind = 'tool' THEN s END, CASE WHEN kind = 'tool' THEN o END, NULL,
            CASE WHEN kind = 'tool' THEN o = 'ok' END, CASE WHEN kind = 'tool' THEN o <> 'cancelled' END,
            CASE WHEN kind = 'tool' THEN 'mcp_' || s || '_search' END
     FROM (
       SELECT r, i, c, CASE i % 3 WHEN 0 THEN 'llm' WHEN 1 THEN 'tool_start' ELSE 'tool' END AS kind,
              'srv' || lpad(((r * 13 + (i / 3) * 7) % ${SERVERS})::text, 2, '0') AS s,
              CASE WHEN i % 3 = 0 THEN 300 + h WHEN i % 3 = 1 THEN 0 ELSE 5 + (h * 37) % 2000 END::float8 AS d,
              CASE WHEN (r % 7 = 0 AND h < 100) OR h < 5 THEN 'failed'
                   WHEN r % 53 = 0 AND h >= 100 AND h < 130 THEN 'cancelled' ELSE 'ok' END AS o
       FROM (SELECT r, ${createdAt} AS c FROM generate_series(0, ${shape.runs - 1}) AS r) runs,
            LATERAL generate_series(0, ${steps} - 1) AS i,
            LATERAL (SELECT (r::bigint * 1103 + i::bigint * 7919) % 1000 AS h) hash
     ) g`,
  );
  await client.query(`SET session_replication_role = DEFAULT`);
  phase('steps');
  await client.query(`ALTER TABLE ${q}.steps ADD PRIMARY KEY (run_id, sequence)`);
  for (const { indexname, indexdef } of definitions) if (indexname !== 'steps_pkey') await client.query(indexdef);
  phase('step indexes');
  await client.query(
    `UPDATE ${q}.runs r SET next_sequence = c.n, ok_count = c.ok, failed_count = c.failed, cancelled_count = c.cancelled,
            tokens = c.tokens
     FROM (SELECT run_id, max(sequence) + 1 AS n, count(*) FILTER (WHERE call_outcome = 'ok') AS ok,
                  -- an llm step's promptTokens (1200 + its sequence) + completionTokens (88), as inserted above
                  coalesce(sum(1288 + sequence) FILTER (WHERE kind = 'llm'), 0) AS tokens,
                  count(*) FILTER (WHERE call_outcome = 'failed') AS failed,
                  count(*) FILTER (WHERE call_outcome = 'cancelled') AS cancelled
           FROM ${q}.steps GROUP BY run_id) c
     WHERE c.run_id = r.id`,
  );
  phase('run counters');
  const ids = (await client.query(`SELECT id FROM ${q}.runs ORDER BY id`)).rows.map((row) => row.id);
  for (let k = 0; k < ids.length; k += 2_000) await client.query(`SELECT ${q}.rollup_add_runs($1::uuid[])`, [ids.slice(k, k + 2_000)]);
  phase('health rollup');
  for (let k = 0; k < ids.length; k += 2_000) await client.query(`SELECT ${q}.tool_rollup_add_runs($1::uuid[])`, [ids.slice(k, k + 2_000)]);
  phase('tool rollup');
  for (const table of ['runs', 'steps', 'health_rollup', 'health_causes', 'tool_rollup', 'tool_causes']) {
    await client.query(`VACUUM ANALYZE ${q}.${table}`);
  }
  phase('vacuum analyze');
  return phases;
}
