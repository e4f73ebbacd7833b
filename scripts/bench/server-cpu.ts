/**
 * CPU time of the local servers the bench started (PostgreSQL, nats-server), read from `/proc`, so that a phase's
 * per-event budget covers every process on the path without querying the database it measures (docs/operations.md,
 * Performance, "The per-event CPU budget"). Linux only; elsewhere, and for servers given by URL, the reading is
 * null.
 */
import fs from 'node:fs';
import path from 'node:path';

/** `/proc` reports times in USER_HZ ticks, which Linux fixes at 100 per second for user space. */
const TICKS_PER_SECOND = 100;

export interface ProcStat {
  pid: number;
  ppid: number;
  /** utime + stime: the process's own CPU, in ticks. */
  ownTicks: number;
  /** cutime + cstime: the CPU of its children that exited and were waited for, in ticks. */
  reapedTicks: number;
}

/**
 * Parses a line of `/proc/<pid>/stat`. The command name (field 2) is in parentheses and may itself hold spaces
 * and parentheses, so the fields are counted from the last `)`.
 */
export function parseProcStat(line: string): ProcStat | null {
  const close = line.lastIndexOf(')');
  if (close < 0) return null;
  const pid = Number(line.slice(0, line.indexOf(' ')));
  // After the name: state (3), ppid (4), ..., utime (14), stime (15), cutime (16), cstime (17).
  const f = line
    .slice(close + 2)
    .trim()
    .split(' ');
  const at = (field: number): number => Number(f[field - 3]);
  const [ppid, utime, stime, cutime, cstime] = [at(4), at(14), at(15), at(16), at(17)];
  if (![pid, ppid, utime, stime, cutime, cstime].every(Number.isFinite)) return null;
  return { pid, ppid, ownTicks: utime + stime, reapedTicks: cutime + cstime };
}

/** Every process's line of `/proc/<pid>/stat`, parsed. */
export function readProcStats(): ProcStat[] {
  const out: ProcStat[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const s = parseProcStat(fs.readFileSync(`/proc/${name}/stat`, 'utf8'));
      if (s) out.push(s);
    } catch {
      // The process exited between the listing and the read: its time is now in its parent's reaped ticks.
    }
  }
  return out;
}

/**
 * CPU seconds of the process `root` and of all its descendants, live or exited and reaped: the difference of two
 * readings is what the tree used between them, as a PostgreSQL backend's time moves into the postmaster's reaped
 * ticks when it exits.
 */
export function processTreeCpuSeconds(root: number, stats: readonly ProcStat[] = readProcStats()): number | null {
  const byParent = new Map<number, ProcStat[]>();
  let rootStat: ProcStat | undefined;
  for (const s of stats) {
    if (s.pid === root) rootStat = s;
    const siblings = byParent.get(s.ppid);
    if (siblings) siblings.push(s);
    else byParent.set(s.ppid, [s]);
  }
  if (!rootStat) return null;
  let ticks = 0;
  const pending = [rootStat];
  while (pending.length > 0) {
    const s = pending.pop()!;
    ticks += s.ownTicks + s.reapedTicks;
    pending.push(...(byParent.get(s.pid) ?? []));
  }
  return ticks / TICKS_PER_SECOND;
}

/** The pid in the first line of a pid file (PostgreSQL's `postmaster.pid`, nats-server's `-P` file), or null. */
function pidFromFile(file: string): number | null {
  try {
    const pid = Number(fs.readFileSync(file, 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

export interface ServerCpu {
  postgres: number | null;
  nats: number | null;
}

/**
 * Reads the CPU seconds of the servers `infra/local` started under `dataDir` (null when `dataDir` is null: the
 * bench was given its servers).
 */
export function serverCpuSeconds(dataDir: string | null): ServerCpu {
  if (!dataDir || process.platform !== 'linux') return { postgres: null, nats: null };
  const stats = readProcStats();
  const tree = (pidFile: string): number | null => {
    const pid = pidFromFile(pidFile);
    return pid === null ? null : processTreeCpuSeconds(pid, stats);
  };
  return {
    postgres: tree(path.join(dataDir, 'pg', 'cluster', 'postmaster.pid')),
    nats: tree(path.join(dataDir, 'nats', 'nats.pid')),
  };
}

/** Microseconds per event of `seconds` of CPU spread over `events`, as every bench reports it. */
export const usPerEvent = (seconds: number, events: number): number => Math.round((seconds * 1e6) / events);

/** Microseconds of each server's CPU per event between two readings (null where either reading is). */
export function serverCpuPerEvent(before: ServerCpu, after: ServerCpu, events: number): ServerCpu {
  const per = (a: number | null, b: number | null): number | null =>
    a === null || b === null || events <= 0 ? null : usPerEvent(b - a, events);
  return { postgres: per(before.postgres, after.postgres), nats: per(before.nats, after.nats) };
}

/** CPU seconds of a process's main thread and of its other threads, from `/proc`. */
export interface ThreadCpu {
  main: number;
  /**
   * Every other thread, live or exited: in a Node process V8's workers (the collector's parallel and concurrent
   * work, background compilation) and libuv's pool.
   */
  others: number;
}

/** Reads the CPU seconds of process `pid`'s threads; null off Linux or once the process is gone. */
export function threadCpuSeconds(pid: number): ThreadCpu | null {
  if (process.platform !== 'linux') return null;
  try {
    // The process's own ticks count every thread it ran, exited ones included; its main thread's task has its pid.
    const all = parseProcStat(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
    const main = parseProcStat(fs.readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8'));
    if (!all || !main) return null;
    return { main: main.ownTicks / TICKS_PER_SECOND, others: (all.ownTicks - main.ownTicks) / TICKS_PER_SECOND };
  } catch {
    return null;
  }
}
