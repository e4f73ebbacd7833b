/**
 * The MCP server, driven by the SDK's own Client over both transports against the running API on demo data:
 * - Streamable HTTP at `/mcp` of the API (stateless, `ApiKey` header, Origin checked);
 * - stdio, `node --import tsx mcp/src/stdio-main.ts` spawned with OA_BASE_URL / OA_API_KEY.
 * Over each: the tool list; every tool called, its records equal to the API operation called directly with the
 * request the tool reports it sent; the model comparison for one channel equal to one get-list per model;
 * defaults; bad arguments give a tool error naming the field; a wrong key is refused. And get/mcp-config.
 */
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { RULE_BASED_MODELS } from '../../contracts/src/attribution';
import type { AdRecord } from '../../contracts/src/ads';
import type { McpConfigData } from '../../contracts/src/mcp';
import type {
  AttributionListData,
  AttributionRecord,
  AttributionSummary,
  GetListRequest,
  GetListSumRequest,
  LinkAnalysisRequest,
  OrderEventRequest,
  OrderJourney,
  OrderTouchpoints,
  TrackingLinkListData,
} from '../../contracts/src/reports';
import type { Db } from '../../storage/db';
import { type DateRange, defaultDateRange, previousPeriod } from '../../mcp/src/defaults';
import { REPORT_TOOLS } from '../../mcp/src/tools';
import type { RunningApi } from '../../query-api/src/app/api';
import type { RunningPipeline } from '../../pipeline/src/app/daemon';
import { planDemo } from '../../scripts/demo/generate';
import type { DataHealth } from '../../contracts/src/dashboard';
import { pushDemo } from '../../scripts/demo/push';
import { pipelineCaughtUp } from '../support/stream';
import { createTestStore, startTestApi, startTestPipeline, testDb, type TestStore } from '../support/harness';

const ROOT = path.join(__dirname, '..', '..');
const DAY = 86_400_000;
const ALLOWED_ORIGIN = 'https://console.example';

let db: Db;
let api: RunningApi;
let pipeline: RunningPipeline;
let shop: TestStore;
let orderIds: string[] = [];

type Figures = Omit<AttributionRecord, 'campaign' | 'channel' | 'source' | 'platform' | 'medium' | 'landing_page'>;
interface Changes {
  current: Figures;
  previous: Figures;
  change: Figures;
  change_pct: Record<string, number | null>;
}
/** The structured content of each tool. */
type ReportOut = { request: GetListRequest } & AttributionListData;
type SummaryOut = { request: GetListSumRequest; summary: AttributionSummary };
interface CompareModelsOut {
  request: DateRange & { dimensions: string[]; goal: string; models: string[]; filter?: Record<string, string> };
  total: number;
  records: ({ channel?: string; source?: string; platform: string } & { by_model: Record<string, Figures> })[];
}
interface ComparePeriodsOut {
  request: GetListRequest;
  previous_period: DateRange;
  totals: Changes;
  records: ({ channel?: string; platform: string } & Changes)[];
}
type JourneyOut = { request: OrderEventRequest } & OrderJourney;
type TouchpointsOut = { request: { order_ids: string[] }; records: OrderTouchpoints[] };
type LinksOut = { request: LinkAnalysisRequest } & TrackingLinkListData;

interface Answer<T> {
  status: number;
  body: { code: number; message: string; data: T };
}

/** Calls an operation of the API directly, as any API client would (waiting out the per-key rate limit). */
async function direct<T>(operation: string, body: object, apiKey = shop.credentials.api_key): Promise<Answer<T>> {
  for (;;) {
    const res = await fetch(`${api.url}/v2-4-2/api/${operation}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ApiKey: apiKey },
      body: JSON.stringify(body),
    });
    if (res.status === 429) {
      await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? '1') * 1000));
      continue;
    }
    return { status: res.status, body: (await res.json()) as Answer<T>['body'] };
  }
}

async function directData<T>(operation: string, body: object): Promise<T> {
  const res = await direct<T>(operation, body);
  if (res.status !== 200) throw new Error(`${operation}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

beforeAll(async () => {
  db = testDb();
  api = await startTestApi({ MCP_ALLOWED_ORIGINS: `${ALLOWED_ORIGIN}, https://other.example` });
  pipeline = await startTestPipeline();
  shop = await createTestStore(db, { timezone: 'UTC' });
  // Twelve days of a small demo store up to yesterday: the default range (the last 7 full days) and the
  // period before it both hold data.
  const today = Math.floor(Date.now() / DAY) * DAY;
  const demo = planDemo({ events: 3000, seed: 16, start: new Date(today - 12 * DAY), days: 12 });
  await pushDemo({ apiUrl: api.url, ingestKey: shop.credentials.ingest_key, stream: demo });
  await pipelineCaughtUp(pipeline.nc, undefined, 120_000);
  orderIds = [...new Set(demo.orders.map((o) => String(o.id)))];
  expect(orderIds.length).toBeGreaterThan(10);
  const link = await directData<{ code: string }>('link-builder/create', {
    landing_page: 'https://shop.example/collections/new',
    campaign: 'spring_creator',
    source: 'instagram',
    medium: 'social',
    creator: 'kim',
  });
  expect(link.code).toBeTruthy();
}, 240_000);

afterAll(async () => {
  await pipeline?.stop();
  await api?.stop();
  await db?.close();
});

function httpClientTransport(apiKey: string): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(`${api.url}/mcp`), { requestInit: { headers: { ApiKey: apiKey } } });
}

interface StdioRun {
  transport: StdioClientTransport;
  stderr: () => string;
  errors: Error[];
}

function stdioClientTransport(apiKey: string): StdioRun {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'mcp/src/stdio-main.ts'],
    cwd: ROOT,
    env: { OA_BASE_URL: api.url, OA_API_KEY: apiKey, LOG_LEVEL: 'info' },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const errors: Error[] = [];
  return { transport, stderr: () => stderr, errors };
}

async function connect(
  transport: StreamableHTTPClientTransport | StdioClientTransport,
  errors?: Error[],
): Promise<Client> {
  const client = new Client({ name: 'open-attribution-test', version: '1.0.0' });
  await client.connect(transport, { timeout: 60_000 });
  // Anything but protocol on stdout (a stray log line) would surface here.
  if (errors) client.onerror = (err) => errors.push(err);
  return client;
}

const text = (result: CallToolResult): string =>
  result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

// /mcp allows 20 requests per second per key: the tests call tools at most every 60 ms, as a client should.
let lastCallAt = 0;
async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  const wait = lastCallAt + 60 - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  lastCallAt = Date.now();
  return (await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as CallToolResult;
}

async function callOk<T>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const result = await call(client, name, args);
  if (result.isError) throw new Error(`${name} answered an error: ${text(result)}`);
  expect(text(result)).toMatch(/\|.*\|/);
  return result.structuredContent as T;
}

const figures = (r: AttributionRecord): Figures => {
  const { campaign: _c, channel: _ch, source: _s, platform: _p, medium: _m, landing_page: _l, ...rest } = r;
  return rest;
};

describe.each([
  ['Streamable HTTP at /mcp', 'http'],
  ['stdio (npm run mcp)', 'stdio'],
] as const)('the MCP server over %s', (_label, kind) => {
  let client: Client;
  let run: StdioRun | null = null;

  beforeAll(async () => {
    if (kind === 'http') {
      client = await connect(httpClientTransport(shop.credentials.api_key));
    } else {
      run = stdioClientTransport(shop.credentials.api_key);
      client = await connect(run.transport, run.errors);
    }
  }, 90_000);
  afterAll(async () => {
    await client?.close();
  });

  it('lists the read-only tools with their input and output schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(REPORT_TOOLS.map((t) => t.name));
    expect(tools.map((t) => t.name)).toEqual([
      'attribution_report',
      'attribution_summary',
      'compare_models',
      'compare_periods',
      'order_journey',
      'order_touchpoints',
      'tracking_links_report',
      'web_funnel',
      'landing_page_summary',
      'product_report',
      'influencer_report',
      'ads_report',
      'ad_customers',
      'campaign_orders',
      'models_and_goals',
      'data_health',
    ]);
    for (const tool of tools) {
      expect(tool.annotations?.readOnlyHint).toBe(true);
      expect(tool.description?.length).toBeGreaterThan(80);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
    }
    const report = tools.find((t) => t.name === 'attribution_report')!;
    expect(Object.keys(report.inputSchema.properties ?? {})).toEqual([
      'start_date',
      'end_date',
      'dimensions',
      'model',
      'goal',
      'page',
      'page_size',
      'orders',
    ]);
  });

  it('attribution_report with no argument: the last 7 full days, model last, goal purchase, equal to get-list', async () => {
    const out = await callOk<ReportOut>(client, 'attribution_report');
    expect(out.request).toEqual({
      ...defaultDateRange(new Date()),
      dimensions: ['channel'],
      model: 'last',
      goal: 'purchase',
      page: 1,
      page_size: 20,
    });
    const { request, ...data } = out;
    expect(data).toEqual(await directData('all-attribution/get-list', request));
    expect(data.records.length).toBeGreaterThan(1);
    expect(data.records.some((r: AttributionRecord) => r.conversions > 0 && r.spend > 0)).toBe(true);
  });

  it('attribution_report passes the request body through: dimensions, model, goal, paging, sort', async () => {
    const args = {
      start_date: new Date(Date.now() - 12 * DAY).toISOString().slice(0, 10),
      dimensions: ['channel', 'source', 'campaign'],
      model: 'linear',
      goal: 'purchase',
      page: 2,
      page_size: 5,
      orders: [{ column: 'conversion_value', order: 'desc' }],
    };
    const out = await callOk<ReportOut>(client, 'attribution_report', args);
    expect(out.request).toEqual({ ...args, end_date: defaultDateRange(new Date()).end_date });
    const { request, ...data } = out;
    expect(data).toEqual(await directData('all-attribution/get-list', request));
    expect(data.records).toHaveLength(5);
  });

  it('attribution_summary equals get-list-sum', async () => {
    const out = await callOk<SummaryOut>(client, 'attribution_summary', { model: 'position', goal: 'add_to_cart' });
    expect(out.request).toMatchObject({ model: 'position', goal: 'add_to_cart', dimensions: ['channel'] });
    expect(out.summary).toEqual(await directData('all-attribution/get-list-sum', out.request));
    expect(out.summary.conversions).toBeGreaterThan(0);
  });

  it('compare_models for one channel equals one get-list per model, every model side by side', async () => {
    const range = defaultDateRange(new Date());
    const top = await directData<AttributionListData>('all-attribution/get-list', {
      ...range,
      dimensions: ['channel'],
      model: 'last',
      goal: 'purchase',
      page: 1,
      page_size: 1,
    });
    const channel = top.records[0]!.channel;
    const out = await callOk<CompareModelsOut>(client, 'compare_models', {
      dimensions: ['channel'],
      filter: { channel },
    });
    expect(out.request).toEqual({
      ...range,
      dimensions: ['channel'],
      goal: 'purchase',
      models: [...RULE_BASED_MODELS],
      filter: { channel },
    });
    // One row per platform of the channel (the API keeps paid and organic traffic apart).
    expect(out.records.length).toBeGreaterThanOrEqual(1);
    for (const row of out.records) {
      expect(row.channel).toBe(channel);
      expect(Object.keys(row.by_model)).toEqual([...RULE_BASED_MODELS]);
    }
    const platforms = new Set<string>();
    for (const model of RULE_BASED_MODELS) {
      const all = await directData<AttributionListData>('all-attribution/get-list', {
        ...range,
        dimensions: ['channel'],
        model,
        goal: 'purchase',
        page: 1,
        page_size: 100,
      });
      const mine = all.records.filter((r) => r.channel === channel);
      for (const record of mine) {
        platforms.add(record.platform);
        const row = out.records.find((r) => r.platform === record.platform)!;
        expect(row.by_model[model]).toEqual(figures(record));
      }
      for (const row of out.records.filter((r) => !mine.some((m) => m.platform === r.platform))) {
        expect(Object.values(row.by_model[model]!).every((v) => v === 0)).toBe(true);
      }
    }
    // Every row of the tool is a row of some model's report; a model that does not credit it shows zeros.
    expect(out.records.map((r) => r.platform).sort()).toEqual([...platforms].sort());
  });

  it('compare_models without a filter joins every row of every model', async () => {
    const out = await callOk<CompareModelsOut>(client, 'compare_models', {
      dimensions: ['channel', 'source'],
      models: ['first', 'last'],
      page_size: 100,
    });
    const sum = (model: 'first' | 'last', metric: 'conversions' | 'conversion_value') =>
      out.records.reduce((s, r) => s + r.by_model[model]![metric], 0);
    expect(out.records).toHaveLength(out.total); // the demo's channel x source rows fit one page
    expect(out.total).toBeGreaterThan(3);
    for (const model of ['first', 'last'] as const) {
      const totals = await directData<AttributionSummary>('all-attribution/get-list-sum', {
        ...out.request,
        model,
        models: undefined,
      });
      expect(sum(model, 'conversions')).toBeCloseTo(totals.conversions, 5);
      expect(sum(model, 'conversion_value')).toBeCloseTo(totals.conversion_value, 2);
    }
  });

  it('compare_periods gives both periods and the changes, equal to the API over each period', async () => {
    const out = await callOk<ComparePeriodsOut>(client, 'compare_periods', {
      dimensions: ['channel'],
      model: 'linear',
    });
    const range = defaultDateRange(new Date());
    const previous = previousPeriod(range);
    expect(out.previous_period).toEqual(previous);
    const sumBody = { ...range, dimensions: ['channel'], model: 'linear', goal: 'purchase' };
    const current = await directData<AttributionSummary>('all-attribution/get-list-sum', sumBody);
    const before = await directData<AttributionSummary>('all-attribution/get-list-sum', { ...sumBody, ...previous });
    expect(out.totals.current).toEqual(current);
    expect(out.totals.previous).toEqual(before);
    expect(out.totals.change.conversions).toBeCloseTo(current.conversions - before.conversions, 6);
    // The demo's first days fall in the previous period (see beforeAll): it has value to change from.
    expect(before.conversion_value).toBeGreaterThan(0);
    expect(out.totals.change_pct.conversion_value).toBeCloseTo(
      (current.conversion_value - before.conversion_value) / before.conversion_value,
      4,
    );
    const page = await directData<AttributionListData>('all-attribution/get-list', out.request);
    const prevRows = await directData<AttributionListData>('all-attribution/get-list', {
      ...out.request,
      ...previous,
      page: 1,
      page_size: 100,
    });
    expect(out.records.map((r) => [r.channel, r.platform])).toEqual(page.records.map((r) => [r.channel, r.platform]));
    for (const [i, r] of out.records.entries()) {
      expect(r.current).toEqual(figures(page.records[i]!));
      const prev = prevRows.records.find((p) => p.channel === r.channel && p.platform === r.platform);
      if (prev) expect(r.previous).toEqual(figures(prev));
      else expect(r.previous.conversions).toBe(0);
    }
  });

  it('order_journey equals order/event', async () => {
    const out = await callOk<JourneyOut>(client, 'order_journey', { order_id: orderIds[3], page_size: 10 });
    expect(out.request).toEqual({ order_id: orderIds[3], page: 1, page_size: 10 });
    const { request, ...data } = out;
    expect(data).toEqual(await directData('order/event', request));
    expect(data.events.length).toBeGreaterThan(0);
  });

  it('order_touchpoints equals order/attribution-touch, unknown orders with null touchpoints', async () => {
    const ids = [...orderIds.slice(0, 5), 'no-such-order'];
    const out = await callOk<TouchpointsOut>(client, 'order_touchpoints', { order_ids: ids });
    expect(out.records).toEqual(await directData('order/attribution-touch', { order_ids: ids }));
    expect(out.records.at(-1)).toEqual({ order_id: 'no-such-order', first_touchpoint: null, last_touchpoint: null });
    expect(out.records.filter((r) => r.first_touchpoint !== null).length).toBeGreaterThan(0);
  });

  it('tracking_links_report equals get/link-builder-analysis/list', async () => {
    const out = await callOk<LinksOut>(client, 'tracking_links_report', {});
    const { request, ...data } = out;
    expect(request).toEqual({ ...defaultDateRange(new Date()), page: 1, page_size: 20 });
    expect(data).toEqual(await directData('get/link-builder-analysis/list', request));
    expect(data.records[0]!.campaign).toBe('spring_creator');
  });

  it('ads_report equals get/ad-analysis/list, with ad names and spend from the demo ad-spend rows', async () => {
    const out = await callOk<{ request: Record<string, unknown>; records: AdRecord[]; total: number }>(
      client,
      'ads_report',
      { dimensions: ['platform', 'campaign', 'ad'], model: 'time_decay', page_size: 100 },
    );
    const { request, ...data } = out;
    expect(request).toEqual({
      ...defaultDateRange(new Date()),
      dimensions: ['platform', 'campaign', 'ad'],
      model: 'time_decay',
      goal: 'purchase',
      page: 1,
      page_size: 100,
    });
    expect(data).toEqual(await directData('get/ad-analysis/list', request));
    // Every platform of the demo, named at ad level, with conversions and spend on the same row.
    expect(new Set(data.records.map((r) => r.platform))).toEqual(new Set(['google', 'facebook', 'tiktok']));
    // Clicks that carry a click id only have no ad ids: their row has no ad; the others are named.
    const named = data.records.filter((r) => r.ad !== '');
    expect(named.every((r) => r.ad_id !== '' && r.campaign_id !== '')).toBe(true);
    const conversions = (rows: AdRecord[]) => rows.reduce((a, r) => a + r.conversions, 0);
    expect(conversions(named)).toBeGreaterThan(conversions(data.records.filter((r) => r.ad === '')));
    expect(data.records.some((r) => r.conversions > 0 && r.spend > 0)).toBe(true);
  });

  it('ad_customers and campaign_orders equal their operations and add up to the report row', async () => {
    const [top] = (
      await directData<{ records: AdRecord[] }>('get/ad-analysis/list', {
        ...defaultDateRange(new Date()),
        dimensions: ['campaign'],
        model: 'linear',
        goal: 'purchase',
        page: 1,
        page_size: 1,
      })
    ).records;
    const filters = [{ key: 'campaign_id', operator: 'eq', value: top!.campaign_id }];
    const customers = await callOk<{
      request: Record<string, unknown>;
      total: number;
      records: Array<{ credit: number }>;
    }>(client, 'ad_customers', { model: 'linear', filters, page_size: 100 });
    const { request, ...data } = customers;
    expect(data).toEqual(await directData('get/ad-analysis/customer-list', request));
    expect(data.records.reduce((a, r) => a + r.credit, 0)).toBeCloseTo(top!.conversions, 5);

    const orders = await callOk<{ request: Record<string, unknown>; total: number }>(client, 'campaign_orders', {
      campaign: 'brand_search',
      model: 'first',
    });
    const { request: ordersRequest, ...ordersData } = orders;
    expect(ordersRequest).toMatchObject({ campaign: 'brand_search', model: 'first', goal: 'purchase' });
    expect(ordersData).toEqual(await directData('order/campaign-list', ordersRequest));
  });

  it('data_health equals get/data-health (the minute-by-minute clock aside)', async () => {
    const out = await callOk<DataHealth>(client, 'data_health');
    const direct = await directData<DataHealth>('get/data-health', {});
    const { now: _n1, events_per_minute: perMinute, ...rest } = out;
    const { now: _n2, events_per_minute: _p2, ...directRest } = direct;
    expect(rest).toEqual(directRest);
    expect(perMinute).toHaveLength(60);
    expect(rest.last_event_by_source.find((s) => s.source === 'storefront_events')?.total).toBeGreaterThan(0);
  });

  it('models_and_goals lists the six models (data_driven with its fit) and the four goals', async () => {
    const out = await callOk<{
      models: Array<{ code: string; is_default: boolean; data_driven?: { goals: Array<{ fitted: boolean }> } }>;
      goals: Array<{ code: string }>;
    }>(client, 'models_and_goals');
    expect(out.models.map((m) => m.code)).toEqual(['first', 'last', 'linear', 'position', 'time_decay', 'data_driven']);
    // This store is not fitted: the data-driven record says so for every goal.
    expect(out.models.at(-1)?.data_driven?.goals.map((g) => g.fitted)).toEqual([false, false, false, false]);
    expect(out.models.find((m) => m.is_default)?.code).toBe('last');
    expect(out.goals.map((g) => g.code)).toEqual([
      'purchase',
      'add_to_cart',
      'checkout_start',
      'payment_info_submitted',
    ]);
    expect(out).toEqual({
      models: (await directData<{ records: unknown[] }>('get/setting-models', {})).records,
      goals: (await directData<{ goals: unknown[] }>('get/setting-goals', {})).goals,
    });
  });

  it.each([
    ['web_funnel', 'get/web-analysis/list', { dimensions: ['source', 'medium'] }],
    ['landing_page_summary', 'get/landing-page/event-summary', { landing_page: '/*' }],
    ['product_report', 'get/product-analysis/list', { page_size: 5 }],
    ['influencer_report', 'get/influencer-analysis/list', {}],
  ])('%s equals %s', async (name, operation, args) => {
    const out = await callOk<{ request: object } & Record<string, unknown>>(client, name, args);
    const { request, ...data } = out;
    expect(data).toEqual(await directData(operation, request));
    if (name === 'landing_page_summary') expect(data.visitors).toBeGreaterThan(0);
    else expect((data.records as unknown[]).length).toBeGreaterThan(0);
  });

  it.each([
    ['ads_report', { dimensions: ['adset'] }, /dimensions/],
    ['ads_report', { filters: [{ key: 'ad', operator: 'in', value: [] }] }, /filters/],
    ['campaign_orders', {}, /campaign/],
    ['attribution_report', { page_size: 500 }, /page_size/],
    ['attribution_report', { model: 'newest' }, /at model/],
    ['attribution_report', { start_date: '1 March' }, /must be a date YYYY-MM-DD at start_date/],
    ['attribution_report', { dimension: ['channel'] }, /Unrecognized key: "dimension"/],
    [
      'compare_models',
      { dimensions: ['channel'], filter: { source: 'google' } },
      /^filter\.source: is not one of the requested dimensions/,
    ],
    ['order_touchpoints', { order_ids: [] }, /order_ids/],
    // Checked by the API: its message, naming the field, comes back as the tool error.
    [
      'attribution_summary',
      { start_date: '2026-03-10', end_date: '2026-03-01' },
      /^end_date: must be after start_date/,
    ],
    ['compare_periods', { start_date: '2026-02-30', end_date: '2026-03-05' }, /^start_date: must be a calendar date/],
    ['order_journey', { order_id: 'no-such-order' }, /^order_id: /],
  ])('%s %j is a tool error naming the field', async (name, args, message) => {
    const result = await call(client, name, args);
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(message);
  });

  it('goes through the public operations: a tool call is a request to get-list, counted like any other', async () => {
    const count = async (): Promise<number> => {
      const metrics = await (await fetch(`${api.url}/metrics`)).text();
      const line = metrics
        .split('\n')
        .find(
          (l) =>
            l.startsWith('http_request_duration_seconds_count{') &&
            l.includes('all-attribution/get-list"') &&
            l.includes('status="200"'),
        );
      return line ? Number(line.split(' ').at(-1)) : 0;
    };
    const before = await count();
    await callOk(client, 'attribution_report', { dimensions: ['medium'] });
    expect(await count()).toBe(before + 1);
  });

  if (kind === 'stdio') {
    it('logs to stderr only: stdout carried nothing but the protocol', () => {
      expect(run!.stderr()).toContain('MCP server on stdio');
      expect(run!.errors).toEqual([]);
    });
  }
});

describe('a wrong key', () => {
  it('is refused over HTTP with 401, before any MCP processing', async () => {
    const err = await connect(httpClientTransport('ak_not-a-key')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StreamableHTTPError);
    expect((err as StreamableHTTPError).code).toBe(401);
    expect((err as Error).message).toContain('ApiKey: unknown or revoked credential');
    const missing = await fetch(`${api.url}/mcp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({ code: 401, message: 'ApiKey: header is missing', data: null });
  });

  it('over stdio: the tool call returns an error saying the key was refused', async () => {
    const run = stdioClientTransport('ak_not-a-key');
    const client = await connect(run.transport, run.errors);
    try {
      const result = await call(client, 'attribution_report');
      expect(result.isError).toBe(true);
      expect(text(result)).toBe('the API refused the key (ApiKey: unknown or revoked credential)');
    } finally {
      await client.close();
    }
  }, 90_000);
});

describe('/mcp over HTTP', () => {
  const initialize = (headers: Record<string, string>) =>
    fetch(`${api.url}/mcp`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        ApiKey: shop.credentials.api_key,
        ...headers,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
      }),
    });

  it('checks Origin: absent, its own or an allowed one pass; another is 403', async () => {
    const none = await initialize({});
    expect(none.status).toBe(200);
    expect(((await none.json()) as { result: { serverInfo: { name: string } } }).result.serverInfo.name).toBe(
      'open-attribution',
    );
    expect(none.headers.get('mcp-session-id')).toBeNull(); // stateless
    expect((await initialize({ Origin: api.url })).status).toBe(200);
    expect((await initialize({ Origin: ALLOWED_ORIGIN })).status).toBe(200);
    const evil = await initialize({ Origin: 'https://evil.example' });
    expect(evil.status).toBe(403);
    expect(((await evil.json()) as { message: string }).message).toMatch(
      /^Origin: https:\/\/evil\.example is not allowed/,
    );
  });

  it('answers malformed requests with a 4xx (an empty batch: 202), never a 500', async () => {
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(`${api.url}/mcp`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          ApiKey: shop.credentials.api_key,
          ...headers,
        },
        body,
      });
    const statuses = await Promise.all([
      post('{not json'),
      post('[]'),
      post('"x"'),
      post('{}'),
      post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'nope' } })),
      post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), { Accept: 'text/html' }),
      post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), { 'Content-Type': 'text/plain' }),
    ]).then((answers) => answers.map((a) => a.status));
    expect(statuses.map((st, i) => (st < 300 || (st >= 400 && st < 500) ? 'ok' : `${i}: ${st}`))).toEqual(
      statuses.map(() => 'ok'),
    );
    expect(statuses.filter((s) => s >= 400).length).toBeGreaterThanOrEqual(5);
    expect((await fetch(`${api.url}/healthz`)).status).toBe(200);
  });

  it('answers POST only (stateless: no stream to open, no session to end)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${api.url}/mcp`, { method, headers: { ApiKey: shop.credentials.api_key } });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
  });
});

describe('get/mcp-config', () => {
  it('answers the endpoint, the tools and client blocks with a placeholder, never the key', async () => {
    const res = await direct<McpConfigData>('get/mcp-config', {});
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data).toMatchObject({ server_url: `${api.url}/mcp`, transport: 'streamable-http', auth_header: 'ApiKey' });
    expect(data.tools).toEqual(REPORT_TOOLS.map((t) => ({ name: t.name, description: t.description })));
    expect(Object.keys(data.clients)).toEqual(['claude_desktop', 'cursor', 'vscode', 'stdio']);
    expect(data.clients.cursor.config).toEqual({
      mcpServers: { open_attribution: { url: `${api.url}/mcp`, headers: { ApiKey: '<your API key>' } } },
    });
    expect(data.clients.vscode.config.servers.open_attribution).toEqual({
      type: 'http',
      url: `${api.url}/mcp`,
      headers: { ApiKey: '${input:oa_api_key}' },
    });
    expect(data.clients.stdio.config.mcpServers.open_attribution.env).toEqual({
      OA_BASE_URL: api.url,
      OA_API_KEY: '<your API key>',
    });
    expect(data.clients.claude_desktop.config.mcpServers.open_attribution.args).toContain(`${api.url}/mcp`);
    expect(JSON.stringify(data)).not.toContain(shop.credentials.api_key);
    expect((await direct('get/mcp-config', {}, 'ak_not-a-key')).status).toBe(401);
  });
});
