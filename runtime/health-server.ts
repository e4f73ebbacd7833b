/**
 * A tiny node:http server for the daemon: GET /healthz (liveness, no
 * dependency calls), GET /readyz (every readiness check, 200 or 503 with per-check status) and
 * GET /metrics (Prometheus text).
 */
import http from 'node:http';
import type { Registry } from 'prom-client';
import type { ReadinessCheck } from './lifecycle';

export interface HealthServerOptions {
  host: string;
  port: number;
  registry: Registry;
  checks: Record<string, ReadinessCheck>;
}

async function runChecks(checks: Record<string, ReadinessCheck>, timeoutMs: number) {
  const entries = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      try {
        const timeout = new Promise<{ ok: boolean; detail: string }>((resolve) =>
          setTimeout(() => resolve({ ok: false, detail: `timed out after ${timeoutMs} ms` }), timeoutMs).unref(),
        );
        return [name, await Promise.race([check(), timeout])] as const;
      } catch (err) {
        return [name, { ok: false, detail: err instanceof Error ? err.message : String(err) }] as const;
      }
    }),
  );
  return { ok: entries.every(([, r]) => r.ok), checks: Object.fromEntries(entries) };
}

/**
 * Every answer closes its connection. After a daemon's event loop had stopped for seconds (a heap snapshot taken
 * mid-run), the pipeline bench's scrape of its metrics failed in four runs of four; where the cause was printed,
 * its kept-alive connection had been reset (ECONNRESET) while the daemon answered new connections. Closing every
 * connection, two of two went through. A scrape every few seconds does not need the connection kept
 * (docs/operations.md, Metrics).
 */
export function startHealthServer(opts: HealthServerOptions): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const send = (status: number, body: string, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', connection: 'close' });
      res.end(body);
    };
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET') return send(405, JSON.stringify({ error: 'method not allowed' }));
    if (path === '/healthz') return send(200, JSON.stringify({ status: 'ok' }));
    if (path === '/readyz') {
      void runChecks(opts.checks, 2000).then((r) =>
        send(r.ok ? 200 : 503, JSON.stringify({ status: r.ok ? 'ready' : 'not_ready', checks: r.checks })),
      );
      return;
    }
    if (path === '/metrics') {
      void opts.registry.metrics().then(
        (text) => send(200, text, opts.registry.contentType),
        (err: unknown) => send(500, JSON.stringify({ error: String(err) })),
      );
      return;
    }
    send(404, JSON.stringify({ error: 'not found' }));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve(server));
  });
}
