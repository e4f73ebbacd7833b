/** The API side of the store-side tracker: /t.js and its versioned path with their caching headers. */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import express from 'express';
import request from 'supertest';
import type { Db } from '../../storage/db';
import { silentLogger } from '../../runtime/logger';
import type { RunningApi } from '../../query-api/src/app/api';
import { registerTrackerRoutes } from '../../query-api/src/app/tracker-asset';
import { TRACKER_DIST, type TrackerManifest } from '../../scripts/build-tracker';
import { startTestApi, testDb } from '../support/harness';

let db: Db;
let api: RunningApi;
let manifest: TrackerManifest;

beforeAll(async () => {
  db = testDb();
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
