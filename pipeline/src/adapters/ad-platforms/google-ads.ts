/**
 * Google Ads API (docs/product.md, Ad spend from the ad platforms): an access token from the OAuth refresh-token
 * exchange, then `POST /{version}/customers/{id}/googleAds:searchStream` with GAQL over `ad_group_ad` segmented
 * by `segments.date`. `cost_micros` is an int64 string, kept exact; purchases are the account's primary
 * conversions (`metrics.conversions`, `metrics.conversions_value`), which is what Google reports as conversions.
 */
import { countOf, decimalToMicros, int64Micros } from '../../domain/decimal-micros';
import {
  excerpt,
  isObj,
  requestJson,
  retryAfterMs,
  str,
  type HttpOptions,
  type RawResponse,
  type Verdict,
} from './http';
import {
  AdPlatformError,
  type AdAccountCredentials,
  type AdPlatformClient,
  type AdPlatformConfig,
  type AdRow,
  type GoogleCredentials,
} from './types';

export function gaqlQuery(fromDay: string, toDay: string): string {
  return [
    'SELECT customer.id, customer.currency_code, campaign.id, campaign.name, ad_group.id, ad_group.name,',
    'ad_group_ad.ad.id, ad_group_ad.ad.name, segments.date, metrics.cost_micros, metrics.impressions,',
    'metrics.clicks, metrics.conversions, metrics.conversions_value',
    `FROM ad_group_ad WHERE segments.date BETWEEN '${fromDay}' AND '${toDay}'`,
  ].join(' ');
}

/** "30s" or "1.5s" (a protobuf Duration in JSON) as milliseconds. */
function durationMs(v: unknown): number | undefined {
  const m = /^(\d+(?:\.\d+)?)s$/.exec(str(v));
  return m ? Math.ceil(Number(m[1]) * 1000) : undefined;
}

/** The retry delay Google puts in a RESOURCE_EXHAUSTED error's GoogleAdsFailure (or a RetryInfo detail). */
function retryDelayOf(error: Record<string, unknown>): number | undefined {
  const details = Array.isArray(error.details) ? error.details : [];
  for (const d of details) {
    if (!isObj(d)) continue;
    const direct = durationMs(d.retryDelay);
    if (direct !== undefined) return direct;
    for (const e of Array.isArray(d.errors) ? d.errors : []) {
      const q = isObj(e) && isObj(e.details) && isObj(e.details.quotaErrorDetails) ? e.details.quotaErrorDetails : null;
      const ms = q ? durationMs(q.retryDelay) : undefined;
      if (ms !== undefined) return ms;
    }
  }
  return undefined;
}

/** The first GoogleAdsFailure message, which says more than the status's generic one. */
function adsMessage(error: Record<string, unknown>): string {
  const details = Array.isArray(error.details) ? error.details : [];
  for (const d of details) {
    for (const e of isObj(d) && Array.isArray(d.errors) ? d.errors : []) {
      if (isObj(e) && str(e.message)) return str(e.message);
    }
  }
  return str(error.message);
}

export function judgeGoogleAds(r: RawResponse): Verdict {
  // searchStream answers an array of batches; an error is an object, or an array whose batch holds `error`.
  const errBody: unknown = Array.isArray(r.body)
    ? (r.body as unknown[]).find((b) => isObj(b) && isObj(b.error))
    : r.body;
  const error = isObj(errBody) && isObj(errBody.error) ? errBody.error : null;
  if (r.status >= 200 && r.status < 300 && !error) return { kind: 'ok', body: r.body };
  if (!error) {
    const message = `HTTP ${r.status}: ${excerpt(r.text)}`;
    return r.status >= 500 || r.status === 429 ? { kind: 'retry', message } : { kind: 'fail', message };
  }
  const status = str(error.status);
  const message = `${status || `HTTP ${r.status}`}: ${adsMessage(error)}`;
  if (status === 'UNAUTHENTICATED' || status === 'PERMISSION_DENIED') return { kind: 'auth', message };
  if (status === 'RESOURCE_EXHAUSTED' || r.status === 429) {
    return { kind: 'retry', message, delayMs: retryDelayOf(error) ?? retryAfterMs(r.headers) };
  }
  if (status === 'UNAVAILABLE' || status === 'INTERNAL' || status === 'DEADLINE_EXCEEDED' || r.status >= 500) {
    return { kind: 'retry', message };
  }
  return { kind: 'fail', message };
}

export function judgeOauth(r: RawResponse): Verdict {
  if (r.status >= 200 && r.status < 300 && isObj(r.body) && typeof r.body.access_token === 'string') {
    return { kind: 'ok', body: r.body };
  }
  const b = isObj(r.body) ? r.body : {};
  const message = `token exchange: ${str(b.error) || `HTTP ${r.status}`}${b.error_description ? `: ${str(b.error_description)}` : ''}`;
  if (r.status >= 500 || r.status === 429) return { kind: 'retry', message };
  if (b.error === 'invalid_grant' || b.error === 'invalid_client' || b.error === 'unauthorized_client') {
    return { kind: 'auth', message };
  }
  return { kind: 'fail', message: r.status < 300 ? `${message}: no access_token` : message };
}

/** One searchStream row as an AdRow; throws naming the field that does not parse. */
export function googleRow(raw: unknown, customer: string): AdRow {
  if (!isObj(raw)) throw new AdPlatformError('google', 'searchStream row is not an object');
  const o = (v: unknown): Record<string, unknown> => (isObj(v) ? v : {});
  const cust = o(raw.customer);
  const campaign = o(raw.campaign);
  const group = o(raw.adGroup);
  const ad = o(o(raw.adGroupAd).ad);
  const metrics = o(raw.metrics);
  const day = str(o(raw.segments).date);
  const where = `row of ad ${str(ad.id)} on ${day}`;
  const need = <T>(field: string, v: T | null): T => {
    if (v === null) throw new AdPlatformError('google', `${where}: ${field} does not parse`);
    return v;
  };
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) throw new AdPlatformError('google', `${where}: segments.date`);
  return {
    day,
    accountId: customer,
    campaignId: str(campaign.id),
    campaignName: str(campaign.name),
    adsetId: str(group.id),
    adsetName: str(group.name),
    adId: str(ad.id),
    adName: str(ad.name),
    spendMicros: need('metrics.costMicros', int64Micros((metrics.costMicros ?? '0') as string)),
    impressions: need('metrics.impressions', countOf(metrics.impressions ?? 0)),
    clicks: need('metrics.clicks', countOf(metrics.clicks ?? 0)),
    purchases: Math.round(Number(metrics.conversions ?? 0)) || 0,
    purchaseValueMicros: need('metrics.conversionsValue', decimalToMicros((metrics.conversionsValue ?? 0) as number)),
    currency: str(cust.currencyCode).toUpperCase(),
  };
}

export class GoogleAdsClient implements AdPlatformClient {
  constructor(
    private readonly config: AdPlatformConfig,
    private readonly http: HttpOptions = {},
  ) {}

  private async accessToken(c: GoogleCredentials): Promise<string> {
    const body = new URLSearchParams({
      grant_type: 'refresh_token',
      client_id: c.clientId,
      client_secret: c.clientSecret,
      refresh_token: c.refreshToken,
    });
    const res = await requestJson(
      'google',
      this.config,
      this.config.googleOauthTokenUrl,
      { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body },
      judgeOauth,
      this.http,
    );
    return str((res as Record<string, unknown>).access_token);
  }

  async pullDailyAdRows(account: AdAccountCredentials, fromDay: string, toDay: string): Promise<AdRow[]> {
    if (account.kind !== 'google') throw new Error(`google client given a ${account.kind} account`);
    const token = await this.accessToken(account);
    const customer = account.customer.replace(/-/g, '');
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      'developer-token': account.developerToken,
      'content-type': 'application/json',
    };
    if (account.loginCustomer) headers['login-customer-id'] = account.loginCustomer.replace(/-/g, '');
    const url = `${this.config.googleAdsApiUrl.replace(/\/$/, '')}/${this.config.googleAdsApiVersion}/customers/${customer}/googleAds:searchStream`;
    const body = await requestJson(
      'google',
      this.config,
      url,
      { method: 'POST', headers, body: JSON.stringify({ query: gaqlQuery(fromDay, toDay) }) },
      judgeGoogleAds,
      this.http,
    );
    if (!Array.isArray(body)) throw new AdPlatformError('google', 'searchStream response is not an array of batches');
    const rows: AdRow[] = [];
    for (const batch of body) {
      for (const raw of isObj(batch) && Array.isArray(batch.results) ? batch.results : [])
        rows.push(googleRow(raw, customer));
    }
    return rows;
  }
}
