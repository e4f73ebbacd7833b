/**
 * The analytics operations end to end (HTTP ingestion, JetStream, the pipeline, PostgreSQL, the query API) on
 * a small hand-worked store: the web funnel, the event summary of a landing page, product analytics and
 * influencer links, with their contracts (every field and type, limits, errors naming the field, tenant
 * isolation, 5 requests per second). The reconciliation finds no drift in the analytics views.
 */
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { planDemo } from '../../scripts/demo/generate';
import { pushDemo } from '../../scripts/demo/push';
import { pipelineCaughtUp } from '../support/stream';
import type { Db } from '../../storage/db';
import type { RunningApi } from '../../query-api/src/app/api';
import type { RunningPipeline } from '../../pipeline/src/app/daemon';
import { reconcileStore } from '../../pipeline/src/operations/reconcile';
import { MAINTENANCE_STEPS } from '../../pipeline/src/adapters/pg-view-maintainer';
import { STOREFRONT_EVENT_NAMES } from '../../contracts/src/events';
import {
  createTestStore,
  pacer,
  startTestApi,
  startTestPipeline,
  testDb,
  type TestStore,
  waitFor,
} from '../support/harness';
import {
  addToCart,
  checkoutCompleted,
  checkoutStarted,
  pageView,
  paymentInfo,
  productView,
  send,
} from '../support/journeys';

let db: Db;
let api: RunningApi;
let pipeline: RunningPipeline;
let shop: TestStore;
let other: TestStore;
let linkCode: string;

const DAY = 86_400_000;
const base = Date.parse('2026-03-02T00:00:00Z');
const at = (days: number, hh: number, mm = 0) => new Date(base + days * DAY + (hh * 60 + mm) * 60_000).toISOString();
const day = (days: number) => new Date(base + days * DAY).toISOString().slice(0, 10);
const GOOGLE = 'https://shop.example/?utm_source=google&utm_medium=cpc&utm_campaign=brand';
const TEE = '8950316581081';
const SOCKS = '8950316613849';

const paced = pacer();
function post(path: string, body: unknown, key = shop.credentials.api_key) {
  return paced(path, () =>
    request(api.url)
      .post(path)
      .set('ApiKey', key)
      .send(body as object),
  );
}
const WEB = '/v2-4-2/api/get/web-analysis/list';
const WEB_SUM = '/v2-4-2/api/get/web-analysis/list-sum';
const LANDING = '/v2-4-2/api/get/landing-page/event-summary';
const PRODUCTS = '/v2-4-2/api/get/product-analysis/list';
const PRODUCTS_SUM = '/v2-4-2/api/get/product-analysis/list-sum';
const CHANNELS = '/v2-4-2/api/get/product-analysis/channel-list';
const TREND = '/v2-4-2/api/get/product-analysis/trend';
const CREATORS = '/v2-4-2/api/get/influencer-analysis/list';
const CREATOR_LINKS = '/v2-4-2/api/get/influencer-analysis/link-list';

beforeAll(async () => {
  db = testDb();
  api = await startTestApi();
  pipeline = await startTestPipeline();
  shop = await createTestStore(db, { timezone: 'UTC', lookbackDays: 30 });
  other = await createTestStore(db, { timezone: 'UTC', lookbackDays: 30 });
  const id = shop.store.store_id;

  // A creator's link without a medium: the redirect says utm_medium=influencer. Clicked once.
  const created = await post('/v2-4-2/api/link-builder/create', {
    landing_page: 'https://shop.example/collections/summer',
    campaign: 'summer',
    source: 'instagram',
    medium: '',
    creator: 'kim',
  });
  expect(created.status).toBe(200);
  expect(created.body.data.medium).toBe('influencer');
  linkCode = created.body.data.code as string;
  const click = await request(api.url).get(`/${linkCode}`);
  expect(click.status).toBe(302);
  const landing = click.headers.location as string;
  expect(new URL(landing).searchParams.get('utm_medium')).toBe('influencer');

  // Day 0. A lands from google cpc on "/", views the tee, adds it, checks out, pays and buys (58.50:
  // the tee line 50.00 for 2 units, the socks line 8.50 for 1 unit). B lands directly on /products/tee
  // and views the socks. C lands from google cpc on "/" and leaves (one page view).
  // Day 1. C comes back from google cpc (one page view). D lands through kim's link and buys 58.50.
  await send(api.url, shop.credentials.ingest_key, db, id, [
    pageView({ client: 'A', at: at(0, 10), url: GOOGLE }),
    productView({ client: 'A', at: at(0, 10, 1), url: 'https://shop.example/products/tee' }, 0),
    addToCart({ client: 'A', at: at(0, 10, 2), url: 'https://shop.example/products/tee' }, 25),
    checkoutStarted({ client: 'A', at: at(0, 10, 3) }, 'tok-a', 58.5, 'a@example.com'),
    paymentInfo({ client: 'A', at: at(0, 10, 4) }, 'tok-a', 58.5, 'a@example.com'),
    checkoutCompleted(
      { client: 'A', at: at(0, 10, 5) },
      { orderId: '7001', token: 'tok-a', amount: 58.5, email: 'a@example.com', firstOrder: true },
    ),
    pageView({ client: 'B', at: at(0, 11), url: 'https://shop.example/products/tee' }),
    productView({ client: 'B', at: at(0, 11, 1), url: 'https://shop.example/products/tee' }, 1),
    pageView({ client: 'C', at: at(0, 12), url: GOOGLE }),
    pageView({ client: 'C', at: at(1, 12), url: GOOGLE }),
    pageView({ client: 'D', at: at(1, 15), url: landing }),
    checkoutCompleted(
      { client: 'D', at: at(1, 15, 10) },
      { orderId: '7002', token: 'tok-d', amount: 58.5, email: 'd@example.com', firstOrder: true },
    ),
  ]);
  await waitFor(
    () => db.query('test.click', 'select 1 from link_clicks where store_id = $1', [id]).then((r) => r.length),
    (n) => n === 1,
  );
});

afterAll(async () => {
  await pipeline.stop();
  await api.stop();
  await db.close();
});

const expectError = (res: request.Response, status: number, field: string) => {
  expect(res.status).toBe(status);
  expect(res.body.code).toBe(status);
  expect(res.body.data).toBeNull();
  // The field, or one of its members or elements, is named first.
  expect(res.body.message).toMatch(new RegExp(`^${field.replace(/[[\].]/g, '\\$&')}(: |\\.|\\[)`));
};

const WEB_NUMBERS = [
  'unique_users',
  'new_users',
  'returning_users',
  'total_sessions',
  'events_per_session',
  'engagement_rate',
  'bounce_rate',
  'product_view_users',
  'atc_users',
  'checkout_users',
  'payment_info_users',
  'purchase_users',
  'purchases',
  'purchase_rate',
  'revenue',
  'spend',
];

describe('get/web-analysis', () => {
  it('lists the funnel by source, worked out by hand', async () => {
    const res = await post(WEB, { start_date: day(0), end_date: day(2), dimensions: ['source'], page_size: 10 });
    expect(res.status).toBe(200);
    expect(res.body.code).toBe(1);
    const rows = res.body.data.records as Array<Record<string, unknown>>;
    for (const r of rows) {
      expect(Object.keys(r).sort()).toEqual(
        ['channel', 'source', 'medium', 'campaign', 'landing_page', ...WEB_NUMBERS].sort(),
      );
      for (const n of WEB_NUMBERS) expect(typeof r[n]).toBe('number');
      expect(r.channel).toBe('');
    }
    const bySource = Object.fromEntries(rows.map((r) => [r.source, r]));
    // google: A (session of 6 events, engaged, reached purchase) and C (two one-page sessions, days 0 and
    // 1): 2 persons (C once), 3 sessions, 8 events, 1 engaged session; A's purchase last-touch 58.50.
    expect(bySource.google).toMatchObject({
      unique_users: 2,
      new_users: 2,
      returning_users: 0,
      total_sessions: 3,
      events_per_session: 2.6667,
      engagement_rate: 0.3333,
      bounce_rate: 0.6667,
      product_view_users: 1,
      atc_users: 1,
      checkout_users: 1,
      payment_info_users: 1,
      purchase_users: 1,
      purchases: 1,
      purchase_rate: 0.5,
      revenue: 58.5,
      spend: 0,
    });
    // direct: B (a page view and a product view: engaged, reached the product view).
    expect(bySource['(direct)']).toMatchObject({
      unique_users: 1,
      total_sessions: 1,
      engagement_rate: 1,
      bounce_rate: 0,
      product_view_users: 1,
      atc_users: 0,
      purchase_users: 0,
    });
    // instagram: D, through kim's link, bought on landing.
    expect(bySource.instagram).toMatchObject({ unique_users: 1, purchase_users: 1, purchases: 1, revenue: 58.5 });
    expect(res.body.data.total).toBe(3);
    // Default order: unique_users desc, ties by source.
    expect(rows.map((r) => r.source)).toEqual(['google', '(direct)', 'instagram']);
  });

  it('counts a person once over a range and as returning when first seen before it', async () => {
    // Day 1 alone: C came back (first seen on day 0), D is new.
    const res = await post(WEB, { start_date: day(1), end_date: day(2), dimensions: ['source', 'medium'] });
    const google = (res.body.data.records as Array<Record<string, unknown>>).find((r) => r.source === 'google');
    expect(google).toMatchObject({
      medium: 'cpc',
      unique_users: 1,
      new_users: 0,
      returning_users: 1,
      total_sessions: 1,
    });
  });

  it('sums the funnel with distinct persons counted once overall', async () => {
    const res = await post(WEB_SUM, { start_date: day(0), end_date: day(2) });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data as object).sort()).toEqual([...WEB_NUMBERS].sort());
    // A, B, C, D; 5 sessions; purchases of A and D.
    // A person counts in a step when one of its sessions reached the step or a later one: D's session
    // went from landing to purchase, so D counts in every step.
    expect(res.body.data).toMatchObject({
      unique_users: 4,
      new_users: 4,
      total_sessions: 5,
      product_view_users: 3,
      atc_users: 2,
      checkout_users: 2,
      payment_info_users: 2,
      purchase_users: 2,
      purchases: 2,
      revenue: 117,
      purchase_rate: 0.5,
    });
  });

  it('rejects bad bodies naming the field', async () => {
    expectError(await post(WEB, { start_date: day(0), end_date: day(2), dimensions: ['platform'] }), 400, 'dimensions');
    expectError(
      await post(WEB, { start_date: day(0), end_date: day(2), dimensions: ['source', 'source'] }),
      400,
      'dimensions',
    );
    expectError(
      await post(WEB, {
        start_date: day(0),
        end_date: day(2),
        dimensions: ['channel', 'source', 'medium', 'campaign'],
      }),
      400,
      'dimensions',
    );
    expectError(await post(WEB, { start_date: day(2), end_date: day(0) }), 400, 'end_date');
    expectError(await post(WEB, { start_date: '2026-02-30', end_date: day(0) }), 400, 'start_date');
    expectError(
      await post(WEB, { start_date: day(0), end_date: day(2), orders: [{ column: 'bogus', order: 'asc' }] }),
      400,
      'orders[0].column',
    );
    expectError(await post(WEB, { start_date: day(0), end_date: day(2), page_size: 101 }), 400, 'page_size');
    expectError(await post(WEB_SUM, { start_date: day(0) }), 400, 'end_date');
  });
});

describe('get/landing-page/event-summary', () => {
  it('summarizes the events of the sessions that landed on a page, worked out by hand', async () => {
    // "/": A's session (6 events) and C's two sessions (a page view each).
    const res = await post(LANDING, { start_date: day(0), end_date: day(2), landing_page: '/' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ landing_page: '/', visitors: 2, sessions: 3 });
    const events = res.body.data.events as Array<{ event: string; users: number; count: number; rate: number }>;
    expect(events.map((e) => e.event)).toEqual([...STOREFRONT_EVENT_NAMES]);
    const of = (name: string) => events.find((e) => e.event === name);
    expect(of('page_viewed')).toEqual({ event: 'page_viewed', users: 2, count: 3, rate: 1 });
    expect(of('product_viewed')).toEqual({ event: 'product_viewed', users: 1, count: 1, rate: 0.5 });
    expect(of('checkout_completed')).toEqual({ event: 'checkout_completed', users: 1, count: 1, rate: 0.5 });
    expect(of('search_submitted')).toEqual({ event: 'search_submitted', users: 0, count: 0, rate: 0 });
  });

  it('matches a prefix with a trailing * and filters by touchpoint', async () => {
    const products = await post(LANDING, { start_date: day(0), end_date: day(2), landing_page: '/products/*' });
    expect(products.body.data).toMatchObject({ visitors: 1, sessions: 1 });
    const google = await post(LANDING, {
      start_date: day(0),
      end_date: day(2),
      landing_page: '/*',
      dimensions: { source: 'google' },
    });
    expect(google.body.data).toMatchObject({ visitors: 2, sessions: 3 });
  });

  it('rejects bad bodies naming the field', async () => {
    expectError(
      await post(LANDING, { start_date: day(0), end_date: day(2), landing_page: 'products' }),
      400,
      'landing_page',
    );
    expectError(
      await post(LANDING, { start_date: day(0), end_date: day(2), landing_page: '/a*b' }),
      400,
      'landing_page',
    );
    expectError(
      await post(LANDING, { start_date: day(0), end_date: day(2), landing_page: '/', dimensions: { platform: 'x' } }),
      400,
      'dimensions',
    );
    expectError(await post(LANDING, { start_date: day(0), end_date: day(2) }), 400, 'landing_page');
  });
});

describe('get/product-analysis', () => {
  it('lists products, worked out by hand', async () => {
    const res = await post(PRODUCTS, { start_date: day(0), end_date: day(2) });
    expect(res.status).toBe(200);
    const byId = Object.fromEntries(
      (res.body.data.records as Array<Record<string, unknown>>).map((r) => [r.product_id, r]),
    );
    // Tee: viewed and added by A; in A's checkout; in both purchases (2 units each), its line 50.00 of
    // 58.50 each time: revenue 100. No cost known.
    expect(byId[TEE]).toEqual({
      product_id: TEE,
      title: 'Organic Cotton Tee',
      vendor: 'Shop Example',
      product_type: 'T-Shirts',
      image_src: '//cdn.shopify.com/s/files/1/0000/0001/products/tee-white.jpg',
      views: 1,
      view_users: 1,
      add_to_cart: 1,
      add_to_cart_users: 1,
      checkouts: 1,
      purchases: 2,
      units: 4,
      revenue: 100,
      cogs: 0,
      gross_profit: 100,
      view_to_cart_rate: 1,
      cart_to_purchase_rate: 2,
      new_customer_purchases: 2,
    });
    // Socks: viewed by B; 1 unit in each purchase, 8.50 each.
    expect(byId[SOCKS]).toMatchObject({ views: 1, view_users: 1, add_to_cart: 0, purchases: 2, units: 2, revenue: 17 });
    // Default order: revenue desc.
    expect(res.body.data.records[0].product_id).toBe(TEE);
  });

  it('sums products; their revenue equals the last-touch purchase revenue of get-list-sum', async () => {
    const res = await post(PRODUCTS_SUM, { start_date: day(0), end_date: day(2) });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ views: 2, view_users: 2, purchases: 4, units: 6, revenue: 117 });
    const sum = await post('/v2-4-2/api/all-attribution/get-list-sum', {
      start_date: day(0),
      end_date: day(2),
      dimensions: ['source'],
      model: 'last',
      goal: 'purchase',
    });
    expect(sum.body.data.conversion_value).toBe(res.body.data.revenue);
    const some = await post(PRODUCTS_SUM, { start_date: day(0), end_date: day(2), product_ids: [SOCKS] });
    expect(some.body.data).toMatchObject({ views: 1, view_users: 1, revenue: 17 });
  });

  it('credits products to touchpoints under a model', async () => {
    const res = await post(CHANNELS, { start_date: day(0), end_date: day(2), dimensions: ['source'], model: 'last' });
    expect(res.status).toBe(200);
    const rows = res.body.data.records as Array<Record<string, unknown>>;
    const tee = rows.filter((r) => r.product_id === TEE);
    expect(tee.map((r) => [r.source, r.conversions, r.conversion_value, r.units]).sort()).toEqual([
      ['google', 1, 50, 2],
      ['instagram', 1, 50, 2],
    ]);
    expect(Object.keys(rows[0]!).sort()).toEqual(
      [
        'product_id',
        'title',
        'channel',
        'source',
        'medium',
        'campaign',
        'landing_page',
        'conversions',
        'conversion_value',
        'units',
      ].sort(),
    );
  });

  it('trends products by day and by month', async () => {
    const daily = await post(TREND, { start_date: day(0), end_date: day(2), product_ids: [TEE], granularity: 'day' });
    expect(daily.body.data).toEqual([
      { date: day(0), product_id: TEE, views: 1, add_to_cart: 1, purchases: 1, units: 2, revenue: 50 },
      { date: day(1), product_id: TEE, views: 0, add_to_cart: 0, purchases: 1, units: 2, revenue: 50 },
    ]);
    const monthly = await post(TREND, {
      start_date: day(0),
      end_date: day(2),
      product_ids: [TEE],
      granularity: 'month',
    });
    expect(monthly.body.data).toEqual([
      { date: day(0), product_id: TEE, views: 1, add_to_cart: 1, purchases: 2, units: 4, revenue: 100 },
    ]);
  });

  it('rejects bad bodies naming the field', async () => {
    expectError(
      await post(TREND, { start_date: day(0), end_date: day(2), product_ids: [TEE], granularity: 'year' }),
      400,
      'granularity',
    );
    expectError(
      await post(TREND, {
        start_date: day(0),
        end_date: day(2),
        product_ids: Array.from({ length: 21 }, (_, i) => String(i)),
        granularity: 'day',
      }),
      400,
      'product_ids',
    );
    expectError(
      await post(CHANNELS, { start_date: day(0), end_date: day(2), dimensions: [], model: 'last' }),
      400,
      'dimensions',
    );
    expectError(
      await post(CHANNELS, { start_date: day(0), end_date: day(2), dimensions: ['source'], model: 'best' }),
      400,
      'model',
    );
    expectError(
      await post(PRODUCTS, { start_date: day(0), end_date: day(2), product_ids: [''] }),
      400,
      'product_ids[0]',
    );
  });
});

describe('get/influencer-analysis', () => {
  it('lists creators with their links’ figures', async () => {
    const res = await post(CREATORS, { start_date: day(0), end_date: day(2) });
    expect(res.status).toBe(200);
    // The click happened now, outside the fixture's days: none in the range.
    expect(res.body.data.records).toEqual([
      {
        creator: 'kim',
        links_count: 1,
        clicks: 0,
        total_users: 1,
        new_users: 1,
        add_to_cart: 0,
        purchase: 1,
        purchase_conversion_value: 58.5,
        new_customer_purchases: 1,
      },
    ]);
    const today = new Date().toISOString().slice(0, 10);
    const now = await post(CREATORS, {
      start_date: today,
      end_date: new Date(Date.parse(today) + DAY).toISOString().slice(0, 10),
    });
    expect(now.body.data.records[0]).toMatchObject({ creator: 'kim', clicks: 1 });
  });

  it('lists one creator’s links in the link report’s shape', async () => {
    const res = await post(CREATOR_LINKS, { start_date: day(0), end_date: day(2), creator: 'kim' });
    expect(res.status).toBe(200);
    expect(res.body.data.total).toBe(1);
    expect(res.body.data.records[0]).toMatchObject({
      tracking_link: expect.stringContaining(linkCode),
      medium: 'influencer',
      total_users: 1,
      purchase: 1,
      purchase_conversion_value: 58.5,
    });
    const nobody = await post(CREATOR_LINKS, { start_date: day(0), end_date: day(2), creator: 'nobody' });
    expect(nobody.body.data).toEqual({ total: 0, page_size: 20, records: [] });
    expectError(await post(CREATOR_LINKS, { start_date: day(0), end_date: day(2), creator: ' ' }), 400, 'creator');
  });
});

describe('a creator’s link without a medium', () => {
  const LINK = '/v2-4-2/api/link-builder/create';
  const base = { landing_page: 'https://shop.example/collections/summer', campaign: 'summer', source: 'instagram' };

  it('is an influencer’s whether the medium is absent, null or empty', async () => {
    const store = await createTestStore(db, { timezone: 'UTC' });
    const key = store.credentials.api_key;
    for (const medium of [{}, { medium: null }, { medium: '' }, { medium: '  ' }]) {
      const res = await post(LINK, { ...base, creator: 'lee', ...medium }, key);
      expect({ medium, status: res.status, body: res.body.data?.medium }).toEqual({
        medium,
        status: 200,
        body: 'influencer',
      });
      const click = await request(api.url).get(`/${res.body.data.code as string}`);
      expect(new URL(click.headers.location as string).searchParams.get('utm_medium')).toBe('influencer');
    }
    // A medium of its own is kept.
    expect((await post(LINK, { ...base, creator: 'lee', medium: 'story' }, key)).body.data.medium).toBe('story');
  });

  it('is still required without a creator, and the error names it', async () => {
    const store = await createTestStore(db, { timezone: 'UTC' });
    const key = store.credentials.api_key;
    for (const medium of [{}, { medium: null }, { medium: '' }]) {
      const res = await post(LINK, { ...base, ...medium }, key);
      expectError(res, 400, 'medium');
      expect(res.body.message).toMatch(/required/);
    }
    expect(
      await db.query('test.links', 'select 1 from tracking_links where store_id = $1', [store.store.store_id]),
    ).toHaveLength(0);
  });

  it('is what the OpenAPI document says: medium optional and nullable, described as required without a creator', () => {
    const doc = JSON.parse(fs.readFileSync(path.join(__dirname, '../../query-api/openapi/openapi.json'), 'utf8')) as {
      components: { schemas: Record<string, { required?: string[]; properties: Record<string, unknown> }> };
    };
    const schema = doc.components.schemas.LinkCreateRequest!;
    expect(schema.required).toEqual(['landing_page', 'campaign', 'source']);
    expect(schema.properties.medium).toMatchObject({ type: 'string', nullable: true });
    expect((schema.properties.medium as { description: string }).description).toMatch(/creator/);
  });
});

describe('tenant isolation and limits', () => {
  it('another store’s key sees none of this store’s figures', async () => {
    const key = other.credentials.api_key;
    const range = { start_date: day(0), end_date: day(2) };
    expect((await post(WEB, { ...range, dimensions: ['source'] }, key)).body.data).toEqual({
      total: 0,
      page_size: 20,
      records: [],
    });
    expect((await post(WEB_SUM, range, key)).body.data.unique_users).toBe(0);
    expect((await post(LANDING, { ...range, landing_page: '/*' }, key)).body.data.visitors).toBe(0);
    expect((await post(PRODUCTS, range, key)).body.data.total).toBe(0);
    expect((await post(PRODUCTS_SUM, range, key)).body.data.revenue).toBe(0);
    expect((await post(CHANNELS, { ...range, dimensions: ['source'], model: 'last' }, key)).body.data.total).toBe(0);
    expect((await post(TREND, { ...range, product_ids: [TEE], granularity: 'day' }, key)).body.data).toEqual([]);
    expect((await post(CREATORS, range, key)).body.data.total).toBe(0);
    expect((await post(CREATOR_LINKS, { ...range, creator: 'kim' }, key)).body.data.total).toBe(0);
  });

  it('answers 401 without a key', async () => {
    const res = await request(api.url)
      .post(WEB)
      .send({ start_date: day(0), end_date: day(2) });
    expectError(res, 401, 'ApiKey');
  });

  it.each([WEB, LANDING, PRODUCTS, CHANNELS, CREATORS])('%s allows 5 requests per second per key', async (path) => {
    const store = await createTestStore(db);
    const body =
      path === LANDING
        ? { start_date: day(0), end_date: day(2), landing_page: '/' }
        : path === CHANNELS
          ? { start_date: day(0), end_date: day(2), dimensions: ['source'], model: 'last' }
          : { start_date: day(0), end_date: day(2) };
    // Start right after a second boundary so the burst stays within one second.
    await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 20));
    const statuses = (
      await Promise.all(
        Array.from({ length: 6 }, () =>
          request(api.url).post(path).set('ApiKey', store.credentials.api_key).send(body),
        ),
      )
    ).map((r) => r.status);
    expect(statuses.sort()).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it('the reconciliation finds the analytics views equal to their recomputation', async () => {
    const r = await reconcileStore(db, shop.store.store_id);
    expect(r.drift).toEqual([]);
  });
});

it('the daemon reports the time of each maintenance step, within the time of its batches', async () => {
  const steps = await pipeline.metrics.registry.getSingleMetric('pipeline_batch_step_seconds_total')!.get();
  const flush = await pipeline.metrics.registry.getSingleMetric('pipeline_flush_duration_seconds')!.get();
  const seconds = new Map(steps.values.map((v) => [v.labels.step, v.value]));
  expect([...seconds.keys()].sort()).toEqual([...MAINTENANCE_STEPS].sort());
  expect(seconds.get('analytics')).toBeGreaterThan(0);
  expect(seconds.get('recompute')).toBeGreaterThan(0);
  const flushSum = flush.values.find(
    (v) => (v as { metricName?: string }).metricName === 'pipeline_flush_duration_seconds_sum',
  )!.value;
  const stepSum = [...seconds.values()].reduce((a, b) => a + b, 0);
  expect(stepSum).toBeGreaterThan(0);
  expect(stepSum).toBeLessThanOrEqual(flushSum);
});

describe('on demo data', () => {
  let demo: TestStore;
  const start = Date.UTC(2026, 0, 5);
  const range = { start_date: '2026-01-05', end_date: '2026-02-04' };

  beforeAll(async () => {
    demo = await createTestStore(db, { timezone: 'UTC', lookbackDays: 30 });
    const stream = planDemo({ events: 4000, seed: 13, start: new Date(start), days: 30 });
    await pushDemo({ apiUrl: api.url, ingestKey: demo.credentials.ingest_key, stream });
    await pipelineCaughtUp(pipeline.nc, undefined, 180_000);
  }, 240_000);

  it.each([[['channel']], [['source', 'medium', 'campaign']], [['landing_page']], [['channel', 'landing_page']]])(
    'the funnel never grows along its steps, for every row by %j',
    async (dimensions) => {
      const res = await post(WEB, { ...range, dimensions, page_size: 100 }, demo.credentials.api_key);
      expect(res.status).toBe(200);
      const rows = res.body.data.records as Array<Record<string, number>>;
      expect(rows.length).toBeGreaterThan(1);
      for (const r of rows) {
        expect(r.unique_users).toBeGreaterThanOrEqual(r.product_view_users!);
        expect(r.product_view_users).toBeGreaterThanOrEqual(r.atc_users!);
        expect(r.atc_users).toBeGreaterThanOrEqual(r.checkout_users!);
        expect(r.checkout_users).toBeGreaterThanOrEqual(r.payment_info_users!);
        expect(r.payment_info_users).toBeGreaterThanOrEqual(r.purchase_users!);
      }
      const sum = await post(WEB_SUM, range, demo.credentials.api_key);
      // Distinct persons overall: at most the sum over the rows, at least the largest row.
      const users = rows.map((r) => r.unique_users!);
      expect(sum.body.data.unique_users).toBeLessThanOrEqual(users.reduce((a, b) => a + b, 0));
      expect(sum.body.data.unique_users).toBeGreaterThanOrEqual(Math.max(...users));
    },
  );

  it('product revenue over all products equals the last-touch purchase revenue of get-list-sum', async () => {
    const products = await post(PRODUCTS_SUM, range, demo.credentials.api_key);
    const attribution = await post(
      '/v2-4-2/api/all-attribution/get-list-sum',
      { ...range, dimensions: ['channel'], model: 'last', goal: 'purchase' },
      demo.credentials.api_key,
    );
    expect(products.body.data.purchases).toBeGreaterThan(10);
    // Each purchase's value (refunds deducted) is split over its products in whole cents.
    expect(products.body.data.revenue).toBeCloseTo(attribution.body.data.conversion_value as number, 1);
    const funnel = await post(WEB_SUM, range, demo.credentials.api_key);
    expect(funnel.body.data.revenue).toBe(attribution.body.data.conversion_value);
  });

  it('the reconciliation finds no drift in the analytics views of the demo store', async () => {
    const r = await reconcileStore(db, demo.store.store_id);
    expect(r.drift).toEqual([]);
  });
});

// After the demo store's stream: returning persons whose new events follow their history are extended.
it('the daemon counts the persons it recomputed, by path', async () => {
  const counted = await pipeline.metrics.registry.getSingleMetric('pipeline_persons_recomputed_total')!.get();
  const byPath = new Map(counted.values.map((v) => [v.labels.path, v.value]));
  expect([...byPath.keys()].sort()).toEqual(['extended', 'full', 'new']);
  expect(byPath.get('new')).toBeGreaterThan(0);
  expect(byPath.get('extended')).toBeGreaterThan(0);
});
