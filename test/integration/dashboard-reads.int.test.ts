/**
 * The dashboard's read operations (docs/product.md, Dashboard) against the real ingestion routes, NATS,
 * pipeline and PostgreSQL: get/daily-summary (each day equals get-list-sum of that day), get/order/list
 * (purchase conversions, newest first, paged), get/data-health (events per minute, last data per source, order
 * capture rate, dead letters, view freshness); their OpenAPI documentation; errors naming the field; the
 * dashboard key opens them; one store never sees another's data.
 *
 * Seed (a UTC store): visitor A lands from a google ad 3 days ago and buys order A for 50 an hour later;
 * visitor B lands directly yesterday and buys order B for 30; order C (20, created yesterday) is pushed by the
 * store without the tracker having seen it complete; one dead letter.
 */
import request from 'supertest';
import type { Db } from '../../storage/db';
import type { RunningApi } from '../../query-api/src/app/api';
import type { RunningPipeline } from '../../pipeline/src/app/daemon';
import { createTestStore, startTestApi, startTestPipeline, testDb, type TestStore, waitFor } from '../support/harness';
import { checkoutCompleted, order, pageView, pushOrder, send } from '../support/journeys';
import type { DataHealth, OrderListData } from '../../contracts/src/dashboard';

const V = '/v2-4-2/api';
const DAY = 86_400_000;
const HOUR = 3_600_000;
const NOW = Date.now();
const day = (t: number): string => new Date(t).toISOString().slice(0, 10);
const RANGE = { start_date: day(NOW - 6 * DAY), end_date: day(NOW + DAY) };
const tag = NOW.toString(36);
// Order and customer ids are digits, as Shopify's are.
const ORDER_A = `${NOW}1`;
const ORDER_B = `${NOW}2`;
const ORDER_C = `${NOW}3`;
const A_AT = NOW - 3 * DAY;
const B_AT = NOW - DAY;

let db: Db;
let api: RunningApi;
let pipeline: RunningPipeline;
let shop: TestStore;
let other: TestStore;

const iso = (t: number): string => new Date(t).toISOString();
const post = (path: string, key: string, body: unknown = {}) =>
  request(api.url)
    .post(`${V}/${path}`)
    .set('ApiKey', key)
    .send(body as object);

beforeAll(async () => {
  db = testDb();
  api = await startTestApi();
  pipeline = await startTestPipeline();
  shop = await createTestStore(db);
  other = await createTestStore(db);
  const { store, credentials } = shop;
  await send(api.url, credentials.ingest_key, db, store.store_id, [
    pageView({ client: `a-${tag}`, at: iso(A_AT), url: 'https://shop.example/?utm_source=google&utm_medium=cpc' }),
    checkoutCompleted(
      { client: `a-${tag}`, at: iso(A_AT + HOUR) },
      { orderId: ORDER_A, token: `ta-${tag}`, amount: 50, email: `a-${tag}@example.com` },
    ),
    pageView({ client: `b-${tag}`, at: iso(B_AT) }),
    checkoutCompleted(
      { client: `b-${tag}`, at: iso(B_AT + HOUR) },
      { orderId: ORDER_B, token: `tb-${tag}`, amount: 30, email: `b-${tag}@example.com` },
    ),
  ]);
  await pushOrder(
    api.url,
    credentials.ingest_key,
    db,
    store.store_id,
    order({
      id: ORDER_C,
      email: `c-${tag}@example.com`,
      customer: { id: `${NOW}4`, email: `c-${tag}@example.com`, first_name: 'C', last_name: 'C' },
      created_at: iso(B_AT),
      updated_at: iso(B_AT),
      total_price: '20.00',
      landing_site: '',
      referring_site: '',
      checkout_token: null,
    }),
  );
  await db.query(
    'test.dead_letter',
    `insert into dead_letters (store_id, stream_seq, subject, reason, payload) values ($1, $2, 'ev.0.x.page_viewed', 'test', '{}')`,
    [store.store_id, 900_000_000 + (NOW % 1_000_000)],
  );
  // The purchase conversions of all three orders are in the views.
  await waitFor(
    () =>
      db
        .query<{ n: string }>(
          'test.conversions',
          `select count(*) as n from conversions where store_id = $1 and goal = 'purchase'`,
          [store.store_id],
        )
        .then((r) => Number(r[0]!.n)),
    (n) => n === 3,
    20_000,
  );
}, 60_000);

afterAll(async () => {
  await pipeline.stop();
  await api.stop();
  await db.close();
});

describe('get/daily-summary', () => {
  it('answers one record per day of the range, each equal to get-list-sum of that day', async () => {
    const res = await post('get/daily-summary', shop.credentials.api_key, {
      ...RANGE,
      model: 'linear',
      goal: 'purchase',
    });
    expect(res.status).toBe(200);
    const records = res.body.data.records as Array<Record<string, number | string>>;
    expect(records.map((r) => r.date)).toEqual(
      Array.from({ length: 7 }, (_, i) => day(Date.parse(RANGE.start_date) + i * DAY)),
    );
    expect(records.find((r) => r.date === day(A_AT + HOUR))!.conversion_value).toBe(50);
    expect(records.reduce((s, r) => s + Number(r.conversion_value), 0)).toBe(100);
    // Each day as get-list-sum answers it (separate keys: the 5/s limit is per key and operation).
    for (const r of records.filter((x) => x.date === day(A_AT + HOUR) || x.date === day(NOW))) {
      const date = r.date as string;
      const sum = await post('all-attribution/get-list-sum', shop.credentials.dashboard_key, {
        start_date: date,
        end_date: day(Date.parse(date) + DAY),
        dimensions: ['channel'],
        model: 'linear',
        goal: 'purchase',
      });
      const { date: _d, ...numbers } = r;
      expect(numbers).toEqual(sum.body.data);
    }
  });

  it('refuses a range over 92 days, naming end_date', async () => {
    const res = await post('get/daily-summary', shop.credentials.api_key, {
      start_date: '2026-01-01',
      end_date: '2026-06-01',
      model: 'last',
      goal: 'purchase',
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, message: expect.stringMatching(/^end_date: /), data: null });
  });

  it('refuses an unknown model, naming the field', async () => {
    const res = await post('get/daily-summary', shop.credentials.api_key, {
      ...RANGE,
      model: 'best',
      goal: 'purchase',
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^model: /);
  });
});

describe('get/order/list', () => {
  it('lists the purchases of the range newest first with their time, value and new-customer flag', async () => {
    const res = await post('get/order/list', shop.credentials.dashboard_key, { ...RANGE, page: 1, page_size: 10 });
    expect(res.status).toBe(200);
    const data = res.body.data as OrderListData;
    expect(data.total).toBe(3);
    const ids = data.records.map((r) => r.order_id);
    expect(ids[ids.length - 1]).toBe(ORDER_A);
    expect(new Set(ids)).toEqual(new Set([ORDER_A, ORDER_B, ORDER_C]));
    const a = data.records.find((r) => r.order_id === ORDER_A);
    expect(a).toEqual({
      order_id: ORDER_A,
      created_at: iso(A_AT + HOUR)
        .slice(0, 19)
        .replace('T', ' '),
      value: 50,
      is_new_customer: expect.any(Boolean),
    });
  });

  it('pages', async () => {
    const p1 = await post('get/order/list', shop.credentials.api_key, { ...RANGE, page: 1, page_size: 2 });
    const p2 = await post('get/order/list', shop.credentials.api_key, { ...RANGE, page: 2, page_size: 2 });
    expect(p1.body.data.records).toHaveLength(2);
    expect(p2.body.data.records).toHaveLength(1);
    expect(p2.body.data.records[0].order_id).toBe(ORDER_A);
  });

  it('is empty for another store, and outside the range', async () => {
    const theirs = await post('get/order/list', other.credentials.api_key, { ...RANGE, page: 1, page_size: 10 });
    expect(theirs.body.data).toEqual({ total: 0, page_size: 10, records: [] });
    const before = await post('get/order/list', shop.credentials.api_key, {
      start_date: '2020-01-01',
      end_date: '2020-02-01',
      page: 1,
      page_size: 10,
    });
    expect(before.body.data.total).toBe(0);
  });

  it('refuses a page size over 100, naming page_size', async () => {
    const res = await post('get/order/list', shop.credentials.api_key, { ...RANGE, page: 1, page_size: 101 });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^page_size: /);
  });
});

describe('get/data-health', () => {
  it('reports events per minute, the last data of each source, the capture rate, dead letters and freshness', async () => {
    const res = await post('get/data-health', shop.credentials.dashboard_key);
    expect(res.status).toBe(200);
    const h = res.body.data as DataHealth;
    expect(h.events_per_minute).toHaveLength(60);
    // The four events were stored within the last few minutes.
    expect(h.events_per_minute.reduce((s, m) => s + m.events, 0)).toBe(4);
    const bySource = Object.fromEntries(h.last_event_by_source.map((s) => [s.source, s]));
    expect(Object.keys(bySource).sort()).toEqual(['ad_spend', 'customers', 'orders', 'products', 'storefront_events']);
    expect(bySource.storefront_events!).toEqual({ source: 'storefront_events', total: 4, last_at: expect.any(String) });
    expect(bySource.orders).toMatchObject({ total: 1, last_at: iso(B_AT).slice(0, 19).replace('T', ' ') });
    expect(bySource.ad_spend).toEqual({ source: 'ad_spend', total: 0, last_at: null });
    // Three orders in the window, two of which the tracker saw complete.
    expect(h.order_capture).toMatchObject({ purchases: 3, tracked: 2, rate: 0.6667 });
    expect(h.dead_letters).toMatchObject({ total: 1, last_24h: 1, webhook_undelivered: 0 });
    expect(h.views_updated_at).toBe(bySource.storefront_events!.last_at);
    expect(h.views_lag_seconds).toBeGreaterThanOrEqual(0);
    expect(h.views_lag_seconds).toBeLessThan(60);
  });

  it('is empty for a store without data', async () => {
    const res = await post('get/data-health', other.credentials.api_key);
    expect(res.status).toBe(200);
    expect(res.body.data.order_capture).toMatchObject({ purchases: 0, tracked: 0, rate: null });
    expect(res.body.data.dead_letters).toMatchObject({ total: 0, last_at: null });
    expect(res.body.data.views_updated_at).toBeNull();
  });

  it('needs a credential', async () => {
    const res = await request(api.url).post(`${V}/get/data-health`).send({});
    expect(res.status).toBe(401);
  });
});

describe('the OpenAPI document', () => {
  it('documents the three operations with the report credential and the error envelope', async () => {
    interface Doc {
      paths: Record<string, { post: { security: unknown; responses: Record<string, unknown> } }>;
      components: { schemas: Record<string, { properties: Record<string, unknown>; required: string[] }> };
    }
    const doc = (await request(api.url).get('/openapi.json')).body as Doc;
    for (const path of ['get/daily-summary', 'get/order/list', 'get/data-health']) {
      const op = doc.paths[`/{version}/api/${path}`]!.post;
      expect(op.security).toEqual([{ api_key: ['report'] }]);
      expect(Object.keys(op.responses).sort()).toEqual(['200', '400', '401', '429']);
    }
    const health = doc.components.schemas.DataHealth!;
    expect(Object.keys(health.properties).sort()).toEqual([
      'ad_connections',
      'dead_letters',
      'events_per_minute',
      'last_event_by_source',
      'now',
      'order_capture',
      'views_lag_seconds',
      'views_updated_at',
    ]);
    expect(doc.components.schemas.OrderListRecord!.required.sort()).toEqual([
      'created_at',
      'is_new_customer',
      'order_id',
      'value',
    ]);
  });
});
