// Schema version 20 (issue 39 item 2): a run's termination as data. Until now a store kept the
// sentence (runs.termination_reason), composed in SQL and read back by prefix; now it keeps the
// kind and its facts (termination_kind, termination_facts as JSON), and the sentence is composed
// when it is shown. Existing rows are read once from their prose; termination_reason keeps only
// words the kind's sentence would not repeat (a reason older versions spelled otherwise).
import type Database from 'better-sqlite3';
import { terminationColumnsOfText } from '@runledger/trace/store';

const BATCH = 1000;

/**
 * Adds the termination columns and converts the prose of every ended run. Written to run again
 * over its own result, like version 15: a converted row has its kind, and is left alone.
 *
 * @internal
 */
export function addTerminationData(db: Database.Database): void {
  const columns = new Set(db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('runs') as string[]);
  if (!columns.has('termination_kind')) db.exec('ALTER TABLE runs ADD COLUMN termination_kind TEXT;');
  if (!columns.has('termination_facts')) db.exec('ALTER TABLE runs ADD COLUMN termination_facts TEXT;');
  // in batches, each converted row leaving the selection: a large file is not read into memory at once
  const batch = db.prepare(
    `SELECT id, termination_reason FROM runs WHERE termination_kind IS NULL AND termination_reason IS NOT NULL LIMIT ${BATCH}`,
  );
  const convert = db.prepare('UPDATE runs SET termination_kind = ?, termination_facts = ?, termination_reason = ? WHERE id = ?');
  for (;;) {
    const rows = batch.all() as { id: string; termination_reason: string }[];
    for (const row of rows) {
      const converted = terminationColumnsOfText(row.termination_reason);
      convert.run(converted.termination_kind, converted.termination_facts, converted.termination_reason, row.id);
    }
    if (rows.length < BATCH) return;
  }
}
