// Schema version 19 (issue 38 item 7): the runs list's title search through an index. Without it
// each search read every run's title twice (the page and its totals): with 8 clients searching
// 60 000 runs, the runs list went from 10 to 636 ms.
import type Database from 'better-sqlite3';

/**
 * The shortest `titleContains` (in characters) that the title index finds: a trigram index holds
 * runs of three characters, so a shorter text matches no row of it and is searched without it.
 *
 * @internal
 */
export const TITLE_INDEX_MIN_LENGTH = 3;

/**
 * The most runs a title search reads through the index: a text more titles may hold is looked for
 * newest first, without it (SqliteRunSearch.titleIndexed).
 *
 * @internal
 */
export const TITLE_INDEX_MOST_MATCHES = 1000;

/**
 * `runs_title`: an FTS5 index of the titles with the trigram tokenizer (substrings of three
 * characters and more, folding case), over `runs` by `run_no` (a column, unlike the rowid, that
 * VACUUM keeps), kept by triggers on insert, delete and a change of title (a run's other columns
 * change without touching it); existing titles indexed. Written to run again over its own result,
 * like version 15.
 *
 * @internal
 */
export function addTitleSearch(db: Database.Database): void {
  db.exec(`
CREATE VIRTUAL TABLE IF NOT EXISTS runs_title USING fts5(title, content='runs', content_rowid='run_no', tokenize='trigram case_sensitive 0');
CREATE TRIGGER IF NOT EXISTS runs_title_insert AFTER INSERT ON runs WHEN NEW.title IS NOT NULL AND NEW.run_no IS NOT NULL BEGIN
  INSERT INTO runs_title (rowid, title) VALUES (NEW.run_no, NEW.title);
END;
CREATE TRIGGER IF NOT EXISTS runs_title_delete AFTER DELETE ON runs WHEN OLD.title IS NOT NULL AND OLD.run_no IS NOT NULL BEGIN
  INSERT INTO runs_title (runs_title, rowid, title) VALUES ('delete', OLD.run_no, OLD.title);
END;
CREATE TRIGGER IF NOT EXISTS runs_title_update AFTER UPDATE OF title, run_no ON runs BEGIN
  INSERT INTO runs_title (runs_title, rowid, title) SELECT 'delete', OLD.run_no, OLD.title WHERE OLD.title IS NOT NULL AND OLD.run_no IS NOT NULL;
  INSERT INTO runs_title (rowid, title) SELECT NEW.run_no, NEW.title WHERE NEW.title IS NOT NULL AND NEW.run_no IS NOT NULL;
END;
INSERT INTO runs_title (runs_title) VALUES ('delete-all');
INSERT INTO runs_title (rowid, title) SELECT run_no, title FROM runs WHERE title IS NOT NULL AND run_no IS NOT NULL;`);
}

/**
 * The FTS5 query of runs whose title holds `text` (one phrase: every character literal, a double
 * quote doubled), for a text of at least {@link TITLE_INDEX_MIN_LENGTH} characters.
 *
 * @internal
 */
export function titlePhrase(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}
