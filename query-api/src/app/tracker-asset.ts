/**
 * Serves the store-side tracker built into tracker/dist (see scripts/build-tracker.ts):
 *   GET /t.js             cached 5 minutes, so a new build reaches stores quickly
 *   GET /t/<version>.js   that exact build, cached for a year (immutable)
 * Both carry the version in `X-Tracker-Version` (and in the file), an ETag, and are sent gzipped when the
 * client accepts it. The build is read once at start-up; without one the routes answer 503.
 */
import fs from 'node:fs';
import path from 'node:path';
import type express from 'express';
import type { Request, Response } from 'express';
import type { Logger } from '../../../runtime/logger';
import { errorBody } from './errors';

export const TRACKER_DIST_DIR = path.join(__dirname, '..', '..', '..', 'tracker', 'dist');

export interface TrackerAsset {
  version: string;
  body: Buffer;
  gzip: Buffer;
  etag: string;
}

export function loadTrackerAsset(dir: string = TRACKER_DIST_DIR): TrackerAsset {
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as {
    version: string;
    file: string;
    sha256: string;
  };
  return {
    version: manifest.version,
    body: fs.readFileSync(path.join(dir, manifest.file)),
    gzip: fs.readFileSync(path.join(dir, `${manifest.file}.gz`)),
    etag: `"${manifest.sha256.slice(0, 32)}"`,
  };
}

function send(req: Request, res: Response, asset: TrackerAsset, cacheControl: string): void {
  res.set({
    'Content-Type': 'application/javascript; charset=utf-8',
    'Cache-Control': cacheControl,
    ETag: asset.etag,
    'X-Tracker-Version': asset.version,
    'X-Content-Type-Options': 'nosniff',
    // Lets a store load it with `crossorigin` (and Subresource Integrity on the versioned path).
    'Access-Control-Allow-Origin': '*',
    Vary: 'Accept-Encoding',
  });
  if (req.fresh) return void res.status(304).end();
  const gzip = req.acceptsEncodings('gzip', 'identity') === 'gzip';
  if (gzip) res.set('Content-Encoding', 'gzip');
  res.status(200).end(gzip ? asset.gzip : asset.body);
}

export function registerTrackerRoutes(app: express.Express, logger: Logger, dir: string = TRACKER_DIST_DIR): void {
  let asset: TrackerAsset | null = null;
  try {
    asset = loadTrackerAsset(dir);
  } catch (err) {
    logger.warn(
      { err: err instanceof Error ? err.message : String(err) },
      'tracker not built (run `make generate` or `npm run tracker:build`): /t.js answers 503',
    );
  }
  const unavailable = (_req: Request, res: Response): void =>
    void res.status(503).json(errorBody(503, 'tracker: not built on this server (npm run tracker:build)'));
  if (!asset) {
    app.get(['/t.js', '/t/:file'], unavailable);
    return;
  }
  const built = asset;
  app.get('/t.js', (req, res) => send(req, res, built, 'public, max-age=300'));
  app.get('/t/:file', (req, res, next) => {
    if (req.params.file !== `${built.version}.js`) return next();
    send(req, res, built, 'public, max-age=31536000, immutable');
  });
}
