import Database from 'better-sqlite3';
const db = new Database(process.argv[2], { readonly: true });
const sums = Array.from({ length: 80 }, (_, k) => `sum(h${k})`).join(', ');
const a = db.prepare(`SELECT sum(ok), ${sums} FROM health_rollup WHERE level = ? AND bucket_start >= ? AND bucket_start < ?`).raw();
const b = db.prepare(`SELECT server, sum(ok), ${sums} FROM health_rollup WHERE level = ? AND bucket_start >= ? AND bucket_start < ? GROUP BY server`).raw();
const c = db.prepare(`SELECT server, sum(ok), ${sums} FROM health_rollup WHERE level = ? AND server = ? AND bucket_start >= ? AND bucket_start < ?`).raw();
for (const [name, f] of [['no group', () => a.all(0, 0, 9e15)], ['group by', () => b.all(0, 0, 9e15)], ['per server', () => { for (let s = 0; s < 20; s++) c.all(0, `server-${String(s).padStart(2,'0')}`, 0, 9e15); }]]) {
  const c0 = process.cpuUsage(); for (let i = 0; i < 5; i++) f(); const cpu = process.cpuUsage(c0);
  console.log(name, ((cpu.user + cpu.system) / 5000).toFixed(2), 'ms cpu');
}
console.log(db.prepare('explain query plan SELECT server, sum(ok) FROM health_rollup WHERE level = ? AND server = ? AND bucket_start >= ? AND bucket_start < ?').all(0,'x',0,1).map(r=>r.detail));
