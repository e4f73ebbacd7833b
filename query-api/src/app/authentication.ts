/**
 * tsoa authentication (docs/product.md, Credentials and tenancy and API conventions): resolves the caller's store from its credential and applies the
 * per-key rate limit named by the route's scope. Every service call is then scoped to that store.
 *   @Security('api_key', ['report'])   header ApiKey, 5 requests/s per operation   (operations 1, 2, 5)
 *   @Security('api_key', ['journey'])  header ApiKey, 20 requests/s per operation  (operations 3, 4)
 *   @Security('api_key', ['privacy'])  header ApiKey, 5 requests/s per operation   (erase, export; no dashboard key)
 *   @Security('ingest_key')            header X-Ingest-Key
 *   @Security('access_token')          header Authorization: Bearer <token>
 * and `/mcp` (mcp-route.ts): header ApiKey, 20 requests/s, each tool call then counted by its own operation.
 * The browser route /collect/<ingest key> authenticates with the key in its path and a limit of its own.
 *
 * The read-only dashboard key (`dk_...`) is sent in the `ApiKey` header too. It opens the operations of the
 * read-only classes (DASHBOARD_KEY_CLASSES); anywhere else, a valid dashboard key is refused with 403 (an
 * unknown one with 401), whichever header carries it.
 */
import type { Request } from 'express';
import { digestCredential, kindOfSecret, type CredentialKind } from '../../../storage/credentials';
import { findStoreByCredential, type StoreRecord } from '../../../storage/store-registry';
import type { AppContext, Principal } from './context';
import { ApiError } from './errors';

/** The database could not say whether a credential is valid: not the caller's fault, so not a 401. */
const cannotVerify = (): ApiError =>
  new ApiError(503, 'service: credentials cannot be verified right now; retry shortly', { 'Retry-After': '2' });

export const RATE_CLASSES: Record<string, number> = {
  report: 5,
  journey: 20,
  link_builder: 10,
  customers: 10,
  settings: 10,
  ingest: 200,
  mcp: 20,
  privacy: 5,
};

/** The classes of operations that only read reports: what a dashboard key opens. */
export const DASHBOARD_KEY_CLASSES: ReadonlySet<string> = new Set(['report', 'journey', 'settings', 'mcp']);

const HEADER_OF: Record<string, { kind: CredentialKind; header: string }> = {
  api_key: { kind: 'api_key', header: 'apikey' },
  ingest_key: { kind: 'ingest_key', header: 'x-ingest-key' },
  access_token: { kind: 'access_token', header: 'authorization' },
};

function credentialOf(request: Request, securityName: string): { kind: CredentialKind; secret: string; field: string } {
  const spec = HEADER_OF[securityName];
  if (!spec) throw new ApiError(500, `security: unknown scheme ${securityName}`);
  const raw = request.headers[spec.header];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (spec.kind === 'access_token') {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(value ?? '');
    return { kind: spec.kind, secret: m?.[1] ?? '', field: 'Authorization' };
  }
  return { kind: spec.kind, secret: (value ?? '').trim(), field: spec.kind === 'api_key' ? 'ApiKey' : 'X-Ingest-Key' };
}

/** A per-key limit: requests per second under a name (the class and operation it counts). */
export interface KeyRateLimit {
  name: string;
  perSecond: number;
}

/** Takes one request from a limit's window; a 429 with Retry-After, naming `field`, when it is used up. */
export function enforceRateLimit(ctx: AppContext, key: string, perSecond: number, field: string): void {
  const decision = ctx.rateLimiter.take(key, perSecond);
  if (!decision.allowed) {
    throw new ApiError(429, `${field}: rate limit of ${perSecond} requests per second exceeded`, {
      'Retry-After': String(decision.retryAfterS),
    });
  }
}

export interface AuthenticateOptions {
  /** The operation only reads reports: a dashboard key may call it in place of the API key. */
  readOnly?: boolean;
}

/**
 * The store of a credential of `kind`, with the per-key rate limit taken. A dashboard key given where `kind`
 * is expected is looked up as what it is: it passes in place of an API key on read-only operations, and is
 * refused with 403 elsewhere once it is known to be valid.
 */
export async function authenticate(
  ctx: AppContext,
  kind: CredentialKind,
  secret: string,
  field: string,
  limit: KeyRateLimit | undefined,
  options: AuthenticateOptions = {},
): Promise<Principal> {
  if (!secret) throw new ApiError(401, `${field}: header is missing`);
  const presented: CredentialKind = kindOfSecret(secret) === 'dashboard_key' ? 'dashboard_key' : kind;
  const digest = digestCredential(secret).toString('hex');
  let store: StoreRecord | null;
  try {
    store = await ctx.credentialCache.lookup(`${presented}:${digest}`, () =>
      findStoreByCredential(ctx.db, presented, secret),
    );
  } catch (err) {
    ctx.logger.warn({ err }, 'credential lookup failed');
    throw cannotVerify();
  }
  if (!store) throw new ApiError(401, `${field}: unknown or revoked credential`);
  if (presented === 'dashboard_key' && !(kind === 'api_key' && options.readOnly)) {
    throw new ApiError(
      403,
      `${field}: a dashboard key is read-only: it reads reports and nothing else (use the store's ${KIND_NAMES[kind]})`,
    );
  }
  const keyId = digest.slice(0, 24);
  if (limit) enforceRateLimit(ctx, `${keyId}:${limit.name}`, limit.perSecond, field);
  return { store, keyId, kind: presented };
}

const KIND_NAMES: Record<CredentialKind, string> = {
  api_key: 'API key',
  ingest_key: 'ingest key',
  access_token: 'access token',
  dashboard_key: 'dashboard key',
};

export async function expressAuthentication(
  request: Request,
  securityName: string,
  scopes?: string[],
): Promise<Principal> {
  const ctx = request.app.locals.ctx as AppContext;
  const { kind, secret, field } = credentialOf(request, securityName);
  // Limits apply per key and per operation (the route).
  const rateClass = scopes?.[0];
  const perSecond = rateClass ? RATE_CLASSES[rateClass] : undefined;
  const limit =
    rateClass && perSecond !== undefined
      ? { name: `${rateClass}:${request.method} ${request.path}`, perSecond }
      : undefined;
  return authenticate(ctx, kind, secret, field, limit, {
    readOnly: rateClass !== undefined && DASHBOARD_KEY_CLASSES.has(rateClass),
  });
}
