/**
 * `npm run bench -- startup`: each daemon started from TypeScript through tsx (development) and from the
 * operator's build (`npm run build`, what make run and production start), in turns: the time from spawning the
 * process to its first 200 from /readyz, and the resident memory of its process tree once ready (the node process
 * and, under tsx, its esbuild service), read from /proc. Nothing is asked of the database being measured.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { buildDaemons, DAEMON_ENTRIES } from '../build-daemons';
import { freePort } from '../../test/support/free-port';
import { inFreshEnv } from './bench-env';

const ROOT = path.join(__dirname, '..', '..');

export interface StartupBenchOptions {
  rounds: number;
}

const SOURCES: Record<keyof typeof DAEMON_ENTRIES, string> = {
  pipeline: 'pipeline/src/app/main.ts',
  'query-api': 'query-api/src/app/server.ts',
  'webhook-worker': 'webhook-worker/src/app/main.ts',
};

/** Resident memory in bytes of `pid` and its descendants. */
export function treeRssBytes(pid: number): number {
  const children = new Map<number, number[]>();
  const rss = new Map<number, number>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const status = fs.readFileSync(`/proc/${name}/status`, 'utf8');
      const ppid = Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]);
      const kb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0);
      rss.set(Number(name), kb * 1024);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {
      // gone between the listing and the read
    }
  }
  let total = 0;
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop()!;
    total += rss.get(p) ?? 0;
    stack.push(...(children.get(p) ?? []));
  }
  return total;
}

async function readyAfter(url: string, child: ChildProcess, started: number): Promise<number> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${url}: the daemon exited with ${child.exitCode}`);
    const ok = await fetch(url).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return performance.now() - started;
    if (performance.now() - started > 60_000) throw new Error(`${url}: not ready within 60 s`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function measure(
  daemon: keyof typeof DAEMON_ENTRIES,
  variant: 'tsx' | 'built',
  env: Record<string, string>,
): Promise<{ ready_ms: number; rss_mb: number }> {
  const port = await freePort();
  const args =
    variant === 'built'
      ? ['--enable-source-maps', path.join(ROOT, DAEMON_ENTRIES[daemon])]
      : ['--import', 'tsx', path.join(ROOT, SOURCES[daemon])];
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: {
      ...process.env,
      ...env,
      PORT: String(port),
      PIPELINE_HEALTH_PORT: String(port),
      WEBHOOK_HEALTH_PORT: String(port),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((r) => child.once('exit', r));
  try {
    const readyMs = await readyAfter(`http://127.0.0.1:${port}/readyz`, child, started);
    return { ready_ms: Math.round(readyMs), rss_mb: Math.round(treeRssBytes(child.pid!) / 1e5) / 10 };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function benchStartup(o: StartupBenchOptions): Promise<void> {
  await buildDaemons();
  await inFreshEnv({ withPipeline: false }, async (env) => {
    const common = {
      NATS_URL: env.natsUrl,
      DATABASE_URL: env.databaseUrl,
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
    };
    const out: Record<string, Record<string, { ready_ms: number[]; rss_mb: number[] }>> = {};
    for (let round = 0; round < o.rounds; round++) {
      for (const daemon of Object.keys(DAEMON_ENTRIES) as Array<keyof typeof DAEMON_ENTRIES>) {
        // Alternated, so that a slower moment of the machine does not fall on one variant only.
        const order = round % 2 === 0 ? (['tsx', 'built'] as const) : (['built', 'tsx'] as const);
        for (const variant of order) {
          const m = await measure(daemon, variant, common);
          const slot = ((out[daemon] ??= {})[variant] ??= { ready_ms: [], rss_mb: [] });
          slot.ready_ms.push(m.ready_ms);
          slot.rss_mb.push(m.rss_mb);
        }
      }
    }
    const summary = Object.fromEntries(
      Object.entries(out).map(([daemon, variants]) => [
        daemon,
        Object.fromEntries(
          Object.entries(variants).map(([v, m]) => [
            v,
            { ready_ms_median: median(m.ready_ms), rss_mb_median: median(m.rss_mb), ...m },
          ]),
        ),
      ]),
    );
    console.log(JSON.stringify({ bench: 'startup', rounds: o.rounds, daemons: summary }, null, 2));
  });
}
