// The runs whose id starts with a prefix: the statement of SearchingRunStore.findRunIdsByPrefix, a
// range scan of the primary key (runs.id is a uuid, ordered as its lower-case text).
import type { Statement } from './listRunsStatement.js';

/** The lowest and highest UUID: a prefix completed by the rest of each bounds the ids that start with it. */
const LOWEST = '00000000-0000-0000-0000-000000000000';
const HIGHEST = 'ffffffff-ffff-ffff-ffff-ffffffffffff';

/**
 * The SELECT of the ids (ascending, at most `limit`) of the runs in schema `q` (quoted) whose id
 * starts with `prefix` — one that a UUID can start with, in lower case, as trace's checkRunIdPrefix
 * gives it: the ids from the prefix completed with zeros to the prefix completed with f's, a run a
 * prune hid left out.
 *
 * @internal
 */
export function runIdsByPrefixStatement(prefix: string, limit: number, q: string): Statement {
  const sql = `SELECT id FROM ${q}.runs WHERE id BETWEEN $1::uuid AND $2::uuid AND pruned_at IS NULL ORDER BY id LIMIT ${limit}`;
  return { sql, values: [prefix + LOWEST.slice(prefix.length), prefix + HIGHEST.slice(prefix.length)] };
}
