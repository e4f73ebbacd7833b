import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { startHealthServer } from './health-server';

/**
 * One GET over a keep-alive agent: the status, the body, the Connection header and whether the request went out
 * on a connection the agent had kept from an earlier request.
 */
function get(port: number, path: string, agent: http.Agent) {
  return new Promise<{ status: number; body: string; connection: string | undefined; reused: boolean }>(
    (resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port, path, agent }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body, connection: res.headers.connection, reused: req.reusedSocket }),
        );
      });
      req.on('error', reject);
    },
  );
}

describe('health server', () => {
  let server: http.Server;
  let port: number;
  const agent = new http.Agent({ keepAlive: true });
  let ready = true;

  beforeAll(async () => {
    const registry = new Registry();
    registry.setDefaultLabels({ service: 'test' });
    server = await startHealthServer({
      host: '127.0.0.1',
      port: 0,
      registry,
      checks: { db: () => Promise.resolve({ ok: ready, detail: ready ? 'ok' : 'down' }) },
    });
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    agent.destroy();
    await new Promise((r) => server.close(r));
  });

  it('answers liveness, readiness and metrics', async () => {
    expect(await get(port, '/healthz', agent)).toMatchObject({ status: 200, body: '{"status":"ok"}' });
    ready = false;
    const notReady = await get(port, '/readyz', agent);
    expect(notReady.status).toBe(503);
    expect(JSON.parse(notReady.body)).toEqual({ status: 'not_ready', checks: { db: { ok: false, detail: 'down' } } });
    ready = true;
    expect((await get(port, '/readyz', agent)).status).toBe(200);
    expect((await get(port, '/metrics', agent)).status).toBe(200);
    expect((await get(port, '/nope', agent)).status).toBe(404);
  });

  // A scraper that keeps the connection can be reset when the daemon's event loop resumes after a long stop
  // (the comment on startHealthServer): every answer closes its connection instead, even to a keep-alive client.
  it.each(['/healthz', '/readyz', '/metrics', '/nope'])('closes the connection after %s', async (path) => {
    const res = await get(port, path, agent);
    expect(res.connection).toBe('close');
    // A kept connection would carry the next request.
    expect((await get(port, path, agent)).reused).toBe(false);
  });
});
