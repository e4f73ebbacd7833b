import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  parseProcStat,
  processTreeCpuSeconds,
  readProcStats,
  serverCpuPerEvent,
  serverCpuSeconds,
  threadCpuSeconds,
} from './server-cpu';

describe('the local servers’ CPU, read from /proc', () => {
  it('parses a stat line whose command name holds spaces and parentheses', () => {
    const rest = Array.from({ length: 20 }, (_, i) => i + 4); // fields 4 (ppid) to 23
    rest[14 - 4] = 150; // utime
    rest[15 - 4] = 50; // stime
    rest[16 - 4] = 7; // cutime
    rest[17 - 4] = 3; // cstime
    const line = `4242 (postgres: a (b) c) S ${rest.join(' ')}\n`;
    expect(parseProcStat(line)).toEqual({ pid: 4242, ppid: 4, ownTicks: 200, reapedTicks: 10 });
    expect(parseProcStat('garbage')).toBeNull();
  });

  it('sums a tree’s own and reaped time over its descendants only', () => {
    const stats = [
      { pid: 1, ppid: 0, ownTicks: 1000, reapedTicks: 0 },
      { pid: 10, ppid: 1, ownTicks: 50, reapedTicks: 20 },
      { pid: 11, ppid: 10, ownTicks: 30, reapedTicks: 0 },
      { pid: 12, ppid: 10, ownTicks: 5, reapedTicks: 0 },
      { pid: 20, ppid: 1, ownTicks: 400, reapedTicks: 0 },
    ];
    expect(processTreeCpuSeconds(10, stats)).toBeCloseTo(1.05);
    expect(processTreeCpuSeconds(99, stats)).toBeNull();
  });

  it('counts what a child burned once it exited and its parent reaped it', async () => {
    // A shell whose child burns 400 ms of CPU (by its own clock, so a busy machine only makes it slower), exits and
    // is waited for; the shell then waits for its stdin.
    const burn = 'while (process.cpuUsage().user + process.cpuUsage().system < 400000) {}';
    const shell = spawn('sh', ['-c', `"${process.execPath}" -e '${burn}'; read _`], {
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    const own = () => parseProcStat(fs.readFileSync(`/proc/${shell.pid}/stat`, 'utf8'))!;
    const hasChild = () => readProcStats().some((s) => s.ppid === shell.pid);
    try {
      // Wait on the condition (the child started, exited and was reaped into the shell's counters), not a fixed time.
      for (let i = 0; i < 1200 && (own().reapedTicks === 0 || hasChild()); i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      // /proc counts in ticks of 10 ms, sampled: allow a tick or two less than the child measured itself.
      expect(own().reapedTicks).toBeGreaterThanOrEqual(35);
      const total = processTreeCpuSeconds(shell.pid!)!;
      expect(total).toBeGreaterThanOrEqual(0.35);
      expect(total).toBeCloseTo((own().ownTicks + own().reapedTicks) / 100, 1);
    } finally {
      shell.stdin.end();
      shell.kill();
    }
  });

  it('splits a process’s CPU between its main thread and its other threads', async () => {
    // The main thread burns 300 ms of the process's CPU, then waits while a worker thread burns 300 ms more (each
    // by the process's own clock, so a busy machine only makes them slower), then says so and waits for its stdin.
    const script = `
      const { Worker } = require('node:worker_threads');
      const used = () => { const u = process.cpuUsage(); return u.user + u.system; };
      const burn = (us) => { const end = used() + us; while (used() < end) {} };
      burn(300000);
      const worker = new Worker('const u = () => { const c = process.cpuUsage(); return c.user + c.system; };' +
        'const end = u() + 300000; while (u() < end) {}', { eval: true });
      worker.on('exit', () => { process.stdout.write('done'); process.stdin.resume(); });
    `;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'ignore'] });
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', () => resolve());
        child.on('exit', (code) => reject(new Error(`the child exited (${code}) before it was done`)));
      });
      const threads = threadCpuSeconds(child.pid!)!;
      // /proc counts in ticks of 10 ms, and each burn counts V8's helper threads too (they compile and collect beside
      // it), while each side's start adds to it: some margin either way.
      expect(threads.main).toBeGreaterThanOrEqual(0.25);
      expect(threads.others).toBeGreaterThanOrEqual(0.25);
      expect(threads.main + threads.others).toBeCloseTo(
        parseProcStat(fs.readFileSync(`/proc/${child.pid}/stat`, 'utf8'))!.ownTicks / 100,
        5,
      );
      expect(threadCpuSeconds(2 ** 22 + 1)).toBeNull();
    } finally {
      child.stdin.end();
      child.kill();
    }
  });

  it('reads the servers from their pid files under the data directory', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'server-cpu-'));
    try {
      fs.mkdirSync(path.join(dir, 'pg', 'cluster'), { recursive: true });
      fs.mkdirSync(path.join(dir, 'nats'));
      // PostgreSQL's postmaster.pid has more lines after the pid; nats-server's file holds the pid alone.
      fs.writeFileSync(path.join(dir, 'pg', 'cluster', 'postmaster.pid'), `${process.pid}\n/data\n1700000000\n`);
      const cpu = serverCpuSeconds(dir);
      expect(cpu.postgres).toBeGreaterThan(0);
      expect(cpu.nats).toBeNull();
      expect(serverCpuSeconds(null)).toEqual({ postgres: null, nats: null });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives microseconds per event, null where a reading is missing', () => {
    expect(serverCpuPerEvent({ postgres: 10, nats: null }, { postgres: 12.5, nats: 3 }, 25_000)).toEqual({
      postgres: 100,
      nats: null,
    });
  });
});
