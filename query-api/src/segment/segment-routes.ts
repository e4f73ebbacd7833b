/**
 * The Segment-compatible source (docs/product.md, Segment-compatible source): Segment's HTTP Tracking API at the
 * API's root, so that Segment, RudderStack and Jitsu SDKs and webhook destinations send to the service unchanged.
 *
 *   POST /v1/batch  {batch: [message, ...], context?, sentAt?, writeKey?}
 *   POST /v1/track | /v1/page | /v1/screen | /v1/identify | /v1/alias | /v1/group  (one message)
 *
 * Auth is HTTP Basic with the ingest key as user (empty password), or `writeKey` in the body. The routes read
 * the raw body themselves (mounted before the app's JSON parser): gzip or not whatever the headers say, at most
 * 500 KB, 32 KB a message. A bad message is refused alone, by its index in `rejected`; the others are published
 * like `POST /{version}/api/events` publishes events, and the answer `{"success": true}` waits for the stream.
 * Rate limits are those of the browser route /collect: analytics.js posts here from shoppers' browsers too.
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import type { RejectedItem } from '../../../contracts/src/ingest';
import type { AppContext } from '../app/context';
import { authenticate, enforceRateLimit } from '../app/authentication';
import { badRequest, unauthorized } from '../app/errors';
import type { IngestService } from '../services/ingest.service';
import { mapSegmentMessage, SEGMENT_TYPES, type SegmentType } from './map-message';
import { readTrackingBody } from './read-body';

/** Segment's limits: a batch request, and one message. */
export const SEGMENT_BATCH_LIMIT_BYTES = 500 * 1024;
export const SEGMENT_MESSAGE_LIMIT_BYTES = 32 * 1024;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The ingest key: the user of an HTTP Basic `Authorization`, else the body's `writeKey`. */
function writeKeyOf(req: Request, body: Obj): string {
  const header = req.headers.authorization;
  const basic = header ? /^Basic\s+(\S+)\s*$/i.exec(header) : null;
  if (basic) {
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const user = decoded.split(':')[0]!.trim();
    if (user) return user;
  }
  const key = body['writeKey'];
  if (typeof key === 'string' && key.trim()) return key.trim();
  throw unauthorized('writeKey', 'missing: send the ingest key as the HTTP Basic user or as writeKey in the body');
}

/** The messages of a request: a batch's items (with the batch's context and sentAt), or the body itself. */
function messagesOf(route: SegmentType | 'batch', body: Obj): unknown[] {
  if (route !== 'batch') return [body];
  const batch = body['batch'];
  if (!Array.isArray(batch) || batch.length === 0) throw badRequest('batch', 'must be a non-empty array of messages');
  const context = isObj(body['context']) ? body['context'] : null;
  const sentAt = body['sentAt'];
  if (!context && sentAt === undefined) return batch;
  // Segment merges the batch's context into each message's; a message's own members win.
  return batch.map((m: unknown) =>
    isObj(m)
      ? {
          ...(sentAt !== undefined && m['sentAt'] === undefined ? { sentAt } : {}),
          ...m,
          ...(context ? { context: { ...context, ...(isObj(m['context']) ? m['context'] : {}) } } : {}),
        }
      : m,
  );
}

const tooLarge = (bytes: number): RejectedItem['errors'] => [
  { field: 'message', message: `is ${bytes} bytes; at most ${SEGMENT_MESSAGE_LIMIT_BYTES}` },
];

export function registerSegmentRoutes(app: express.Express, ctx: AppContext, ingest: IngestService): void {
  const router = express.Router();
  // Browsers (analytics.js with apiHost) post here cross-origin, like the tracker to /collect.
  router.use((req, res, next) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
    res.setHeader('Access-Control-Allow-Headers', 'Content-Type, Authorization');
    res.setHeader('Access-Control-Expose-Headers', 'Retry-After');
    res.setHeader('Access-Control-Max-Age', '86400');
    if (req.method === 'OPTIONS') return void res.status(204).end();
    enforceRateLimit(ctx, `ip:${req.ip ?? ''}:segment`, ctx.config.collectIpRate, 'client_ip');
    next();
  });
  // Any content type: the bytes are decoded by readTrackingBody (body-parser inflates a declared encoding).
  router.use(express.raw({ type: () => true, limit: SEGMENT_BATCH_LIMIT_BYTES }));

  const handle = (route: SegmentType | 'batch') => async (req: Request, res: Response, next: NextFunction) => {
    try {
      const { value: body, bytes } = readTrackingBody(req.body, SEGMENT_BATCH_LIMIT_BYTES);
      if (!isObj(body)) throw badRequest('body', 'must be a JSON object');
      const principal = await authenticate(ctx, 'ingest_key', writeKeyOf(req, body), 'writeKey', {
        name: 'segment',
        perSecond: ctx.config.collectKeyRate,
      });
      const messages = messagesOf(route, body);
      const receivedAt = ctx.now();
      const type = route === 'batch' ? undefined : route;
      // A body within the message limit holds no message above it: most requests skip the measuring.
      const measure = bytes > SEGMENT_MESSAGE_LIMIT_BYTES;
      const groups = messages.map((m) => {
        try {
          const size = measure ? Buffer.byteLength(JSON.stringify(m) ?? '') : 0;
          if (size > SEGMENT_MESSAGE_LIMIT_BYTES) return { errors: tooLarge(size) };
          const r = mapSegmentMessage(m, { receivedAt, storeCurrency: principal.store.currency, type });
          return r.ok ? { events: r.events } : { errors: r.errors };
        } catch (err) {
          // JSON.parse takes any depth, JSON.stringify (the size, an id from the content) does not.
          if (err instanceof RangeError) return { errors: [{ field: 'message', message: 'is nested too deeply' }] };
          throw err;
        }
      });
      const result = await ingest.ingestEventGroups(principal.store, groups);
      res.json(result.rejected.length ? { success: true, rejected: result.rejected } : { success: true });
    } catch (err) {
      next(err);
    }
  };
  router.post('/batch', handle('batch'));
  for (const type of SEGMENT_TYPES) router.post(`/${type}`, handle(type));
  app.use('/v1', router);
}
