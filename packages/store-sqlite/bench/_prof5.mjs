import Database from 'better-sqlite3';
const db = new Database(process.argv[2], { readonly: true });
const sums = Array.from({ length: 80 }, (_, k) => `sum(h${k})`).join(', ');
const q = db.prepare(`SELECT server, sum(ok), sum(failed), sum(cancelled), max(last_failure_at), min(min_ms), max(max_ms), ${sums} FROM health_rollup WHERE level = ? AND bucket_start >= ? AND bucket_start < ? GROUP BY server`).raw();
const q2 = db.prepare(`SELECT server, sum(ok), sum(failed), sum(cancelled), max(last_failure_at), min(min_ms), max(max_ms) FROM health_rollup WHERE level = ? AND bucket_start >= ? AND bucket_start < ? GROUP BY server`).raw();
const q3 = db.prepare(`SELECT * FROM health_rollup WHERE level = ? AND bucket_start >= ? AND bucket_start < ?`).raw();
const q4 = db.prepare(`SELECT count(*) FROM health_rollup WHERE level = ? AND bucket_start >= ? AND bucket_start < ?`).pluck();
const lo = 0, hi = 9e15;
for (const [name, st] of [['full sums', q], ['counts only', q2], ['raw rows', q3], ['count', q4]]) {
  for (const level of [0]) {
    const c0 = process.cpuUsage(); const t = performance.now();
    for (let i = 0; i < 5; i++) st.all(level, lo, hi);
    const cpu = process.cpuUsage(c0);
    console.log(name, 'level', level, 'rows', q4.get(level, lo, hi), ((performance.now() - t) / 5).toFixed(2), 'ms wall', ((cpu.user + cpu.system) / 5000).toFixed(2), 'ms cpu');
  }
}
