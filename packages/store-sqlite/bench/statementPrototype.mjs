// The prototype of better-sqlite3's Statement, which the benchmarks wrap to see every statement the
// store runs (its SQL as `this.source`).
import Database from 'better-sqlite3';

/** better-sqlite3's `Statement.prototype` (`run`, `get`, `all`, `iterate`, …). */
export function statementPrototype() {
  const probe = new Database(':memory:');
  try {
    return Object.getPrototypeOf(probe.prepare('SELECT 1'));
  } finally {
    probe.close();
  }
}
