// Schema version 14 (issue 38 item 7): the runs list's title search through an index. Without it
// each search read every run's title twice (the page and its totals): at 100 000 runs, with 8
// clients searching, the servers page went from 93 to 2 436 ms.
import type { PoolClient } from 'pg';

/** The letters A to Z and their lower case: `translate` lowers them and nothing else (as SQLite's lower() and the in-memory store). */
export const ASCII_LOWER = `'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'`;

/** The title as `titleContains` compares it (A to Z lowered): the expression runs_title_trgm indexes. */
export const SEARCHED_TITLE = `translate(title, ${ASCII_LOWER})`;

/** The schema pg_trgm is installed in, or null when it is not. */
async function trigramSchema(client: PoolClient): Promise<string | null> {
  const found = await client.query<{ schema: string }>(
    "SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'",
  );
  return found.rows[0]?.schema ?? null;
}

/**
 * Version 14: `runs_title_trgm`, a GIN index of the searched title with pg_trgm's `gin_trgm_ops`,
 * which a `LIKE '%text%'` of three characters or more reads instead of every title (existing
 * titles indexed as it is built).
 *
 * @remarks
 * pg_trgm ships with PostgreSQL (contrib) and is a trusted extension: any role that may create in
 * the database installs it. It is installed once per database, in `public` (never in a store's own
 * schema, whose drop would take it and every other store's index with it); an installed one is
 * used wherever it is. Where it cannot be installed (not shipped, no right), the migration leaves
 * the index out: title search works the same, reading every title (docs/storage.md: adding the
 * index later).
 * Another store's migration installing it at the same moment is waited for by a second try.
 *
 * @internal
 */
export async function addTitleSearchIndex(client: PoolClient): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await client.query('SAVEPOINT title_search');
    try {
      let schema = await trigramSchema(client);
      if (schema === null) {
        await client.query('CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public');
        schema = 'public';
      }
      const opclass = `"${schema.replaceAll('"', '""')}".gin_trgm_ops`;
      await client.query(`CREATE INDEX IF NOT EXISTS runs_title_trgm ON runs USING gin (${SEARCHED_TITLE} ${opclass})`);
      await client.query('RELEASE SAVEPOINT title_search');
      return;
    } catch {
      await client.query('ROLLBACK TO SAVEPOINT title_search');
      if (attempt < 2) continue;
      // pg_trgm unavailable: docs/storage.md says how to add the index later
      return;
    }
  }
}
