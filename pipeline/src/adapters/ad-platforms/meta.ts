/**
 * Meta Marketing API Insights (docs/product.md, Ad spend from the ad platforms): `GET /{version}/act_<id>/insights`
 * with `level=ad`, `time_increment=1`, cursor paging through `paging.next`. A long range (the backfill) runs as an
 * asynchronous report, as Meta advises for large reports: `POST .../insights` starts it, `GET /{report_run_id}` is
 * polled until `Job Completed` at 100 %, and `GET /{report_run_id}/insights` pages its rows the same way. Numbers
 * arrive as decimal strings.
 * Purchases: Meta reports the same purchases under several action types, so one is taken, never a sum: the
 * first present of `omni_purchase` (deduplicated across web, app and offline), `offsite_conversion.fb_pixel_purchase`,
 * `purchase`; the value comes from `action_values` under the same type.
 */
import { setTimeout as wait } from 'node:timers/promises';
import { countOf, decimalToMicros } from '../../domain/decimal-micros';
import { excerpt, isObj, requestJson, str, type HttpOptions, type RawResponse, type Verdict } from './http';
import {
  AdPlatformError,
  type AdAccountCredentials,
  type AdPlatformClient,
  type AdPlatformConfig,
  type AdRow,
} from './types';

export const META_PURCHASE_ACTIONS = ['omni_purchase', 'offsite_conversion.fb_pixel_purchase', 'purchase'] as const;

const FIELDS = [
  'account_id',
  'account_currency',
  'campaign_id',
  'campaign_name',
  'adset_id',
  'adset_name',
  'ad_id',
  'ad_name',
  'spend',
  'impressions',
  'clicks',
  'actions',
  'action_values',
  'date_start',
].join(',');

/** Error codes of Meta's throttling (application, account, ads-insights and business-use-case limits). */
const RATE_LIMIT_CODES = new Set([
  4, 17, 32, 613, 80000, 80001, 80002, 80003, 80004, 80005, 80006, 80008, 80009, 80014,
]);
/** OAuthException codes: invalid, expired or revoked token, missing permission. */
const AUTH_CODES = new Set([102, 190, 200, 10]);

/** Minutes until access returns, from the business-use-case usage header, as milliseconds. */
export function metaRegainMs(headers: Headers): number | undefined {
  const raw = headers.get('x-business-use-case-usage');
  if (!raw) return undefined;
  try {
    const parsed = JSON.parse(raw) as Record<string, Array<{ estimated_time_to_regain_access?: number }>>;
    const minutes = Math.max(
      0,
      ...Object.values(parsed).flatMap((list) => list.map((u) => Number(u.estimated_time_to_regain_access) || 0)),
    );
    return minutes > 0 ? minutes * 60_000 : undefined;
  } catch {
    return undefined;
  }
}

export function judgeMeta(r: RawResponse): Verdict {
  const error = isObj(r.body) && isObj(r.body.error) ? r.body.error : null;
  if (r.status >= 200 && r.status < 300 && !error) return { kind: 'ok', body: r.body };
  if (!error) {
    const message = `HTTP ${r.status}: ${excerpt(r.text)}`;
    return r.status >= 500 || r.status === 429 ? { kind: 'retry', message } : { kind: 'fail', message };
  }
  const code = Number(error.code);
  const message = `${str(error.message) || 'error'} (code ${code}${error.error_subcode ? `/${str(error.error_subcode)}` : ''})`;
  if (AUTH_CODES.has(code)) return { kind: 'auth', message };
  if (RATE_LIMIT_CODES.has(code)) return { kind: 'retry', message, delayMs: metaRegainMs(r.headers) };
  if (r.status >= 500 || code === 1 || code === 2 || error.is_transient === true) return { kind: 'retry', message };
  return { kind: 'fail', message };
}

/** One Insights row as an AdRow; throws naming the field that does not parse. */
export function metaRow(raw: unknown, account: string): AdRow {
  if (!isObj(raw)) throw new AdPlatformError('meta', 'insights row is not an object');
  const money = (field: string, v: unknown): number => {
    const m = v === undefined ? 0 : decimalToMicros(str(v));
    if (m === null)
      throw new AdPlatformError(
        'meta',
        `insights row ${str(raw.ad_id)}: ${field} ${JSON.stringify(v)} is not a decimal`,
      );
    return m;
  };
  const count = (field: string, v: unknown): number => {
    const n = v === undefined ? 0 : countOf(v);
    if (n === null)
      throw new AdPlatformError('meta', `insights row ${str(raw.ad_id)}: ${field} ${JSON.stringify(v)} is not a count`);
    return n;
  };
  const purchaseType = META_PURCHASE_ACTIONS.find((t) => actionOf(raw.actions, t) !== undefined);
  const day = str(raw.date_start);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day))
    throw new AdPlatformError('meta', `insights row ${str(raw.ad_id)}: date_start ${JSON.stringify(raw.date_start)}`);
  return {
    day,
    accountId: account,
    campaignId: str(raw.campaign_id),
    campaignName: str(raw.campaign_name),
    adsetId: str(raw.adset_id),
    adsetName: str(raw.adset_name),
    adId: str(raw.ad_id),
    adName: str(raw.ad_name),
    spendMicros: money('spend', raw.spend),
    impressions: count('impressions', raw.impressions),
    clicks: count('clicks', raw.clicks),
    purchases: purchaseType ? Math.round(Number(actionOf(raw.actions, purchaseType))) : 0,
    purchaseValueMicros: purchaseType ? money('action_values', actionOf(raw.action_values, purchaseType)) : 0,
    currency: str(raw.account_currency).toUpperCase(),
  };
}

function actionOf(list: unknown, type: string): string | undefined {
  if (!Array.isArray(list)) return undefined;
  const hit = list.find((a) => isObj(a) && a.action_type === type) as Record<string, unknown> | undefined;
  return hit ? str(hit.value) : undefined;
}

export class MetaInsightsClient implements AdPlatformClient {
  constructor(
    private readonly config: AdPlatformConfig,
    private readonly http: HttpOptions = {},
  ) {}

  async pullDailyAdRows(account: AdAccountCredentials, fromDay: string, toDay: string): Promise<AdRow[]> {
    if (account.kind !== 'meta') throw new Error(`meta client given a ${account.kind} account`);
    const params = new URLSearchParams({
      level: 'ad',
      time_increment: '1',
      time_range: JSON.stringify({ since: fromDay, until: toDay }),
      fields: FIELDS,
      limit: '500',
    });
    const root = `${this.config.metaGraphUrl.replace(/\/$/, '')}/${this.config.metaApiVersion}`;
    const insights = `${root}/${encodeURIComponent(account.account)}/insights`;
    const headers = { authorization: `Bearer ${account.token}` };
    const days = (Date.parse(`${toDay}T00:00:00Z`) - Date.parse(`${fromDay}T00:00:00Z`)) / 86_400_000 + 1;
    let url: string | null =
      days >= this.config.metaAsyncMinDays
        ? await this.asyncReport(root, insights, params, headers)
        : `${insights}?${params}`;
    const rows: AdRow[] = [];
    while (url) {
      const body = await requestJson('meta', this.config, url, { headers }, judgeMeta, this.http);
      if (!isObj(body) || !Array.isArray(body.data))
        throw new AdPlatformError('meta', 'insights response has no data array');
      for (const raw of body.data) rows.push(metaRow(raw, account.account));
      const next: unknown = isObj(body.paging) ? body.paging.next : undefined;
      url = typeof next === 'string' && next ? next : null;
    }
    return rows;
  }

  /** Starts an asynchronous report and waits until it is done; the URL of its first page of rows. */
  private async asyncReport(
    root: string,
    insights: string,
    params: URLSearchParams,
    headers: Record<string, string>,
  ): Promise<string> {
    const started = await requestJson(
      'meta',
      this.config,
      insights,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
        body: `${params}`,
      },
      judgeMeta,
      this.http,
    );
    const id = isObj(started) ? str(started.report_run_id) : '';
    if (!/^\d+$/.test(id))
      throw new AdPlatformError('meta', `async report: no report_run_id in ${excerpt(JSON.stringify(started))}`);
    const sleep = this.http.sleep ?? wait;
    const { metaAsyncPollMs: pollMs, metaAsyncTimeoutMs: timeoutMs } = this.config;
    const deadline = Date.now() + timeoutMs;
    for (let waited = 0; ; waited += pollMs) {
      const run = await requestJson(
        'meta',
        this.config,
        `${root}/${id}?fields=async_status,async_percent_completion`,
        { headers },
        judgeMeta,
        this.http,
      );
      const status = isObj(run) ? str(run.async_status) : '';
      const percent = isObj(run) ? Number(run.async_percent_completion) : NaN;
      if (status === 'Job Completed' && percent === 100) return `${root}/${id}/insights?limit=500`;
      if (status === 'Job Failed' || status === 'Job Skipped')
        throw new AdPlatformError('meta', `async report ${id}: ${status}`);
      // Not done: give up when the next wait would pass the time allowed (counted in waits and on the clock).
      if (waited + pollMs > timeoutMs || Date.now() + pollMs > deadline)
        throw new AdPlatformError(
          'meta',
          `async report ${id} not done after ${Math.round(waited / 1000)} s (${status || 'no status'}, ${percent} %)`,
        );
      await sleep(pollMs);
    }
  }
}
