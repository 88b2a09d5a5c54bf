// Schema version 15 (issue 39 item 2): a run's termination as data. Until now a store kept the
// sentence (runs.termination_reason), composed in SQL and read back by prefix; now it keeps the
// kind and its facts (termination_kind, termination_facts as JSON text), and the sentence is
// composed when it is shown. Existing rows are read once from their prose; termination_reason
// keeps only words the kind's sentence would not repeat (a reason older versions spelled otherwise).
import type { PoolClient } from 'pg';
import { terminationColumnsOfText } from '@runledger/trace/store';

const BATCH = 1000;

/**
 * Adds the termination columns and converts the prose of every ended run, a batch at a time (each
 * converted row leaves the selection). Runs again over its own result: a converted row has its kind.
 *
 * @internal
 */
export async function addTerminationData(client: PoolClient): Promise<void> {
  await client.query('ALTER TABLE runs ADD COLUMN IF NOT EXISTS termination_kind text, ADD COLUMN IF NOT EXISTS termination_facts text');
  for (;;) {
    const batch = await client.query<{ id: string; termination_reason: string }>(
      `SELECT id, termination_reason FROM runs WHERE termination_kind IS NULL AND termination_reason IS NOT NULL LIMIT ${BATCH}`,
    );
    if (batch.rows.length === 0) return;
    const converted = batch.rows.map((row) => terminationColumnsOfText(row.termination_reason));
    await client.query(
      `UPDATE runs SET termination_kind = c.kind, termination_facts = c.facts, termination_reason = c.reason
       FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[]) AS c(id, kind, facts, reason) WHERE runs.id = c.id`,
      [
        batch.rows.map((row) => row.id),
        converted.map((c) => c.termination_kind),
        converted.map((c) => c.termination_facts),
        converted.map((c) => c.termination_reason),
      ],
    );
    if (batch.rows.length < BATCH) return;
  }
}
