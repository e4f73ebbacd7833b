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

export function startHealthServer(opts: HealthServerOptions): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const send = (status: number, body: string, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
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
