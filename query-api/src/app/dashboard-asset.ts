/**
 * Serves the dashboard built into dashboard/dist (see scripts/build-dashboard.ts):
 *   GET /dashboard, /dashboard/          the page, revalidated on every load (no-cache) so a new build is seen
 *   GET /dashboard/assets/<name>-<hash>  its scripts and styles, cached for a year (immutable)
 * sent gzipped when the client accepts it, with a Content-Security-Policy that allows only this origin.
 * The build is read once at start-up; without one the routes answer 503.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type express from 'express';
import type { Request, Response } from 'express';
import type { Logger } from '../../../runtime/logger';
import { errorBody } from './errors';

export const DASHBOARD_DIST_DIR = path.join(__dirname, '..', '..', '..', 'dashboard', 'dist');

interface Asset {
  type: string;
  body: Buffer;
  gzip: Buffer;
  etag: string;
}

const CSP = [
  "default-src 'self'",
  "img-src 'self' data:",
  "style-src 'self'",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

function asset(type: string, body: Buffer): Asset {
  return {
    type,
    body,
    gzip: zlib.gzipSync(body, { level: 9 }),
    etag: `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`,
  };
}

function loadDashboard(dir: string): { page: Asset; files: Map<string, Asset> } {
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as {
    js: { file: string };
    css: { file: string };
  };
  const files = new Map<string, Asset>();
  for (const [file, type] of [
    [manifest.js.file, 'application/javascript; charset=utf-8'],
    [manifest.css.file, 'text/css; charset=utf-8'],
  ] as const) {
    files.set(path.basename(file), asset(type, fs.readFileSync(path.join(dir, file))));
  }
  return { page: asset('text/html; charset=utf-8', fs.readFileSync(path.join(dir, 'index.html'))), files };
}

function send(req: Request, res: Response, a: Asset, cacheControl: string): void {
  res.set({
    'Content-Type': a.type,
    'Cache-Control': cacheControl,
    ETag: a.etag,
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': CSP,
    'Referrer-Policy': 'no-referrer',
    Vary: 'Accept-Encoding',
  });
  if (req.fresh) return void res.status(304).end();
  const gzip = req.acceptsEncodings('gzip', 'identity') === 'gzip';
  if (gzip) res.set('Content-Encoding', 'gzip');
  res.status(200).end(gzip ? a.gzip : a.body);
}

export function registerDashboardRoutes(app: express.Express, logger: Logger, dir: string = DASHBOARD_DIST_DIR): void {
  let built: ReturnType<typeof loadDashboard> | null = null;
  try {
    built = loadDashboard(dir);
  } catch (err) {
    logger.warn(
      { err: err instanceof Error ? err.message : String(err) },
      'dashboard not built (run `make generate` or `npm run dashboard:build`): /dashboard answers 503',
    );
  }
  if (!built) {
    app.get(['/dashboard', '/dashboard/', '/dashboard/assets/:file'], (_req, res) => {
      res.status(503).json(errorBody(503, 'dashboard: not built on this server (npm run dashboard:build)'));
    });
    return;
  }
  const { page, files } = built;
  app.get(['/dashboard', '/dashboard/'], (req, res) => send(req, res, page, 'no-cache'));
  app.get('/dashboard/assets/:file', (req, res, next) => {
    const file = files.get(req.params.file);
    if (!file) return next();
    send(req, res, file, 'public, max-age=31536000, immutable');
  });
}
