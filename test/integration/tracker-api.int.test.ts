/**
 * The API side of the store-side tracker: /t.js and its versioned path with their caching headers, and the
 * browser route /collect hardened for any store origin (CORS, text/plain and application/json, body and
 * batch size, per-key and per-IP rate limits answering 429 with Retry-After).
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { randomUUID } from 'node:crypto';
import express from 'express';
import request from 'supertest';
import { sampleEvent } from '../support/samples';
import type { Db } from '../../storage/db';
import { silentLogger } from '../../runtime/logger';
import type { RunningApi } from '../../query-api/src/app/api';
import { registerTrackerRoutes } from '../../query-api/src/app/tracker-asset';
import { TRACKER_DIST, type TrackerManifest } from '../../scripts/build-tracker';
import { createTestStore, startTestApi, testDb, type TestStore } from '../support/harness';

let db: Db;
let api: RunningApi;
let shop: TestStore;
let manifest: TrackerManifest;

const ORIGIN = 'https://shop.example';
const pageView = () =>
  sampleEvent('page_viewed', {
    id: `ev-${randomUUID()}`,
    clientId: `cl-${randomUUID()}`,
    timestamp: new Date().toISOString(),
  });

beforeAll(async () => {
  db = testDb();
  shop = await createTestStore(db);
  api = await startTestApi();
  manifest = JSON.parse(fs.readFileSync(path.join(TRACKER_DIST, 'manifest.json'), 'utf8')) as TrackerManifest;
});

afterAll(async () => {
  await api.stop();
  await db.close();
});

/** Reads a response body as a Buffer, whatever its content type (supertest parses only some). */
const raw = (req: request.Test): request.Test =>
  req.buffer(true).parse((res, done) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => done(null, Buffer.concat(chunks)));
  });

describe('GET /t.js', () => {
  it('serves the built snippet with a short cache, its version and an ETag', async () => {
    const res = await raw(request(api.url).get('/t.js').set('Accept-Encoding', 'identity'));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(res.headers['x-tracker-version']).toBe(manifest.version);
    expect(res.headers['etag']).toMatch(/^"[0-9a-f]{32}"$/);
    const body = (res.body as Buffer).toString('utf8');
    expect(body).toBe(fs.readFileSync(path.join(TRACKER_DIST, 't.js'), 'utf8'));
    expect(body.startsWith(`/*! Open Attribution tracker ${manifest.version} */`)).toBe(true);

    const again = await request(api.url).get('/t.js').set('If-None-Match', res.headers['etag']!);
    expect(again.status).toBe(304);
  });

  it('sends it gzipped when the client accepts gzip', async () => {
    // node:http rather than supertest, which would inflate the body.
    const res = await new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      http
        .get(`${api.url}/t.js`, { headers: { 'Accept-Encoding': 'gzip, deflate' } }, (r) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => resolve({ headers: r.headers, body: Buffer.concat(chunks) }));
        })
        .on('error', reject);
    });
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers['vary']).toContain('Accept-Encoding');
    expect(res.body.length).toBe(manifest.gzipBytes);
    expect(zlib.gunzipSync(res.body).length).toBe(manifest.bytes);
  });

  it('serves the same build under its version with an immutable cache; other versions are 404', async () => {
    const res = await raw(request(api.url).get(`/t/${manifest.version}.js`).set('Accept-Encoding', 'identity'));
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((res.body as Buffer).length).toBe(manifest.bytes);
    const old = await request(api.url).get('/t/0.0.1-0000000000.js');
    expect(old.status).toBe(404);
    expect(old.body).toEqual({ code: 404, message: 'path: no route for GET /t/0.0.1-0000000000.js', data: null });
  });
});

describe('without a build', () => {
  it('answers 503 naming the tracker', async () => {
    const app = express();
    registerTrackerRoutes(app, silentLogger(), path.join(TRACKER_DIST, 'no-such-build'));
    const res = await request(app).get('/t.js');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      code: 503,
      message: 'tracker: not built on this server (npm run tracker:build)',
      data: null,
    });
  });
});

describe('/collect for any store origin', () => {
  const collect = () => request(api.url).post(`/collect/${shop.credentials.ingest_key}`).set('Origin', ORIGIN);

  it('answers the preflight of an application/json post from any origin', async () => {
    const res = await request(api.url)
      .options(`/collect/${shop.credentials.ingest_key}`)
      .set('Origin', 'https://another-store.example')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'content-type');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-methods']).toContain('POST');
    expect(res.headers['access-control-allow-headers']!.toLowerCase()).toContain('content-type');
  });

  it('accepts text/plain and application/json bodies, and exposes Retry-After to scripts', async () => {
    const asText = await collect()
      .set('Content-Type', 'text/plain;charset=UTF-8')
      .send(JSON.stringify([pageView(), pageView()]));
    expect(asText.status).toBe(200);
    expect(asText.body.data.accepted).toBe(2);
    const asJson = await collect().set('Content-Type', 'application/json').send(JSON.stringify(pageView()));
    expect(asJson.status).toBe(200);
    expect(asJson.body.data.accepted).toBe(1);
    expect(asJson.headers['access-control-allow-origin']).toBe('*');
    expect(asJson.headers['access-control-expose-headers']).toBe('Retry-After');
  });

  it('refuses bodies over 1 MiB and batches over 500 events by name, with CORS headers on the error', async () => {
    const big = await collect()
      .set('Content-Type', 'text/plain')
      .send('x'.repeat(1024 * 1024 + 1));
    expect(big.status).toBe(413);
    expect(big.body).toEqual({ code: 413, message: 'body: larger than the limit of 1048576 bytes', data: null });
    expect(big.headers['access-control-allow-origin']).toBe('*');

    const many = await collect()
      .set('Content-Type', 'text/plain')
      .send(JSON.stringify(Array.from({ length: 501 }, pageView)));
    expect(many.status).toBe(400);
    expect(many.body.message).toBe('body: has 501 items; at most 500 per request');
    expect(many.headers['access-control-allow-origin']).toBe('*');

    const notJson = await collect().set('Content-Type', 'text/plain').send('{"id": ');
    expect(notJson.status).toBe(400);
    expect(notJson.body.message).toBe('body: is not valid JSON');
  });
});

describe('/collect rate limits', () => {
  /** Fires `n` requests at once right after a second boundary (the limiter's window), returns the answers. */
  async function burst(target: RunningApi, n: number, key: () => string): Promise<request.Response[]> {
    await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 5));
    return Promise.all(
      Array.from({ length: n }, () =>
        request(target.url)
          .post(`/collect/${key()}`)
          .set('Origin', ORIGIN)
          .set('Content-Type', 'text/plain')
          .send(JSON.stringify(pageView())),
      ),
    );
  }

  const limited = (rs: request.Response[]) => rs.filter((r) => r.status === 429);

  it('limits each client IP before looking at the key, with Retry-After', async () => {
    const tight = await startTestApi({ API_COLLECT_IP_RATE: '3' });
    try {
      // Unknown keys too: the per-IP limit spares the database a flood of guesses.
      const answers = await burst(tight, 12, () => `ik_unknown_${randomUUID()}`);
      const refused = limited(answers);
      expect(refused.length).toBeGreaterThan(0);
      for (const r of refused) {
        expect(r.body).toEqual({
          code: 429,
          message: 'client_ip: rate limit of 3 requests per second exceeded',
          data: null,
        });
        expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        expect(r.headers['access-control-allow-origin']).toBe('*');
      }
      expect(answers.filter((r) => r.status === 401).length).toBe(answers.length - refused.length);
    } finally {
      await tight.stop();
    }
  });

  it('limits each ingest key, with Retry-After', async () => {
    const tight = await startTestApi({ API_COLLECT_KEY_RATE: '3' });
    try {
      const other = await createTestStore(db);
      const answers = await burst(tight, 12, () => shop.credentials.ingest_key);
      const refused = limited(answers);
      expect(refused.length).toBeGreaterThan(0);
      for (const r of refused) {
        expect(r.body.message).toBe('ingest_key: rate limit of 3 requests per second exceeded');
        expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      }
      // Another store's key has a window of its own.
      const theirs = await request(tight.url)
        .post(`/collect/${other.credentials.ingest_key}`)
        .set('Content-Type', 'text/plain')
        .send(JSON.stringify(pageView()));
      expect(theirs.status).toBe(200);
    } finally {
      await tight.stop();
    }
  });

  it('uses limits a normal busy store never reaches by default', () => {
    expect(api.ctx.config.collectKeyRate).toBe(1000);
    expect(api.ctx.config.collectIpRate).toBe(100);
  });
});
