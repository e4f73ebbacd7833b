/**
 * TikTok Business API (docs/product.md, Ad spend from the ad platforms): `GET /open_api/v1.3/report/integrated/get/`,
 * `report_type=BASIC`, `data_level=AUCTION_AD`, dimensions `ad_id` and `stat_time_day`, page paging up to
 * `page_info.total_page`, the `Access-Token` header. TikTok answers HTTP 200 with a `code`: 0 is success.
 * Purchases are `complete_payment` and their value `total_complete_payment_rate` (TikTok's name for the
 * total value of completed payments). The currency is the report's `currency` metric, else the advertiser's.
 */
import { countOf, decimalToMicros } from '../../domain/decimal-micros';
import { excerpt, isObj, requestJson, str, type HttpOptions, type RawResponse, type Verdict } from './http';
import {
  AdPlatformError,
  type AdAccountCredentials,
  type AdPlatformClient,
  type AdPlatformConfig,
  type AdRow,
} from './types';

const METRICS = [
  'campaign_id',
  'campaign_name',
  'adgroup_id',
  'adgroup_name',
  'ad_name',
  'currency',
  'spend',
  'impressions',
  'clicks',
  'complete_payment',
  'total_complete_payment_rate',
];

/** Too many requests (QPS or daily quota). */
const RATE_LIMIT_CODES = new Set([40100, 40133, 51021]);
/** Access token missing, invalid, expired or revoked; no permission on the advertiser. */
const AUTH_CODES = new Set([40001, 40102, 40104, 40105, 40106]);

export function judgeTiktok(r: RawResponse): Verdict {
  if (r.status >= 500 || r.status === 429) return { kind: 'retry', message: `HTTP ${r.status}: ${excerpt(r.text)}` };
  if (!isObj(r.body)) return { kind: 'fail', message: `HTTP ${r.status}: ${excerpt(r.text)}` };
  const code = Number(r.body.code);
  if (code === 0) return { kind: 'ok', body: r.body };
  const message = `${str(r.body.message) || 'error'} (code ${code})`;
  if (AUTH_CODES.has(code)) return { kind: 'auth', message };
  if (RATE_LIMIT_CODES.has(code) || code === 50000 || code === 50002) return { kind: 'retry', message };
  return { kind: 'fail', message };
}

export function tiktokRow(raw: unknown, advertiser: string, fallbackCurrency: string): AdRow {
  if (!isObj(raw) || !isObj(raw.dimensions) || !isObj(raw.metrics)) {
    throw new AdPlatformError('tiktok', 'report row has no dimensions or metrics');
  }
  const d = raw.dimensions;
  const m = raw.metrics;
  const where = `row of ad ${str(d.ad_id)}`;
  const money = (field: string): number => {
    const v = m[field];
    const micros = v === undefined || v === null ? 0 : decimalToMicros(v as string);
    if (micros === null)
      throw new AdPlatformError('tiktok', `${where}: ${field} ${JSON.stringify(v)} is not a decimal`);
    return micros;
  };
  const count = (field: string): number => {
    const v = m[field];
    const n = v === undefined || v === null ? 0 : countOf(v);
    if (n === null) throw new AdPlatformError('tiktok', `${where}: ${field} ${JSON.stringify(v)} is not a count`);
    return n;
  };
  const day = str(d.stat_time_day).slice(0, 10);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day))
    throw new AdPlatformError('tiktok', `${where}: stat_time_day ${JSON.stringify(d.stat_time_day)}`);
  return {
    day,
    accountId: advertiser,
    campaignId: str(m.campaign_id),
    campaignName: str(m.campaign_name),
    adsetId: str(m.adgroup_id),
    adsetName: str(m.adgroup_name),
    adId: str(d.ad_id),
    adName: str(m.ad_name),
    spendMicros: money('spend'),
    impressions: count('impressions'),
    clicks: count('clicks'),
    purchases: count('complete_payment'),
    purchaseValueMicros: money('total_complete_payment_rate'),
    currency: (str(m.currency) || fallbackCurrency).toUpperCase(),
  };
}

export class TiktokReportClient implements AdPlatformClient {
  constructor(
    private readonly config: AdPlatformConfig,
    private readonly http: HttpOptions = {},
  ) {}

  private base(): string {
    return `${this.config.tiktokApiUrl.replace(/\/$/, '')}/open_api/v1.3`;
  }

  private async advertiserCurrency(advertiser: string, token: string): Promise<string> {
    const params = new URLSearchParams({
      advertiser_ids: JSON.stringify([advertiser]),
      fields: JSON.stringify(['currency']),
    });
    const body = await requestJson(
      'tiktok',
      this.config,
      `${this.base()}/advertiser/info/?${params}`,
      { headers: { 'access-token': token } },
      judgeTiktok,
      this.http,
    );
    const list = isObj(body) && isObj(body.data) && Array.isArray(body.data.list) ? body.data.list : [];
    const first: unknown = list[0];
    return isObj(first) ? str(first.currency) : '';
  }

  async pullDailyAdRows(account: AdAccountCredentials, fromDay: string, toDay: string): Promise<AdRow[]> {
    if (account.kind !== 'tiktok') throw new Error(`tiktok client given a ${account.kind} account`);
    const raws: unknown[] = [];
    for (let page = 1, pages = 1; page <= pages; page++) {
      const params = new URLSearchParams({
        advertiser_id: account.advertiser,
        report_type: 'BASIC',
        data_level: 'AUCTION_AD',
        dimensions: JSON.stringify(['ad_id', 'stat_time_day']),
        metrics: JSON.stringify(METRICS),
        start_date: fromDay,
        end_date: toDay,
        page: String(page),
        page_size: '1000',
      });
      const body = await requestJson(
        'tiktok',
        this.config,
        `${this.base()}/report/integrated/get/?${params}`,
        { headers: { 'access-token': account.token } },
        judgeTiktok,
        this.http,
      );
      const data = isObj(body) && isObj(body.data) ? body.data : null;
      if (!data || !Array.isArray(data.list)) throw new AdPlatformError('tiktok', 'report response has no data.list');
      raws.push(...(data.list as unknown[]));
      pages = isObj(data.page_info) ? Number(data.page_info.total_page) || 1 : 1;
    }
    const needsCurrency = raws.some((r) => !(isObj(r) && isObj(r.metrics) && str(r.metrics.currency)));
    const fallback =
      needsCurrency && raws.length > 0 ? await this.advertiserCurrency(account.advertiser, account.token) : '';
    return raws.map((r) => tiktokRow(r, account.advertiser, fallback));
  }
}
