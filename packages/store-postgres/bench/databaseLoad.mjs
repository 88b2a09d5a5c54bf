// What PostgreSQL on this machine and the machine itself do while a benchmark's window runs, seen
// from another process: CPU of every postgres process and of given processes, and the time they
// waited runnable for a core (/proc/<pid>/task/*/schedstat; the kernel's share from
// /proc/<pid>/stat), machine idle (/proc/stat), the wait events of a benchmark's backends
// (pg_stat_activity), WAL (pg_stat_wal).
// Linux only. Used by writers.bench.mjs.
import { readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

export const SAMPLE_MS = 10;
const TICK = 100; // USER_HZ of /proc/<pid>/stat on Linux
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** CPU seconds (utime + stime) and command name of a process, or null when it is gone. */
function procStat(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return {
      comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
      cpu: (Number(f[11]) + Number(f[12])) / TICK,
      sys: Number(f[12]) / TICK,
    };
  } catch {
    return null;
  }
}

/** Seconds the threads of a process ran and waited runnable for a core (schedstat: exact, not sampled at ticks). */
function schedstat(pid) {
  const time = { run: 0, wait: 0 };
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const [run, wait] = readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ').map(Number);
      time.run += run / 1e9;
      time.wait += wait / 1e9;
    }
  } catch {
    // gone, or no schedstat
  }
  return time;
}

/** CPU of every process (exact for postgres's, with run-queue wait and kernel share), the writers', the machine's CPU lines, now. */
export function cpuSnapshot(writerPids) {
  const server = new Map();
  const rest = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = procStat(name);
    if (stat?.comm === 'postgres') {
      const { run, wait } = schedstat(name);
      server.set(Number(name), { cpu: run, wait, ticks: stat.cpu, sys: stat.sys });
    } else if (stat !== null) rest.set(Number(name), stat);
  }
  const writers = writerPids.map((pid) => {
    const { run, wait } = schedstat(pid);
    return { cpu: run, wait };
  });
  const [user, nice, system, idle, iowait, irq, softirq, steal] = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const machine = { total: user + nice + system + idle + iowait + irq + softirq + steal, idle: idle + iowait, irq: irq + softirq, steal };
  return { at: performance.now(), server, rest, writers, machine, main: process.cpuUsage() };
}

/**
 * What the window used, in cores (CPU-seconds per second): the bench's backends, PostgreSQL's own
 * processes (WAL writer, checkpointer, …), the writers, this process and its sampling backends,
 * and the rest of the machine; plus the time the bench's processes waited for a core.
 */
export function cpuUse(a, b, pids) {
  const wall = (b.at - a.at) / 1000;
  const use = { bench: 0, background: 0, sampler: 0, otherClients: 0, wait: 0, ticks: 0, sys: 0 };
  for (const [pid, t] of b.server) {
    const before = a.server.get(pid) ?? { cpu: 0, wait: 0, ticks: 0, sys: 0 };
    const cls = pids.bench.has(pid) ? 'bench' : pids.sampler.has(pid) ? 'sampler' : pids.clients.has(pid) ? 'otherClients' : 'background';
    use[cls] += t.cpu - before.cpu;
    if (cls === 'bench' || cls === 'background') {
      use.wait += t.wait - before.wait;
      use.ticks += t.ticks - before.ticks;
      use.sys += t.sys - before.sys;
    }
  }
  const writers = b.writers.reduce((sum, t, k) => sum + t.cpu - a.writers[k].cpu, 0);
  use.wait += b.writers.reduce((sum, t, k) => sum + t.wait - a.writers[k].wait, 0);
  const main = (b.main.user + b.main.system - a.main.user - a.main.system) / 1e6;
  const total = b.machine.total - a.machine.total;
  const idle = (b.machine.idle - a.machine.idle) / total;
  const server = use.bench + use.background;
  const sampler = use.sampler + main;
  const busy = (total - (b.machine.idle - a.machine.idle)) / TICK; // busy CPU-seconds of the machine
  // the rest of the machine by command (kernel threads such as jbd2 or kworker included), and interrupts
  const byComm = new Map([
    ['irq', (b.machine.irq - a.machine.irq) / TICK],
    ['steal', (b.machine.steal - a.machine.steal) / TICK],
  ]);
  const skip = new Set([process.pid, ...pids.writers]);
  for (const [pid, t] of b.rest) {
    if (skip.has(pid)) continue;
    const comm = t.comm.replace(/[/:].*$/, '');
    byComm.set(comm, (byComm.get(comm) ?? 0) + t.cpu - (a.rest.get(pid)?.cpu ?? 0));
  }
  return {
    wall,
    server: server / wall,
    writers: writers / wall,
    sampler: sampler / wall,
    others: Math.max(0, busy - server - writers - sampler) / wall,
    otherBy: Object.fromEntries([...byComm].map(([comm, cpu]) => [comm, cpu / wall])),
    idle,
    runQueue: use.wait / wall,
    serverCpu: server,
    serverSys: use.sys / use.ticks,
    writerCpu: writers,
  };
}

/** The wait events of the backends named `applicationName`, sampled every SAMPLE_MS until the returned function is called. */
export function sampleWaits(client, applicationName) {
  const counts = { lock: 0, wal: 0, cpu: 0, client: 0, other: 0 };
  const events = new Map();
  let samples = 0;
  let done = false;
  const loop = (async () => {
    while (!done) {
      const start = performance.now();
      const { rows } = await client.query({
        name: 'bench_waits',
        text: 'SELECT state, wait_event_type, wait_event FROM pg_stat_activity WHERE application_name = $1',
        values: [applicationName],
      });
      samples++;
      for (const { state, wait_event_type: type, wait_event: event } of rows) {
        const cls =
          state !== 'active' || type === 'Client'
            ? 'client'
            : type === null
              ? 'cpu'
              : type === 'Lock'
                ? 'lock'
                : (type === 'LWLock' && event === 'WALWrite') || (type === 'IO' && (event === 'WALSync' || event === 'WALWrite'))
                  ? 'wal'
                  : 'other';
        counts[cls]++;
        if (cls === 'lock' || cls === 'other') events.set(`${type}:${event}`, (events.get(`${type}:${event}`) ?? 0) + 1);
      }
      await sleep(Math.max(0, SAMPLE_MS - (performance.now() - start)));
    }
  })();
  return async () => {
    done = true;
    await loop;
    const all = Object.values(counts).reduce((x, y) => x + y, 0) || 1;
    const share = Object.fromEntries(Object.entries(counts).map(([k, n]) => [k, n / all]));
    return { samples, share, events: Object.fromEntries([...events].map(([k, n]) => [k, n / all])) };
  };
}

export const walStats = async (admin) =>
  (
    await admin.query(
      'SELECT wal_records::float8 AS records, wal_bytes::float8 AS bytes, wal_sync::float8 AS syncs, wal_sync_time AS sync_ms FROM pg_stat_wal',
    )
  ).rows[0];
