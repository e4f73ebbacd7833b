/// <reference lib="dom" />
/**
 * The dashboard in a real headless Chromium (Debian's, driven by playwright-core) against the real API, NATS,
 * pipeline and PostgreSQL, on a small demo store (docs/product.md, Dashboard): sign-in with the read-only
 * dashboard key; every view renders without console errors; the overview's totals are get-list-sum's; switching
 * the model changes the channel figures to get-list's under that model; a channel without ads opens a campaign's
 * orders (order/campaign-list) and a paid one drills down through the ad report's campaigns, ad sets and ads to
 * the customers behind an ad, each level equal to the API's; the model comparison shows every model
 * with the API's figures; an order's journey timeline is order/event's; the funnel, landing pages, products and
 * influencers show the analytics operations' figures; the dashboard key cannot create a link, push an event or
 * read customers (403) while the API key creates and copies one, for a creator too; first meaningful paint
 * under 1 s. Screenshots of each view go to test-artifacts/dashboard (git-ignored).
 */
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import type { Page } from 'playwright-core';
import type { Db } from '../../storage/db';
import type { RunningApi } from '../../query-api/src/app/api';
import type { RunningPipeline } from '../../pipeline/src/app/daemon';
import { planDemo } from '../../scripts/demo/generate';
import { pushDemo } from '../../scripts/demo/push';
import { launchBrowser, removeProfile, type TestBrowser } from '../support/browser';
import { createTestStore, startTestApi, startTestPipeline, testDb, type TestStore, waitFor } from '../support/harness';

const ARTIFACTS = path.join(__dirname, '..', '..', 'test-artifacts', 'dashboard');
const V = '/v2-4-2/api';
const DAY = 86_400_000;
const EVENTS = 2500;
const day = (t: number): string => new Date(t).toISOString().slice(0, 10);
// The demo's month ends today; the dashboard's default range is the last 30 days up to today (UTC store).
const RANGE = { start_date: day(Date.now() - 29 * DAY), end_date: day(Date.now() + DAY) };

let db: Db;
let api: RunningApi;
let pipeline: RunningPipeline;
let shop: TestStore;
let browser: TestBrowser;
let page: Page;
const consoleErrors: string[] = [];

/** The API's answer, with the API key (its own rate limit, apart from the dashboard's key). */
async function apiCall<T>(op: string, body: unknown = {}): Promise<T> {
  const res = await request(api.url)
    .post(`${V}/${op}`)
    .set('ApiKey', shop.credentials.api_key)
    .send(body as object);
  if (res.status !== 200) throw new Error(`${op}: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as { data: T }).data;
}

/** A figure as the dashboard prints it, back to a number: "1,234.50" -> 1234.5, "2.5×" -> 2.5. */
const parseFigure = (text: string): number => Number(text.replace(/[,×\s]/g, ''));
const money = (x: number): number => Math.round(x * 100) / 100;

/**
 * The names a store owner knows for the API's channel slugs: GA4's default channel groups, written here apart
 * from the dashboard's own table so that a wrong or missing name there fails. `""` is "(none)".
 */
const GA4_CHANNEL_NAMES: Record<string, string> = {
  direct: 'Direct',
  cross_network: 'Cross-network',
  paid_shopping: 'Paid Shopping',
  paid_search: 'Paid Search',
  paid_social: 'Paid Social',
  paid_video: 'Paid Video',
  display: 'Display',
  paid_other: 'Paid Other',
  organic_shopping: 'Organic Shopping',
  organic_social: 'Organic Social',
  organic_video: 'Organic Video',
  organic_search: 'Organic Search',
  referral: 'Referral',
  email: 'Email',
  affiliates: 'Affiliates',
  audio: 'Audio',
  sms: 'SMS',
  mobile_push: 'Mobile Push Notifications',
  unassigned: 'Unassigned',
};
function channelShown(slug: string): string {
  if (slug === '') return '(none)';
  expect(GA4_CHANNEL_NAMES).toHaveProperty([slug]);
  return GA4_CHANNEL_NAMES[slug]!;
}

async function screenshot(name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

async function openView(view: string): Promise<void> {
  await page.click(`nav a[data-view="${view}"]`);
  await page.waitForSelector(`[data-testid="view-${view}"]`);
  await page.waitForFunction(() => document.querySelectorAll('[aria-busy="true"]').length === 0);
}

/** Clicks the first row of a table whose cells pass `match`. */
async function clickRow(testid: string, match: (cells: string[]) => boolean): Promise<void> {
  const i = (await tableRows(testid)).findIndex(match);
  expect(i).toBeGreaterThanOrEqual(0);
  await page.click(`[data-testid="${testid}"] tbody tr:nth-child(${i + 1})`);
}

async function tableRows(testid: string): Promise<string[][]> {
  return page.$$eval(`[data-testid="${testid}"] tbody tr`, (rows) =>
    rows.map((r) => Array.from(r.querySelectorAll('td')).map((td: HTMLTableCellElement) => td.textContent ?? '')),
  );
}

interface Summary {
  conversions: number;
  conversion_value: number;
  spend: number;
  roas: number;
  new_lead_conversions: number;
  net_profit: number;
}

interface AdRecord {
  channel: string;
  platform: string;
  campaign: string;
  ad_set: string;
  ad: string;
  campaign_id: string;
  ad_set_id: string;
  ad_id: string;
  spend: number;
  clicks: number;
  conversions: number;
  conversion_value: number;
}

interface WebSummary {
  unique_users: number;
  new_users: number;
  total_sessions: number;
  product_view_users: number;
  atc_users: number;
  checkout_users: number;
  payment_info_users: number;
  purchase_users: number;
  purchases: number;
  revenue: number;
  spend: number;
}

interface LandingSummary {
  visitors: number;
  sessions: number;
  events: Array<{ event: string; users: number; count: number }>;
}

interface ProductSummary {
  revenue: number;
  gross_profit: number;
  purchases: number;
  units: number;
  views: number;
}

beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  db = testDb();
  api = await startTestApi();
  pipeline = await startTestPipeline();
  shop = await createTestStore(db, { name: 'Demo store' });
  const demo = planDemo({ events: EVENTS, seed: 15, start: new Date(Date.now() - 29 * DAY), days: 30 });
  await pushDemo({ apiUrl: api.url, ingestKey: shop.credentials.ingest_key, stream: demo });
  const count = (sql: string) => () =>
    db.query<{ n: string }>('test.count', sql, [shop.store.store_id]).then((r) => Number(r[0]!.n));
  await waitFor(count('select count(*) as n from raw_events where store_id = $1'), (n) => n === EVENTS, 120_000, 200);
  const orders = new Set(demo.orders.map((o) => o.id)).size;
  await waitFor(count('select count(*) as n from shop_orders where store_id = $1'), (n) => n === orders, 60_000, 200);
  const spendRows = new Set(
    demo.adSpend.map((r) => [r.date, r.platform, r.account_id, r.campaign_id, r.adset_id, r.ad_id].join('|')),
  ).size;
  await waitFor(count('select count(*) as n from ad_spend where store_id = $1'), (n) => n === spendRows, 60_000, 200);

  browser = await launchBrowser();
  page = await browser.context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(e.message));
}, 240_000);

afterAll(async () => {
  await browser?.close();
  if (browser) removeProfile(browser.profile);
  await pipeline?.stop();
  await api?.stop();
  await db?.close();
});

describe('the dashboard on a demo store', () => {
  it('is served at /dashboard with revalidation, and its assets with a year of caching', async () => {
    const html = await request(api.url).get('/dashboard').expect(200);
    expect(html.headers['cache-control']).toBe('no-cache');
    expect(html.headers['content-security-policy']).toContain("default-src 'self'");
    const js = /src="(\/dashboard\/assets\/app-[0-9a-f]+\.js)"/.exec(html.text)![1]!;
    const asset = await request(api.url).get(js).expect(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    await request(api.url).get('/dashboard/assets/app-000000000000.js').expect(404);
  });

  it('refuses an unknown key at sign-in and signs in with the dashboard key', async () => {
    await page.goto(`${api.url}/dashboard`);
    await page.fill('input[name="key"]', 'dk_unknown');
    await page.click('button[type="submit"]');
    await page.waitForSelector('.signin [role="alert"]');
    expect(await page.textContent('.signin [role="alert"]')).toContain('unknown or revoked');
    // The browser logs the refused request itself; that one is expected.
    expect(consoleErrors.splice(0)).toEqual([expect.stringMatching(/status of 401/)]);
    await screenshot('sign-in');
    await page.fill('input[name="key"]', shop.credentials.dashboard_key);
    await page.click('button[type="submit"]');
    await page.waitForSelector('[data-testid="view-overview"]');
  });

  it('paints the overview with its figures after a reload, the session kept', async () => {
    // How soon it paints is a figure of `npm run bench -- dashboard` (Chromium's own clock), not a bound here.
    await page.reload();
    await page.waitForFunction(
      () => document.querySelector('[data-testid="kpi-conversion_value"] .kpi-value') !== null,
      undefined,
      { polling: 'raf' },
    );
    expect(await page.$('input[name="key"]')).toBeNull();
    expect(await page.textContent('[data-testid="kpi-conversion_value"] .kpi-value')).toMatch(/\d/);
  });

  it('shows get-list-sum’s totals on the overview, with the daily chart', async () => {
    await page.waitForSelector('[data-testid="daily-chart"] canvas');
    await page.waitForFunction(() => document.querySelectorAll('[aria-busy="true"]').length === 0);
    const sum = await apiCall<Summary>('all-attribution/get-list-sum', {
      ...RANGE,
      dimensions: ['channel'],
      model: 'last',
      goal: 'purchase',
    });
    expect(sum.conversions).toBeGreaterThan(10);
    for (const key of [
      'conversion_value',
      'conversions',
      'spend',
      'roas',
      'new_lead_conversions',
      'net_profit',
    ] as const) {
      const text = await page.textContent(`[data-testid="kpi-${key}"] .kpi-value`);
      expect({ key, value: parseFigure(text!) }).toEqual({ key, value: money(sum[key]) });
    }
    expect(await page.textContent('[data-testid="basis"]')).toMatch(
      /model Last touch · goal purchase · .* lookback|data as of/,
    );
    await screenshot('overview');
  });

  it('shows the channels of get-list, and the figures of another model when the model changes', async () => {
    await openView('channels');
    const byModel = async (model: string) =>
      (
        await apiCall<{ records: Array<{ channel: string; conversion_value: number }> }>('all-attribution/get-list', {
          ...RANGE,
          dimensions: ['channel'],
          model,
          goal: 'purchase',
          page: 1,
          page_size: 100,
          orders: [{ column: 'conversion_value', order: 'desc' }],
        })
      ).records.map((r) => [channelShown(r.channel), money(r.conversion_value)]);
    const shown = async () => (await tableRows('channels-table')).map((r) => [r[0], parseFigure(r[2]!)]);
    const last = await byModel('last');
    // The demo's channels by the names a store owner knows, never their slugs.
    expect(last.map((r) => r[0])).toEqual(expect.arrayContaining(['Paid Search', 'Paid Social', 'Organic Search']));
    expect(await shown()).toEqual(last);
    await page.selectOption('[data-testid="model"]', 'first');
    const first = await byModel('first');
    expect(first).not.toEqual(last);
    await waitFor(shown, (rows) => JSON.stringify(rows) === JSON.stringify(first));
  });

  it('opens a channel without ads to its campaigns and the orders credited to one, as order/campaign-list', async () => {
    const model = await page.inputValue('[data-testid="model"]');
    const body = { ...RANGE, model, goal: 'purchase' };
    const paid = new Set(
      (
        await apiCall<{ records: AdRecord[] }>('get/ad-analysis/list', {
          ...body,
          dimensions: ['channel'],
          page: 1,
          page_size: 100,
        })
      ).records.map((r) => r.channel),
    );
    expect(paid.size).toBeGreaterThan(0);
    const byCampaign = await apiCall<{ records: Array<{ channel: string; campaign: string; conversions: number }> }>(
      'all-attribution/get-list',
      {
        ...body,
        dimensions: ['channel', 'campaign'],
        page: 1,
        page_size: 100,
        orders: [{ column: 'conversion_value', order: 'desc' }],
      },
    );
    const target = byCampaign.records.find((r) => !paid.has(r.channel) && r.campaign !== '' && r.conversions > 0)!;
    expect(target).toBeDefined();
    await clickRow('channels-table', (r) => r[0] === channelShown(target.channel));
    await page.waitForSelector('[data-testid="campaigns-table"] tbody tr');
    expect(await page.textContent('[data-testid="view-channels"] h2')).toBe(
      `Campaigns of ${channelShown(target.channel)}`,
    );
    expect((await tableRows('campaigns-table')).map((r) => r[0])).toEqual(
      byCampaign.records.filter((r) => r.channel === target.channel).map((r) => r.campaign || '(none)'),
    );
    await clickRow('campaigns-table', (r) => r[0] === target.campaign);
    await page.waitForSelector('[data-testid="campaign-orders-table"] tbody tr');
    await page.waitForFunction(() => document.querySelectorAll('[aria-busy="true"]').length === 0);
    const orders = await apiCall<{ total: number; records: Array<{ order_id: string; attributed_value: number }> }>(
      'order/campaign-list',
      { ...body, channel: target.channel, campaign: target.campaign, page: 1, page_size: 20 },
    );
    expect(orders.total).toBeGreaterThan(0);
    expect((await tableRows('campaign-orders-table')).map((r) => [r[1], parseFigure(r[4]!)])).toEqual(
      orders.records.map((r) => [r.order_id, money(r.attributed_value)]),
    );
    await screenshot('channels');
  });

  it('drills from a paid channel down to an ad and the customers behind it, as the ad report answers', async () => {
    const model = await page.inputValue('[data-testid="model"]');
    const body = { ...RANGE, model, goal: 'purchase' };
    // The path to the ad with the most conversions that has an id.
    const ads = await apiCall<{ records: AdRecord[] }>('get/ad-analysis/list', {
      ...body,
      dimensions: ['channel', 'campaign', 'ad_set', 'ad'],
      page: 1,
      page_size: 100,
      orders: [{ column: 'conversions', order: 'desc' }],
    });
    const target = ads.records.find((r) => r.ad_id !== '' && r.conversions > 0)!;
    expect(target).toBeDefined();
    /** A level's table against list-sum (its first row) and list under the filters, then the target's row opened. */
    const level = async (
      name: 'campaign' | 'ad_set' | 'ad',
      dimensions: string[],
      filters: Array<{ key: string; operator: string; value: string }>,
      isTarget: (r: AdRecord) => boolean,
    ): Promise<AdRecord> => {
      await page.waitForSelector(`[data-testid="ad-${name}-table"] tbody tr`);
      await page.waitForFunction(() => document.querySelectorAll('[aria-busy="true"]').length === 0);
      const [sum, list] = await Promise.all([
        apiCall<AdRecord>('get/ad-analysis/list-sum', { ...body, dimensions, filters }),
        apiCall<{ total: number; records: AdRecord[] }>('get/ad-analysis/list', {
          ...body,
          dimensions,
          filters,
          page: 1,
          page_size: 100,
          orders: [{ column: 'conversion_value', order: 'desc' }],
        }),
      ]);
      const figures = (r: AdRecord): number[] => [
        money(r.spend),
        r.clicks,
        money(r.conversions),
        money(r.conversion_value),
      ];
      // Name | (platform) | spend | impressions | clicks | ctr | conversions | revenue | roas | cpa
      const at = name === 'campaign' ? 2 : 1;
      const shown = (await tableRows(`ad-${name}-table`)).map((r) => [
        r[0],
        ...[at, at + 2, at + 4, at + 5].map((i) => parseFigure(r[i]!)),
      ]);
      expect(shown).toEqual([
        [`All ${{ campaign: 'campaigns', ad_set: 'ad sets', ad: 'ads' }[name]}`, ...figures(sum)],
        ...list.records.map((r) => [
          r[name] || `(unnamed${r[`${name}_id`] ? ` ${r[`${name}_id`]}` : ''})`,
          ...figures(r),
        ]),
      ]);
      const i = list.records.findIndex(isTarget);
      expect(i).toBeGreaterThanOrEqual(0);
      await page.click(`[data-testid="ad-${name}-table"] tbody tr:nth-child(${i + 2})`);
      return list.records[i]!;
    };
    await clickRow('channels-table', (r) => r[0] === channelShown(target.channel));
    const filters = [{ key: 'channel', operator: 'eq', value: target.channel }];
    const campaign = await level(
      'campaign',
      ['platform', 'campaign'],
      filters,
      (r) => r.campaign_id === target.campaign_id && r.campaign === target.campaign,
    );
    filters.push(
      { key: 'platform', operator: 'eq', value: campaign.platform },
      { key: 'campaign_id', operator: 'eq', value: campaign.campaign_id },
      { key: 'campaign', operator: 'eq', value: campaign.campaign },
    );
    await level('ad_set', ['ad_set'], filters, (r) => r.ad_set_id === target.ad_set_id && r.ad_set === target.ad_set);
    filters.push(
      { key: 'ad_set_id', operator: 'eq', value: target.ad_set_id },
      { key: 'ad_set', operator: 'eq', value: target.ad_set },
    );
    await level('ad', ['ad'], filters, (r) => r.ad_id === target.ad_id && r.ad === target.ad);
    filters.push(
      { key: 'ad_id', operator: 'eq', value: target.ad_id },
      { key: 'ad', operator: 'eq', value: target.ad },
    );
    await page.waitForSelector('[data-testid="ad-customers-table"] tbody tr');
    await page.waitForFunction(() => document.querySelectorAll('[aria-busy="true"]').length === 0);
    const customers = await apiCall<{ total: number; records: Array<{ order_id: string; conversion_value: number }> }>(
      'get/ad-analysis/customer-list',
      { ...body, dimensions: ['ad'], filters, page: 1, page_size: 20 },
    );
    expect(customers.total).toBeGreaterThan(0);
    expect((await tableRows('ad-customers-table')).map((r) => [r[1], parseFigure(r[5]!)])).toEqual(
      customers.records.map((r) => [r.order_id, money(r.conversion_value)]),
    );
    await screenshot('channels-ads');
  });

  it('compares every model with the API’s figures', async () => {
    await openView('models');
    const rows = await tableRows('models-table');
    // The models get/setting-models lists, time decay among them.
    expect(rows.map((r) => r[0])).toEqual(['First touch', 'Last touch', 'Linear', 'Position based', 'Time decay']);
    for (const [i, model] of ['first', 'last', 'linear', 'position', 'time_decay'].entries()) {
      const sum = await apiCall<Summary>('all-attribution/get-list-sum', {
        ...RANGE,
        dimensions: ['channel'],
        model,
        goal: 'purchase',
      });
      expect(parseFigure(rows[i]![2]!)).toBe(money(sum.conversion_value));
      expect(parseFigure(rows[i]![1]!)).toBe(money(sum.conversions));
    }
    const channelRows = await tableRows('models-channels-table');
    expect(channelRows.length).toBeGreaterThan(2);
    const names = new Set([...Object.values(GA4_CHANNEL_NAMES), '(none)']);
    for (const r of channelRows) expect(names).toContain(r[0]);
    await screenshot('models');
  });

  it('lists the recent orders and shows a journey timeline equal to order/event', async () => {
    await openView('orders');
    const list = await apiCall<{ total: number; records: Array<{ order_id: string }> }>('get/order/list', {
      ...RANGE,
      page: 1,
      page_size: 20,
    });
    const rows = await tableRows('orders-table');
    expect(rows.map((r) => r[0])).toEqual(list.records.map((r) => r.order_id));
    // First and last touch as order/attribution-touch answers them, the channel by its name.
    const touches = await apiCall<
      Array<{
        order_id: string;
        first_touchpoint: { channel: string; source: string; medium: string; campaign: string } | null;
        last_touchpoint: { channel: string; source: string; medium: string; campaign: string } | null;
      }>
    >('order/attribution-touch', { order_ids: list.records.map((r) => r.order_id) });
    const line = (t: { channel: string; source: string; medium: string; campaign: string } | null): string =>
      t ? `${channelShown(t.channel)} · ${t.source} / ${t.medium}${t.campaign ? ` · ${t.campaign}` : ''}` : '–';
    const byOrder = new Map(touches.map((t) => [t.order_id, t]));
    expect(rows.map((r) => [r[4], r[5]])).toEqual(
      list.records.map((o) => [
        line(byOrder.get(o.order_id)!.first_touchpoint),
        line(byOrder.get(o.order_id)!.last_touchpoint),
      ]),
    );
    await page.click('[data-testid="orders-table"] tbody tr');
    await page.waitForSelector('[data-testid="journey"] li');
    await page.waitForFunction(() => document.querySelectorAll('[aria-busy="true"]').length === 0);
    const journey = await apiCall<{ events: Array<{ event_id: string; event_at: string; event_type: string }> }>(
      'order/event',
      { order_id: list.records[0]!.order_id, page: 1, page_size: 100 },
    );
    const shown = await page.$$eval('[data-testid="journey"] li', (items) =>
      items.map((li) => ({
        event_id: li.getAttribute('data-event-id'),
        event_at: li.querySelector('time')?.textContent,
        event_type: li.querySelector('.event-type')?.textContent,
      })),
    );
    expect(shown).toEqual(
      journey.events.map((e) => ({ event_id: e.event_id, event_at: e.event_at, event_type: e.event_type })),
    );
    expect(shown.length).toBeGreaterThan(0);
    await screenshot('orders');
  });

  it('shows data health as get/data-health reports it', async () => {
    await openView('health');
    const health = await apiCall<{ order_capture: { rate: number; tracked: number; purchases: number } }>(
      'get/data-health',
    );
    expect(health.order_capture.purchases).toBeGreaterThan(0);
    expect(await page.textContent('[data-testid="capture-rate"] .kpi-change')).toBe(
      `${health.order_capture.tracked} of ${health.order_capture.purchases} orders tracked`,
    );
    expect(await tableRows('sources-table')).toHaveLength(5);
    await screenshot('health');
  });

  it('shows the web funnel of get/web-analysis, the whole funnel first, and a landing page’s events', async () => {
    await openView('funnel');
    const figures = (r: WebSummary): Array<string | number> => [
      r.unique_users,
      r.new_users,
      r.total_sessions,
      r.product_view_users,
      r.atc_users,
      r.checkout_users,
      r.payment_info_users,
      r.purchase_users,
      money(r.purchases),
      money(r.revenue),
      money(r.spend),
    ];
    // The table's columns, less the percentages.
    const shown = (row: string[]): Array<string | number> => [
      row[0]!,
      ...[1, 2, 3, 5, 6, 7, 8, 9, 11, 12, 13].map((i) => parseFigure(row[i]!)),
    ];
    const [sum, byChannel] = await Promise.all([
      apiCall<WebSummary>('get/web-analysis/list-sum', RANGE),
      apiCall<{ records: Array<WebSummary & { channel: string; landing_page: string }> }>('get/web-analysis/list', {
        ...RANGE,
        dimensions: ['channel'],
        page: 1,
        page_size: 100,
      }),
    ]);
    expect(sum.unique_users).toBeGreaterThan(10);
    expect(sum.purchase_users).toBeGreaterThan(0);
    expect((await tableRows('funnel-table')).map(shown)).toEqual([
      ['All sessions', ...figures(sum)],
      ...byChannel.records.map((r) => [channelShown(r.channel), ...figures(r)]),
    ]);
    expect(await page.$$eval('[data-testid="funnel-steps"] .step', (s) => s.length)).toBe(6);

    const pages = await apiCall<{ records: Array<WebSummary & { landing_page: string }> }>('get/web-analysis/list', {
      ...RANGE,
      dimensions: ['landing_page'],
      page: 1,
      page_size: 20,
    });
    const landing = await tableRows('landing-table');
    expect(landing.map((r) => [r[0], parseFigure(r[1]!), parseFigure(r[2]!)])).toEqual(
      pages.records.map((r) => [r.landing_page || '(none)', r.unique_users, r.total_sessions]),
    );
    const first = pages.records.findIndex((r) => r.landing_page.startsWith('/'));
    await page.click(`[data-testid="landing-table"] tbody tr:nth-child(${first + 1})`);
    const events = async (landingPage: string) => {
      await page.waitForFunction(
        (lp) => document.querySelector('[data-testid="landing-summary"]')?.textContent?.startsWith(`${lp}:`),
        landingPage,
      );
      await page.waitForFunction(() => document.querySelectorAll('[aria-busy="true"]').length === 0);
      const summary = await apiCall<LandingSummary>('get/landing-page/event-summary', {
        ...RANGE,
        landing_page: landingPage,
      });
      expect(summary.visitors).toBeGreaterThan(0);
      expect(await page.textContent('[data-testid="landing-summary"]')).toBe(
        `${landingPage}: ${summary.visitors.toLocaleString('en-US')} visitors in ${summary.sessions.toLocaleString('en-US')} sessions`,
      );
      expect(
        (await tableRows('landing-events-table')).map((r) => [r[0], parseFigure(r[1]!), parseFigure(r[2]!)]),
      ).toEqual(summary.events.map((e) => [e.event, e.users, e.count]));
    };
    await events(pages.records[first]!.landing_page);
    await page.fill('[data-testid="landing-input"]', '/products/*');
    await page.press('[data-testid="landing-input"]', 'Enter');
    await events('/products/*');
    await screenshot('funnel');
  });

  it('shows the products of get/product-analysis, with a product’s trend and credited channels', async () => {
    await openView('products');
    const [sum, list] = await Promise.all([
      apiCall<ProductSummary>('get/product-analysis/list-sum', RANGE),
      apiCall<{ total: number; records: Array<ProductSummary & { product_id: string; title: string }> }>(
        'get/product-analysis/list',
        { ...RANGE, page: 1, page_size: 20 },
      ),
    ]);
    expect(sum.revenue).toBeGreaterThan(0);
    for (const key of ['revenue', 'gross_profit', 'purchases', 'units', 'views'] as const) {
      const text = await page.textContent(`[data-testid="product-kpi-${key}"] .kpi-value`);
      expect({ key, value: parseFigure(text!) }).toEqual({ key, value: money(sum[key]) });
    }
    const rows = await tableRows('products-table');
    expect(rows.map((r) => [r[0], parseFigure(r[5]!), parseFigure(r[6]!), parseFigure(r[7]!)])).toEqual(
      list.records.map((r) => [r.title || r.product_id, r.purchases, r.units, money(r.revenue)]),
    );
    // The first product is open: its trend, and its purchases' credits under the selected model.
    const top = list.records[0]!;
    expect(await page.textContent('[data-testid="product-name"]')).toBe(top.title || top.product_id);
    await page.waitForSelector('[data-testid="product-trend"] canvas');
    const model = await page.inputValue('[data-testid="model"]');
    const channels = await apiCall<{
      records: Array<{ channel: string; conversions: number; conversion_value: number }>;
    }>('get/product-analysis/channel-list', {
      ...RANGE,
      product_ids: [top.product_id],
      dimensions: ['channel'],
      model,
      page: 1,
      page_size: 100,
      orders: [{ column: 'conversion_value', order: 'desc' }],
    });
    expect(channels.records.length).toBeGreaterThan(0);
    expect(
      (await tableRows('product-channels-table')).map((r) => [r[0], parseFigure(r[1]!), parseFigure(r[2]!)]),
    ).toEqual(channels.records.map((r) => [channelShown(r.channel), money(r.conversions), money(r.conversion_value)]));
    await screenshot('products');
  });

  it('cannot create a link, push an event or read customers with the dashboard key (403)', async () => {
    await openView('links');
    await page.fill('input[name="landing_page"]', 'https://shop.example/collections/summer');
    await page.fill('input[name="campaign"]', 'summer');
    await page.fill('input[name="source"]', 'blog');
    await page.fill('input[name="medium"]', 'referral');
    await page.click('[data-testid="link-form"] button[type="submit"]');
    await page.waitForSelector('[data-testid="link-error"]');
    expect(await page.textContent('[data-testid="link-error"]')).toMatch(/^ApiKey: a dashboard key is read-only/);
    const statuses = await page.evaluate(async (key) => {
      const events = await fetch('/v2-4-2/api/events', {
        method: 'POST',
        headers: { 'X-Ingest-Key': key, 'Content-Type': 'application/json' },
        body: '[]',
      });
      const customers = await fetch('/v2-4-2/api/customers', { headers: { Authorization: `Bearer ${key}` } });
      return [events.status, customers.status];
    }, shop.credentials.dashboard_key);
    expect(statuses).toEqual([403, 403]);
    // The three refused requests, as the browser logs them; expected.
    expect(consoleErrors.splice(0)).toEqual(Array(3).fill(expect.stringMatching(/status of 403/)));
    const links = await db.query('test.links', 'select 1 from tracking_links where store_id = $1', [
      shop.store.store_id,
    ]);
    expect(links).toHaveLength(0);
  });

  it('creates a link with the API key and copies it', async () => {
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: api.url });
    await page.click('button.link'); // sign out
    await page.fill('input[name="key"]', shop.credentials.api_key);
    await page.click('button[type="submit"]');
    await page.waitForSelector('[data-testid="view-links"]');
    await page.fill('input[name="landing_page"]', 'https://shop.example/collections/summer');
    await page.fill('input[name="campaign"]', 'summer');
    await page.fill('input[name="source"]', 'blog');
    await page.fill('input[name="medium"]', 'referral');
    await page.fill('input[name="creator"]', 'jo');
    await page.click('[data-testid="link-form"] button[type="submit"]');
    await page.waitForSelector('[data-testid="created-link"] code');
    const link = await page.textContent('[data-testid="created-link"] code');
    expect(link).toMatch(/^https:\/\/go\.test\/\w+$/);
    await page.click('[data-testid="created-link"] button');
    await page.waitForFunction(
      () => document.querySelector('[data-testid="created-link"] button')?.textContent === 'Copied',
    );
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);
    await page.waitForFunction(
      (l) =>
        Array.from(document.querySelectorAll('[data-testid="links-table"] td')).some(
          (td: Element) => td.textContent === l,
        ),
      link,
    );
    await screenshot('links');
  });

  it('creates a creator’s link, copies it, and shows the creators and their links as the API does', async () => {
    await openView('influencers');
    await page.fill('input[name="landing_page"]', 'https://shop.example/products/tee');
    await page.fill('input[name="campaign"]', 'mia-summer');
    await page.fill('input[name="source"]', 'instagram');
    await page.fill('input[name="medium"]', 'influencer');
    await page.fill('input[name="creator"]', 'mia');
    await page.click('[data-testid="link-form"] button[type="submit"]');
    await page.waitForSelector('[data-testid="created-link"] code');
    const link = (await page.textContent('[data-testid="created-link"] code'))!;
    await page.click('[data-testid="created-link"] button');
    await page.waitForFunction(
      () => document.querySelector('[data-testid="created-link"] button')?.textContent === 'Copied',
    );
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);
    // A visitor follows the link: its click counts for the creator.
    await request(api.url).get(new URL(link).pathname).expect(302);
    await waitFor(
      () => db.query('test.clicks', 'select 1 from link_clicks where store_id = $1', [shop.store.store_id]),
      (r) => r.length === 1,
    );
    await openView('links');
    await openView('influencers');
    const creators = await apiCall<{ records: Array<Record<string, number> & { creator: string }> }>(
      'get/influencer-analysis/list',
      { ...RANGE, page: 1, page_size: 100 },
    );
    expect(creators.records.map((r) => [r.creator, r.links_count, r.clicks])).toEqual([
      ['jo', 1, 0],
      ['mia', 1, 1],
    ]);
    expect((await tableRows('creators-table')).map((r) => [r[0], ...r.slice(1, 8).map(parseFigure)])).toEqual(
      creators.records.map((r) => [
        r.creator,
        r.links_count,
        r.clicks,
        r.total_users,
        r.new_users,
        money(r.add_to_cart!),
        money(r.purchase!),
        money(r.purchase_conversion_value!),
      ]),
    );
    await page.click('[data-testid="creators-table"] tbody tr:nth-child(2)');
    await page.waitForSelector('[data-testid="creator-links-table"] tbody tr');
    const links = await apiCall<{ records: Array<{ tracking_link: string; clicks: number }> }>(
      'get/influencer-analysis/link-list',
      { ...RANGE, creator: 'mia', page: 1, page_size: 100 },
    );
    expect((await tableRows('creator-links-table')).map((r) => [r[0], r[1], r[2], parseFigure(r[4]!)])).toEqual(
      links.records.map((r) => [r.tracking_link, 'Copy', 'https://shop.example/products/tee', r.clicks]),
    );
    expect(links.records.map((r) => r.tracking_link)).toEqual([link]);
    await page.evaluate(() => navigator.clipboard.writeText(''));
    await page.click('[data-testid="creator-links-table"] tbody tr button');
    await page.waitForFunction(() => navigator.clipboard.readText().then((t) => t !== ''));
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);
    await screenshot('influencers');
  });

  it('fits a phone screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    // The overview, and the views with layouts of their own beyond tables (which scroll inside their frame).
    for (const view of ['overview', 'funnel', 'products']) {
      await openView(view);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect({ view, overflow: Math.max(0, overflow) }).toEqual({ view, overflow: 0 });
      await screenshot(`${view}-phone`);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('logged no console error in any view', () => {
    expect(consoleErrors).toEqual([]);
  });
});
