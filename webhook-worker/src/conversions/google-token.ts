/**
 * Google's OAuth access tokens for uploading click conversions: the refresh-token exchange of the store's Google
 * Ads connection at GOOGLE_OAUTH_TOKEN_URL, cached per connection until shortly before it expires, one exchange at
 * a time per connection. The tokens are kept in memory only and never logged.
 */
import type { AdPostResult } from './ad-http';
import type { AdRequest } from './ad-requests';

export interface GoogleOAuthClient {
  connectionId: string;
  clientId: string;
  clientSecret: string;
  refreshToken: string;
}

export type TokenResult =
  { ok: true; accessToken: string } | { ok: false; final: boolean; error: string; retryAfterMs: number | null };

/** Renew this long before Google's `expires_in` runs out. */
const EARLY_MS = 60_000;

export function createGoogleTokenCache(
  tokenUrl: string,
  post: (request: AdRequest) => Promise<AdPostResult>,
  now: () => number,
) {
  const cached = new Map<string, { token: string; until: number }>();
  const pending = new Map<string, Promise<TokenResult>>();

  async function exchange(c: GoogleOAuthClient): Promise<TokenResult> {
    const result = await post({
      url: tokenUrl,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        client_id: c.clientId,
        client_secret: c.clientSecret,
        refresh_token: c.refreshToken,
      }).toString(),
    });
    if (result.kind === 'failed') {
      return { ok: false, final: false, error: `token exchange: ${result.error}`, retryAfterMs: null };
    }
    const { status, body, retryAfterMs } = result.answer;
    const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    if (status >= 200 && status < 300 && typeof b.access_token === 'string') {
      const ttlMs = typeof b.expires_in === 'number' ? b.expires_in * 1000 : 3_600_000;
      cached.set(c.connectionId, { token: b.access_token, until: now() + Math.max(0, ttlMs - EARLY_MS) });
      return { ok: true, accessToken: b.access_token };
    }
    const why =
      typeof b.error === 'string'
        ? `${b.error}${typeof b.error_description === 'string' ? `: ${b.error_description}` : ''}`
        : `HTTP ${status}`;
    // 4xx (invalid_grant, invalid_client): the connection's credentials are wrong; retrying cannot help.
    const final = status >= 400 && status < 500 && status !== 429 && status !== 408;
    return { ok: false, final, error: `token exchange: ${why}`, retryAfterMs };
  }

  return {
    async accessToken(c: GoogleOAuthClient): Promise<TokenResult> {
      const hit = cached.get(c.connectionId);
      if (hit && hit.until > now()) return { ok: true, accessToken: hit.token };
      let p = pending.get(c.connectionId);
      if (!p) {
        p = exchange(c).finally(() => pending.delete(c.connectionId));
        pending.set(c.connectionId, p);
      }
      return p;
    },
    /** Forgets a token Google refused (revoked before it expired). */
    forget(connectionId: string): void {
      cached.delete(connectionId);
    },
  };
}

export type GoogleTokenCache = ReturnType<typeof createGoogleTokenCache>;
