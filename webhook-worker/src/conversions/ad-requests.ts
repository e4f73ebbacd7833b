/**
 * The HTTP request of a batch of purchases to an ad platform, and what its answer says about each purchase
 * (docs/product.md, Conversions to the ad platforms). Pure: the worker's `ad-delivery.ts` sends and acts.
 *
 * - Meta: `POST {META_GRAPH_URL}/{version}/{pixel id}/events`, the token as `access_token` in the body (as Meta's
 *   examples send it); a 200 took every event, its `messages` are notes; an error answer refused the whole batch.
 * - Google: `POST {GOOGLE_ADS_API_URL}/{version}/customers/{id}:uploadClickConversions` with an OAuth access token
 *   and the developer token; `partialFailureError` of a 200 names the refused conversions by index.
 * - TikTok: `POST {TIKTOK_API_URL}/open_api/v1.3/event/track/` with the `Access-Token` header; its `code`, not
 *   the HTTP status, says whether it took the batch.
 */
import type { QueuedPurchase } from '../../../contracts/src/ad-conversions';
import type { AdDestinationSettings } from './destination-settings';
import {
  googleClickConversion,
  googleRefusedConversions,
  googleUploadBody,
  GOOGLE_MAX_CONVERSIONS,
} from './google-ads';
import { metaEventsBody, META_MAX_EVENTS } from './meta-capi';
import { tiktokTrackBody, TIKTOK_MAX_EVENTS } from './tiktok-events';
import type { AdPlatformEndpoints } from '../../../contracts/src/ad-platform-endpoints';

/** Purchases per request: each platform's own limit. */
export const MAX_BATCH: Record<AdDestinationSettings['kind'], number> = {
  meta_capi: META_MAX_EVENTS,
  google_ads: GOOGLE_MAX_CONVERSIONS,
  tiktok_events: TIKTOK_MAX_EVENTS,
};

/** What authenticates a request: Meta's or TikTok's token, or Google's access and developer tokens. */
export type AdAuth =
  | { kind: 'token'; token: string }
  | { kind: 'google'; accessToken: string; developerToken: string; loginCustomerId: string | null };

export interface AdRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export function adPlatformRequest(
  settings: AdDestinationSettings,
  purchases: readonly QueuedPurchase[],
  auth: AdAuth,
  endpoints: AdPlatformEndpoints,
  userAgent: string,
): AdRequest {
  const json = { 'content-type': 'application/json', 'user-agent': userAgent };
  switch (settings.kind) {
    case 'meta_capi': {
      const body = JSON.parse(metaEventsBody(purchases, settings.testEventCode ?? undefined)) as object;
      return {
        url: `${endpoints.metaGraphUrl}/${endpoints.metaApiVersion}/${settings.pixelId}/events`,
        headers: json,
        body: JSON.stringify({ ...body, access_token: auth.kind === 'token' ? auth.token : '' }),
      };
    }
    case 'google_ads': {
      const headers: Record<string, string> = { ...json };
      if (auth.kind === 'google') {
        headers.authorization = `Bearer ${auth.accessToken}`;
        headers['developer-token'] = auth.developerToken;
        if (auth.loginCustomerId) headers['login-customer-id'] = auth.loginCustomerId;
      }
      return {
        url: `${endpoints.googleAdsApiUrl}/${endpoints.googleAdsApiVersion}/customers/${settings.customerId}:uploadClickConversions`,
        headers,
        body: googleUploadBody(purchases.map((p) => googleClickConversion(p, settings.conversionAction))),
      };
    }
    case 'tiktok_events':
      return {
        url: `${endpoints.tiktokApiUrl}/open_api/v1.3/event/track/`,
        headers: { ...json, 'access-token': auth.kind === 'token' ? auth.token : '' },
        body: tiktokTrackBody(settings.pixelCode, purchases, settings.testEventCode ?? undefined),
      };
  }
}

/** One purchase's fate in a batch the platform answered. */
export type PurchaseVerdict = { ok: true } | { ok: false; error: string };

/**
 * What an answer means for the batch:
 * - `answered`: the platform judged each purchase (all taken, or some refused by index); `notes` are its remarks;
 * - `retry`: try the whole batch later (rate limit, outage), after `retryAfterMs` when the platform said;
 * - `refused`: the platform refused the request as a whole: for one purchase that is final; a larger batch is
 *   sent again one purchase at a time, so that only the faulty one is refused;
 * - `auth`: the credential is refused: final, and the destination shows as failing.
 */
export type BatchVerdict =
  | { kind: 'answered'; verdicts: PurchaseVerdict[]; notes: string[] }
  | { kind: 'retry'; error: string; retryAfterMs: number | null }
  | { kind: 'refused'; error: string }
  | { kind: 'auth'; error: string };

export interface AdAnswer {
  status: number;
  /** The body, parsed when it is JSON (null otherwise). */
  body: unknown;
  /** The start of the body, for messages when it is not the platform's JSON. */
  text: string;
  retryAfterMs: number | null;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const allTaken = (n: number): PurchaseVerdict[] => Array.from({ length: n }, () => ({ ok: true }));
const excerpt = (text: string): string => text.replace(/\s+/g, ' ').trim().slice(0, 200);

/**
 * Meta's error codes of transient trouble and throttling: 1, 2, 4, 17, 341 and 368 ("wait and retry") of the Graph
 * API's "Handling Errors" page; 32, 613 and the business-use-case limits 80000-80014 of its "Rate Limits" pages.
 */
const META_RETRY_CODES = new Set([
  1, 2, 4, 17, 32, 341, 368, 613, 80000, 80001, 80002, 80003, 80004, 80005, 80006, 80008, 80009, 80014,
]);
/** The credential's: 102 (session), 190 (token), 10 and 200-299 (permission not granted or removed). */
const isMetaAuthCode = (code: number): boolean =>
  code === 102 || code === 190 || code === 10 || (code >= 200 && code <= 299);

function judgeMeta(a: AdAnswer, n: number): BatchVerdict {
  const error = isObj(a.body) && isObj(a.body.error) ? a.body.error : null;
  if (a.status >= 200 && a.status < 300 && !error) {
    const messages = isObj(a.body) && Array.isArray(a.body.messages) ? a.body.messages : [];
    return {
      kind: 'answered',
      verdicts: allTaken(n),
      notes: messages.map((m) => (typeof m === 'string' ? m : JSON.stringify(m))),
    };
  }
  if (!error) return httpFallback(a);
  const code = Number(error.code);
  const text = [str(error.error_user_title), str(error.error_user_msg) || str(error.message)]
    .filter(Boolean)
    .join(': ');
  const message = `Meta error ${str(error.code)}${error.error_subcode ? `/${str(error.error_subcode)}` : ''}: ${text}`;
  if (isMetaAuthCode(code) || a.status === 401) return { kind: 'auth', error: message };
  if (META_RETRY_CODES.has(code) || error.is_transient === true || a.status === 429 || a.status >= 500) {
    return { kind: 'retry', error: message, retryAfterMs: a.retryAfterMs };
  }
  return { kind: 'refused', error: message };
}

/** A protobuf Duration in JSON ("30s") as milliseconds. */
function durationMs(v: unknown): number | null {
  const m = /^(\d+(?:\.\d+)?)s$/.exec(str(v));
  return m ? Math.ceil(Number(m[1]) * 1000) : null;
}

function googleRetryDelay(error: Record<string, unknown>): number | null {
  for (const d of Array.isArray(error.details) ? error.details : []) {
    if (!isObj(d)) continue;
    const direct = durationMs(d.retryDelay);
    if (direct !== null) return direct;
    for (const e of Array.isArray(d.errors) ? d.errors : []) {
      const q = isObj(e) && isObj(e.details) && isObj(e.details.quotaErrorDetails) ? e.details.quotaErrorDetails : null;
      const ms = q ? durationMs(q.retryDelay) : null;
      if (ms !== null) return ms;
    }
  }
  return null;
}

function judgeGoogle(a: AdAnswer, n: number): BatchVerdict {
  const error = isObj(a.body) && isObj(a.body.error) ? a.body.error : null;
  if (a.status >= 200 && a.status < 300 && !error) {
    const refused = googleRefusedConversions(a.body);
    const verdicts = allTaken(n).map((v, i): PurchaseVerdict => {
      const why = refused.get(i);
      return why === undefined ? v : { ok: false, error: `refused by Google: ${why}` };
    });
    return { kind: 'answered', verdicts, notes: [] };
  }
  if (!error) return httpFallback(a);
  const status = str(error.status);
  const message = `Google ${status || `HTTP ${a.status}`}: ${str(error.message)}`;
  if (status === 'UNAUTHENTICATED' || status === 'PERMISSION_DENIED' || a.status === 401 || a.status === 403) {
    return { kind: 'auth', error: message };
  }
  if (status === 'RESOURCE_EXHAUSTED' || status === 'UNAVAILABLE' || a.status === 429 || a.status >= 500) {
    return { kind: 'retry', error: message, retryAfterMs: googleRetryDelay(error) ?? a.retryAfterMs };
  }
  return { kind: 'refused', error: message };
}

/**
 * TikTok's codes (the table of its Business API SDK, `tiktok_business/tiktok_code.py`): no permission, an expired,
 * missing or invalid token; too many requests, maintenance and its own trouble (51000-52999: its services and
 * databases).
 */
const TIKTOK_AUTH_CODES = new Set([40001, 40102, 40104, 40105]);
const TIKTOK_RETRY_CODES = new Set([40100, 40132, 40200, 50000, 50002, 60001, 61000]);
const isTikTokRetryCode = (code: number): boolean => TIKTOK_RETRY_CODES.has(code) || (code >= 51000 && code < 53000);

function judgeTikTok(a: AdAnswer, n: number): BatchVerdict {
  if (a.status < 200 || a.status >= 300 || !isObj(a.body)) return httpFallback(a);
  const code = Number(a.body.code);
  if (code === 0) return { kind: 'answered', verdicts: allTaken(n), notes: [] };
  const message = `TikTok code ${str(a.body.code) || '?'}: ${str(a.body.message)}`;
  if (TIKTOK_AUTH_CODES.has(code)) return { kind: 'auth', error: message };
  if (isTikTokRetryCode(code)) return { kind: 'retry', error: message, retryAfterMs: a.retryAfterMs };
  return { kind: 'refused', error: message };
}

/** An answer without the platform's error body: the HTTP status decides. */
function httpFallback(a: AdAnswer): BatchVerdict {
  const error = `HTTP ${a.status}${a.text ? `: ${excerpt(a.text)}` : ''}`;
  if (a.status === 401 || a.status === 403) return { kind: 'auth', error };
  if (a.status === 408 || a.status === 425 || a.status === 429 || a.status >= 500 || a.status < 200) {
    return { kind: 'retry', error, retryAfterMs: a.retryAfterMs };
  }
  if (a.status >= 300 && a.status < 400) return { kind: 'retry', error, retryAfterMs: a.retryAfterMs };
  return { kind: 'refused', error };
}

/** What the platform's answer to a batch of `n` purchases means. */
export function judgeAdAnswer(kind: AdDestinationSettings['kind'], answer: AdAnswer, n: number): BatchVerdict {
  switch (kind) {
    case 'meta_capi':
      return judgeMeta(answer, n);
    case 'google_ads':
      return judgeGoogle(answer, n);
    case 'tiktok_events':
      return judgeTikTok(answer, n);
  }
}
