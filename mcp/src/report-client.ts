/**
 * A small typed client of the public reporting operations: posts the request bodies with the `ApiKey`
 * header and returns the envelope's `data`, or throws a ReportApiError carrying the API's own message
 * (`<field>: <what is wrong>`). The MCP tools reach the reports only through it, over both transports, so
 * a tool's figures are by construction the API's, under the same key, scoping and rate limits.
 */
import type {
  AdAnalysisListRequest,
  AdCustomerListData,
  AdCustomerListRequest,
  AdListData,
  CampaignOrderListData,
  CampaignOrderListRequest,
} from '../../contracts/src/ads';
import type { DataHealth } from '../../contracts/src/dashboard';
import type { SettingGoalsData, SettingModelsData } from '../../contracts/src/settings';
import { API_VERSION } from '../../contracts/src/reports';
import type {
  InfluencerListData,
  InfluencerListRequest,
  LandingPageSummary,
  LandingPageSummaryRequest,
  ProductAnalysisListData,
  ProductAnalysisRequest,
  WebAnalysisListData,
  WebAnalysisRequest,
} from '../../contracts/src/analytics';
import type {
  AttributionListData,
  AttributionSummary,
  AttributionTouchRequest,
  GetListRequest,
  GetListSumRequest,
  LinkAnalysisRequest,
  OrderEventRequest,
  OrderJourney,
  OrderTouchpoints,
  TrackingLinkListData,
} from '../../contracts/src/reports';

/** An attribution model as `get/setting-models` lists it (only the fields the tools use). */
export interface ModelSetting {
  code: string;
  name: string;
  is_default: boolean;
  /** `data_driven` only: which goals are fitted. */
  data_driven?: { goals: Array<{ goal: string; fitted: boolean }> };
}

export interface ReportClient {
  /** Base URL of the API, e.g. `https://attribution.example`. */
  readonly baseUrl: string;
  getList(body: GetListRequest): Promise<AttributionListData>;
  getListSum(body: GetListSumRequest): Promise<AttributionSummary>;
  orderJourney(body: OrderEventRequest): Promise<OrderJourney>;
  orderTouchpoints(body: AttributionTouchRequest): Promise<OrderTouchpoints[]>;
  trackingLinks(body: LinkAnalysisRequest): Promise<TrackingLinkListData>;
  webAnalysis(body: WebAnalysisRequest): Promise<WebAnalysisListData>;
  landingPageSummary(body: LandingPageSummaryRequest): Promise<LandingPageSummary>;
  productAnalysis(body: ProductAnalysisRequest): Promise<ProductAnalysisListData>;
  influencers(body: InfluencerListRequest): Promise<InfluencerListData>;
  /** `get/setting-models`; a ReportApiError with status 404 where the deployment has no such operation. */
  settingModels(): Promise<ModelSetting[]>;
  adReport(body: AdAnalysisListRequest): Promise<AdListData>;
  adCustomers(body: AdCustomerListRequest): Promise<AdCustomerListData>;
  campaignOrders(body: CampaignOrderListRequest): Promise<CampaignOrderListData>;
  modelSettings(): Promise<SettingModelsData>;
  goalSettings(): Promise<SettingGoalsData>;
  dataHealth(): Promise<DataHealth>;
}

/** A refused or failed call. `status` is the HTTP status, 0 when the API could not be reached. */
export class ReportApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ReportApiError';
  }
}

export interface ReportClientOptions {
  baseUrl: string;
  apiKey: string;
  /** Extra headers on every call (e.g. the request id of the MCP request, to correlate logs). */
  headers?: Record<string, string>;
  /** Per call, default 30 s. */
  timeoutMs?: number;
  /** How often a 429 is waited out (its Retry-After) before giving up, default 5. */
  rateLimitRetries?: number;
  /** For tests; default the global fetch. */
  fetch?: typeof fetch;
}

interface Envelope {
  code?: unknown;
  message?: unknown;
  data?: unknown;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function messageOf(status: number, text: string): string {
  try {
    const body = JSON.parse(text) as Envelope;
    if (typeof body.message === 'string' && body.message) return body.message;
  } catch {
    // not JSON: fall through to the raw text
  }
  return text.trim().slice(0, 300) || `HTTP ${status}`;
}

export function createReportClient(opts: ReportClientOptions): ReportClient {
  const baseUrl = opts.baseUrl.replace(/\/+$/, '');
  const doFetch = opts.fetch ?? fetch;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const retries = opts.rateLimitRetries ?? 5;

  async function post<T>(operation: string, body: object): Promise<T> {
    const url = `${baseUrl}/${API_VERSION}/api/${operation}`;
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await doFetch(url, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ApiKey: opts.apiKey, ...opts.headers },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (err) {
        // fetch hides the reason (ECONNREFUSED, a timeout, ...) in `cause`.
        const cause = (err as { cause?: { message?: unknown } } | null)?.cause?.message;
        const why = typeof cause === 'string' ? cause : err instanceof Error ? err.message : String(err);
        throw new ReportApiError(0, `could not reach the API at ${baseUrl}: ${why}`);
      }
      const text = await res.text();
      if (res.status === 429 && attempt < retries) {
        // Tool calls count against the key's limits like any other call: wait the limit out, as a client should.
        const after = Number(res.headers.get('retry-after'));
        await sleep(Number.isFinite(after) && after > 0 ? after * 1000 : 1000);
        continue;
      }
      if (res.status === 401) {
        throw new ReportApiError(401, `the API refused the key (${messageOf(res.status, text)})`);
      }
      if (res.status !== 200) throw new ReportApiError(res.status, messageOf(res.status, text));
      let envelope: Envelope;
      try {
        envelope = JSON.parse(text) as Envelope;
      } catch {
        throw new ReportApiError(502, `the API answered ${operation} with something other than JSON`);
      }
      return envelope.data as T;
    }
  }

  return {
    baseUrl,
    getList: (body) => post('all-attribution/get-list', body),
    getListSum: (body) => post('all-attribution/get-list-sum', body),
    orderJourney: (body) => post('order/event', body),
    orderTouchpoints: (body) => post('order/attribution-touch', body),
    trackingLinks: (body) => post('get/link-builder-analysis/list', body),
    webAnalysis: (body) => post('get/web-analysis/list', body),
    landingPageSummary: (body) => post('get/landing-page/event-summary', body),
    productAnalysis: (body) => post('get/product-analysis/list', body),
    influencers: (body) => post('get/influencer-analysis/list', body),
    settingModels: async () => (await post<{ records: ModelSetting[] }>('get/setting-models', {})).records,
    adReport: (body) => post('get/ad-analysis/list', body),
    adCustomers: (body) => post('get/ad-analysis/customer-list', body),
    campaignOrders: (body) => post('order/campaign-list', body),
    modelSettings: () => post('get/setting-models', {}),
    goalSettings: () => post('get/setting-goals', {}),
    dataHealth: () => post('get/data-health', {}),
  };
}
