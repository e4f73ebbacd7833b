/**
 * Builds the Express app: request ids and logs, metrics, body limits, CORS and the per-IP limit of the
 * browser route, version check, health, OpenAPI and Swagger UI, the tracker script, the MCP endpoint, the
 * tsoa-generated routes, 404, and one error handler that maps every failure to the error envelope
 * `{code, message: "<field>: <what is wrong>", data: null}` (never a 500 for bad input).
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import { pinoHttp } from 'pino-http';
import swaggerUi from 'swagger-ui-express';
import { ValidateError } from '@tsoa/runtime';
import { API_VERSION } from '../../../contracts/src/reports';
import { isTransientDbError } from '../../../storage/db';
import { RegisterRoutes } from '../generated/routes';
import { sendExactJson } from './exact-json-response';
import type { AppContext } from './context';
import { enforceRateLimit } from './authentication';
import { ApiError, errorBody } from './errors';
import { findUnstorable } from '../../../contracts/src/validation/storable';
import { type ApiServices, createServices } from './services';
import { registerSegmentRoutes } from '../segment/segment-routes';
import { mountMcp } from './mcp-route';
import { registerTrackerRoutes } from './tracker-asset';
import { registerDashboardRoutes } from './dashboard-asset';
import { registerStoreHookRoutes } from './store-hooks-route';

const isIngestRoute = (path: string): boolean =>
  path.startsWith('/collect/') || path.startsWith('/hooks/') || /^\/[^/]+\/api\/(events|store\/)/.test(path);

const OPENAPI_PATH = path.join(__dirname, '..', '..', 'openapi', 'openapi.json');

function loadOpenApi(): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(OPENAPI_PATH, 'utf8')) as Record<string, unknown>;
}

/** Customers routes answer errors in Shopify's shape (docs/product.md, API conventions). */
const CUSTOMERS_PATH = /^\/[^/]+\/api\/customers(\/|$)/;
const isShopifyRoute = (req: Request): boolean => CUSTOMERS_PATH.test(req.path);

function sendError(
  req: Request,
  res: Response,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) return;
  res.set(headers);
  res.status(status).json(isShopifyRoute(req) ? { errors: message } : errorBody(status, message));
}

function describeValidateError(err: ValidateError): string {
  const parts = Object.entries(err.fields).map(([field, detail]) => {
    const name = field.replace(/^(requestBody|body)\.?/, '') || 'body';
    return `${name}: ${detail.message}`;
  });
  return parts.join('; ') || 'request: invalid';
}

export function createApp(ctx: AppContext): express.Express {
  const app = express();
  app.locals.ctx = ctx;
  app.locals.services = createServices(ctx);
  app.disable('x-powered-by');
  app.set('trust proxy', ctx.config.trustProxy);
  app.set('query parser', 'simple');

  app.use(
    pinoHttp({
      logger: ctx.logger,
      genReqId: (req, res) => {
        const given = req.headers['x-request-id'];
        const id = typeof given === 'string' && /^[\w.-]{1,128}$/.test(given) ? given : randomUUID();
        res.setHeader('x-request-id', id);
        return id;
      },
      customLogLevel: (_req, res, err) =>
        err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'info' : 'debug',
      serializers: {
        req: (req: { id: unknown; method: unknown; url: unknown }) => ({
          id: req.id,
          method: req.method,
          url: req.url,
        }),
      },
    }),
  );

  if (ctx.requestTiming) app.use(ctx.requestTiming.middleware);

  app.use((req, res, next) => {
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      const route = (req.route as { path?: string } | undefined)?.path ?? 'unmatched';
      ctx.metrics.httpDuration.observe(
        { method: req.method, route, status: String(res.statusCode) },
        Number(process.hrtime.bigint() - start) / 1e9,
      );
    });
    next();
  });

  // While draining, answer what arrives but ask keep-alive clients to reconnect (elsewhere).
  app.use((_req, res, next) => {
    if (ctx.isDraining()) res.setHeader('Connection', 'close');
    next();
  });

  // Unknown API versions are 404 before anything else looks at the request.
  app.use((req, res, next) => {
    const m = /^\/([^/]+)\/api(\/|$)/.exec(req.path);
    if (m && m[1] !== API_VERSION)
      return sendError(req, res, 404, `version: unknown API version ${m[1]} (supported: ${API_VERSION})`);
    next();
  });

  // Store platform webhooks are verified over their raw bytes: before the JSON body parser.
  registerStoreHookRoutes(app, ctx, (app.locals.services as ReturnType<typeof createServices>).storeHooks);

  // Trackers on any store's pages post here cross-origin, without credentials: CORS is open to every origin
  // (text/plain needs no preflight; application/json gets one), and Retry-After is readable by the script.
  // The per-IP limit comes before the body is read or the key is looked up.
  app.use('/collect', (req, res, next) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
    res.setHeader('Access-Control-Allow-Headers', 'Content-Type');
    res.setHeader('Access-Control-Expose-Headers', 'Retry-After');
    res.setHeader('Access-Control-Max-Age', '86400');
    if (req.method === 'OPTIONS') return void res.status(204).end();
    enforceRateLimit(ctx, `ip:${req.ip ?? ''}:collect`, ctx.config.collectIpRate, 'client_ip');
    next();
  });
  app.use('/collect', express.text({ type: 'text/plain', limit: ctx.config.bodyLimitBytes }));
  // The Segment-compatible source reads its raw bodies itself: before the JSON parser.
  registerSegmentRoutes(app, ctx, (app.locals.services as ApiServices).ingest);
  app.use(express.json({ limit: ctx.config.bodyLimitBytes, strict: false }));
  // Values PostgreSQL cannot hold (NUL, unpaired surrogates) or too deep to traverse would fail deep in a
  // query or a serializer; name them here instead. Ingestion checks each item itself, so one bad item of a
  // batch does not reject the others.
  app.use((req, res, next) => {
    if (isIngestRoute(req.path)) return next();
    const problem = findUnstorable(req.body, 'body') ?? findUnstorable(req.query, 'query');
    if (problem) return sendError(req, res, 400, `${problem.field}: ${problem.message}`);
    next();
  });

  app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  app.get('/readyz', async (_req, res) => {
    const entries = await Promise.all(
      Object.entries(ctx.readiness).map(async ([name, check]) => {
        try {
          return [name, await check()] as const;
        } catch (err) {
          return [name, { ok: false, detail: err instanceof Error ? err.message : String(err) }] as const;
        }
      }),
    );
    const draining = ctx.isDraining();
    const ok = !draining && entries.every(([, r]) => r.ok);
    res
      .status(ok ? 200 : 503)
      .json({ status: ok ? 'ready' : 'not_ready', draining, checks: Object.fromEntries(entries) });
  });
  app.get('/metrics', async (_req, res) => {
    res.type(ctx.metrics.registry.contentType).send(await ctx.metrics.registry.metrics());
  });

  const openapi = loadOpenApi();
  app.get('/openapi.json', (_req, res) => void res.json(openapi));
  app.use('/docs', swaggerUi.serve, swaggerUi.setup(openapi));
  registerTrackerRoutes(app, ctx.logger);
  // Before the generated routes too: `GET /{code}` would take `/dashboard`.
  registerDashboardRoutes(app, ctx.logger);

  // Before the generated routes: their short-link redirect `GET /{code}` would take `/mcp`.
  mountMcp(app, ctx);
  // The customer ids are JSON numbers beyond 2^53: written with all their digits.
  app.use(CUSTOMERS_PATH, sendExactJson);
  RegisterRoutes(app);

  app.use((req, res) => sendError(req, res, 404, `path: no route for ${req.method} ${req.path}`));

  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (err instanceof ApiError) return sendError(req, res, err.status, err.message, err.headers);
    if (err instanceof ValidateError) return sendError(req, res, 400, describeValidateError(err));
    const e = err as { type?: string; status?: number; message?: string; limit?: number };
    if (e.type === 'entity.too.large')
      return sendError(req, res, 413, `body: larger than the limit of ${e.limit ?? ctx.config.bodyLimitBytes} bytes`);
    if (e.type === 'entity.parse.failed')
      return sendError(req, res, 400, `body: malformed JSON (${e.message ?? 'parse error'})`);
    if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported')
      return sendError(req, res, 415, `body: ${e.message ?? 'unsupported encoding'}`);
    if (typeof e.status === 'number' && e.status >= 400 && e.status < 500)
      return sendError(req, res, e.status, `request: ${e.message ?? 'bad request'}`);
    // The database is unreachable, restarting or too slow: the request may succeed in a moment.
    if (isTransientDbError(err) || (err as { code?: unknown }).code === '57014') {
      ctx.logger.warn({ err, reqId: req.id }, 'database unavailable');
      return sendError(req, res, 503, 'service: temporarily unavailable; retry shortly', { 'Retry-After': '2' });
    }
    ctx.logger.error({ err, reqId: req.id }, 'unhandled error');
    sendError(
      req,
      res,
      500,
      `server: internal error (request id ${typeof req.id === 'string' || typeof req.id === 'number' ? req.id : 'unknown'})`,
    );
  });

  return app;
}
