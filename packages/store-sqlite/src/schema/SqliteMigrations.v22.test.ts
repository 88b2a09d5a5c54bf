// Migration 22: the per-tool rollup. A file of version 21 has none and no tool on its pending calls:
// after the migration every stored call is in it exactly once (the pending ones moved into the
// health rollup first, not counted twice), as the reference store counts them, and health is
// unchanged.
import { InMemoryRunStore, type ToolCallTotals } from '@runledger/trace';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SQLITE_SCHEMA_VERSION } from './SqliteMigrations.js';
import { SqliteRunStore } from '../SqliteRunStore.js';
import { setExactHealthMaxCalls } from '../SqliteRunStoreInternals.js';
import { tempFolder, toolStep } from '../testing/tempDatabase.js';

const T = Date.UTC(2026, 0, 1);
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

let folder: ReturnType<typeof tempFolder>;
beforeEach(() => {
  folder = tempFolder();
});
afterEach(() => folder.remove());

const withoutMs = (totals: readonly ToolCallTotals[]) => totals.map((t) => ({ ...t, answeredMs: 0 }));

/** A store and the reference given the same calls over 40 days: every outcome, some causes, four tools of three servers. */
async function seed(path: string): Promise<InMemoryRunStore> {
  const store = await SqliteRunStore.open({ path });
  const reference = InMemoryRunStore.create();
  const run = await store.createRun({ configuration: 'c', createdAt: T });
  await reference.createRun({ id: run.id, configuration: 'c', createdAt: T });
  const outcomes = ['ok', 'ok', 'failed', 'cancelled'] as const;
  const causes = [undefined, 'server_error', 'mcp_timeout', 'invalid_arguments'];
  for (let i = 0; i < 600; i++) {
    const outcome = outcomes[i % 4]!;
    const step = toolStep(
      `s${i % 3}`,
      outcome,
      (i * 977) % 320_000,
      T + ((i * 7_919_311) % (40 * DAY)),
      0,
      outcome === 'failed' ? causes[(i >> 2) % 4] : undefined,
    );
    step.payload['toolName'] = `t${i % 4}`;
    if (i % 50 === 0) delete step.payload['toolName'];
    await store.appendStep(run.id, step);
    await reference.appendStep(run.id, step);
  }
  await store.close();
  return reference;
}

/** Lays the file out as version 21 wrote it: no tool rollup, no tool on pending calls; `pending`: every call pending (none in the health rollup yet). */
function layOutAsVersion21(path: string, pending: boolean): void {
  const db = new Database(path);
  db.exec(
    'DROP TABLE tool_rollup; DROP TABLE tool_causes; ALTER TABLE health_pending DROP COLUMN tool; DELETE FROM schema_version WHERE version >= 22;',
  );
  if (pending) {
    db.exec(`DELETE FROM health_rollup; DELETE FROM health_causes;
INSERT INTO health_pending (server, outcome, duration_ms, created_at, cause)
  SELECT call_server, call_outcome, duration_ms, created_at, call_cause FROM steps WHERE call_server IS NOT NULL;`);
  }
  db.close();
}

describe('migration 22', () => {
  for (const pending of [false, true]) {
    it(`fills the tool rollup from the steps of a version-21 file (${pending ? 'every call pending' : 'every call rolled up'}), each call once`, async () => {
      expect(SQLITE_SCHEMA_VERSION).toBeGreaterThanOrEqual(22);
      const path = folder.file();
      const reference = await seed(path);
      const before = await SqliteRunStore.open({ path });
      // health from the rollup (and the calls pending for it), not from the steps
      setExactHealthMaxCalls(before, 0);
      const health = await before.serverHealth();
      await before.close();
      layOutAsVersion21(path, pending);

      const migrated = await SqliteRunStore.open({ path });
      setExactHealthMaxCalls(migrated, 0);
      const check = new Database(path, { readonly: true });
      expect(check.prepare('SELECT count(*) FROM health_pending').pluck().get()).toBe(0);
      expect(check.prepare('SELECT max(version) FROM schema_version').pluck().get()).toBe(SQLITE_SCHEMA_VERSION);
      check.close();
      expect(await migrated.serverHealth()).toEqual(health);
      for (const query of [{}, { since: T + 3 * DAY + 17 }, { since: T + MINUTE - 1, until: T + 33 * DAY + 5 }]) {
        const got = await migrated.toolCallTotals(query);
        const want = await reference.toolCallTotals(query);
        expect(withoutMs(got)).toEqual(withoutMs(want));
        for (const [i, t] of got.entries()) expect(t.answeredMs).toBeCloseTo(want[i]!.answeredMs, 6);
      }
      await migrated.close();
    });
  }
});
