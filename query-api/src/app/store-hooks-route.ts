/**
 * The store platforms' webhook receivers (docs/product.md, Store connections): `POST /hooks/shopify/<connection
 * id>` and `POST /hooks/woocommerce/<connection id>`. Mounted before the JSON body parser, since the signature
 * is over the raw bytes: the body is read as bytes (at most API_BODY_LIMIT_BYTES), whatever its content type.
 * A per-IP limit comes before the connection lookup, a per-connection limit after it; both far above what a
 * busy store sends.
 */
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { AppContext } from './context';
import { enforceRateLimit } from './authentication';
import { success } from './envelope';
import { ApiError } from './errors';
import type { HookPlatform, StoreHookService } from '../services/store-hooks/store-hook.service';

const PLATFORMS: readonly string[] = ['shopify', 'woocommerce'];

export function registerStoreHookRoutes(app: Express, ctx: AppContext, service: StoreHookService): void {
  const raw = express.raw({ type: () => true, limit: ctx.config.bodyLimitBytes });
  app.post(
    '/hooks/:platform/:connection',
    (req: Request, _res: Response, next: NextFunction) => {
      if (!PLATFORMS.includes(String(req.params.platform)))
        return next(new ApiError(404, `platform: unknown (${PLATFORMS.join(', ')})`));
      try {
        enforceRateLimit(ctx, `ip:${req.ip ?? ''}:hooks`, ctx.config.hookIpRate, 'client_ip');
      } catch (err) {
        return next(err);
      }
      next();
    },
    raw,
    async (req: Request, res: Response, next: NextFunction) => {
      try {
        const connection = String(req.params.connection);
        enforceRateLimit(ctx, `hook:${connection}`, ctx.config.hookConnectionRate, 'connection');
        const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        const platform = String(req.params.platform) as HookPlatform;
        res.json(success(await service.receive(platform, connection, req.headers, body)));
      } catch (err) {
        next(err);
      }
    },
  );
}
