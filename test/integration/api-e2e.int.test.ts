/**
 * The query API end to end: events and pushes go in through the ingestion routes, through the
 * stream and the pipeline, and come out of get-list, get-list-sum, order/event, attribution-touch and the
 * link report with the values worked out by hand below. Also: get-list-sum equals the sum of all get-list
 * pages for every model and goal, and each model's conversions sum to the number of conversions.
 */
import request from 'supertest';
import { GOALS, RULE_BASED_MODELS } from '../../contracts/src/attribution';
import type { AttributionRecord } from '../../contracts/src/reports';
import type { Db } from '../../storage/db';
import type { RunningApi } from '../../query-api/src/app/api';
import type { RunningPipeline } from '../../pipeline/src/app/daemon';
import {
  createTestStore,
  pacer,
  startTestApi,
  startTestPipeline,
  testDb,
  type TestStore,
  waitFor,
} from '../support/harness';
import { addToCart, checkoutCompleted, leadForm, pageView, send } from '../support/journeys';
import { sampleContext, sampleEvent } from '../support/samples';

let db: Db;
let api: RunningApi;
let pipeline: RunningPipeline;
let shop: TestStore;
let linkCode = '';

const DAY = 86_400_000;
const base = Math.floor(Date.now() / DAY) * DAY - 7 * DAY; // UTC midnight a week ago
const at = (days: number, hh: number, mm = 0) => new Date(base + days * DAY + (hh * 60 + mm) * 60_000).toISOString();
const local = (iso: string) => iso.slice(0, 19).replace('T', ' ');
const day = (days: number) => new Date(base + days * DAY).toISOString().slice(0, 10);
const START = day(0);
const END = day(8);

const GOOGLE = 'https://shop.example/?utm_source=google&utm_medium=cpc&utm_campaign=brand&gclid=abc';

const paced = pacer();
function post(path: string, body: object) {
  return paced(path, () => request(api.url).post(path).set('ApiKey', shop.credentials.api_key).send(body));
}

beforeAll(async () => {
  db = testDb();
  api = await startTestApi();
  pipeline = await startTestPipeline();
  shop = await createTestStore(db, { timezone: 'UTC', lookbackDays: 30 });
  const id = shop.store.store_id;
  const ingest = shop.credentials.ingest_key;

  // Ad spend: google brand on day 0 (50 spent, 1000 impressions, 40 clicks, 120 reported by Google).
  const spend = await request(api.url)
    .post('/v2-4-2/api/store/ad-spend')
    .set('X-Ingest-Key', ingest)
    .send([
      {
        date: day(0),
        platform: 'google',
        account_id: 'acc-1',
        campaign_id: 'cmp-1',
        campaign_name: 'Brand',
        adset_id: 'set-1',
        adset_name: 'Brand exact',
        ad_id: 'ad-1',
        ad_name: 'Brand ad',
        source: 'google',
        medium: 'cpc',
        campaign: 'brand',
        spend: 50,
        impressions: 1000,
        clicks: 40,
        conversion_value: 120,
        currency: 'USD',
      },
    ]);
  expect(spend.status).toBe(200);

  // A tracking link for an influencer, clicked once.
  const created = await post('/v2-4-2/api/link-builder/create', {
    landing_page: 'https://shop.example/collections/summer',
    campaign: 'influencer_kim',
    source: 'instagram',
    medium: 'social',
    creator: 'kim',
  });
  expect(created.status).toBe(200);
  linkCode = created.body.data.code as string;
  const click = await request(api.url).get(`/${linkCode}`);
  expect(click.status).toBe(302);
  const landing = click.headers.location as string;

  // Person 1 (devices A and B, joined by the lead form's email): google (day 0), facebook (day 2) with an
  // add to cart of 20, lead form (day 3, a direct session), direct visit and purchase 5005 of 100 on
  // device B (day 4). The direct sessions are dropped from the credits: non-direct touches exist.
  // Person 2 (device D): lands through the tracking link (day 5), views the collection, adds 30 to the
  // cart and buys order 5006 of 60.
  await send(api.url, ingest, db, id, [
    pageView({ client: 'A', at: at(0, 10), url: GOOGLE }),
    pageView({ client: 'A', at: at(2, 12), url: 'https://shop.example/blog', referrer: 'https://www.facebook.com/' }),
    addToCart({ client: 'A', at: at(2, 12, 5), url: 'https://shop.example/products/tee' }, 20),
    leadForm({ client: 'A', at: at(3, 8) }, 'jane@example.com'),
    pageView({ client: 'B', at: at(4, 9) }),
    checkoutCompleted(
      { client: 'B', at: at(4, 9, 10) },
      { orderId: '5005', token: 't-5005', amount: 100, email: 'jane@example.com', firstOrder: true },
    ),
    pageView({ client: 'D', at: at(5, 15), url: landing }),
    sampleEvent('collection_viewed', {
      id: 'd-coll',
      clientId: 'D',
      timestamp: at(5, 15, 1),
      context: sampleContext(landing),
    }),
    addToCart({ client: 'D', at: at(5, 15, 2) }, 30),
    checkoutCompleted(
      { client: 'D', at: at(5, 15, 10) },
      { orderId: '5006', token: 't-5006', amount: 60, email: 'dee@example.com', firstOrder: true },
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

const listBody = (over: Record<string, unknown> = {}) => ({
  start_date: START,
  end_date: END,
  dimensions: ['source'],
  model: 'last',
  goal: 'purchase',
  page: 1,
  page_size: 100,
  ...over,
});

describe('get-list and get-list-sum', () => {
  it('report the hand-worked purchase attribution under the last-touch model with spend joined', async () => {
    // Last touch: order 5005 -> facebook (S2; the direct day-4 visit is dropped), order 5006 -> instagram
    // (the tracking link). Google has spend but no last-touch purchase: a spend-only row.
    const res = await post('/v2-4-2/api/all-attribution/get-list', listBody());
    expect(res.status).toBe(200);
    expect(res.body.code).toBe(1);
    expect(res.body.data.total).toBe(3);
    const records = res.body.data.records as AttributionRecord[];
    expect(records.map((r) => [r.source, r.platform, r.conversions, r.conversion_value])).toEqual([
      ['facebook', '', 1, 100],
      ['instagram', '', 1, 60],
      ['google', '', 0, 0],
    ]);
    // Google: spend 50, 1000 impressions, 40 clicks, 120 reported -> ad_roas 2.4, cpm 50, cpc 1.25,
    // net profit 0 - 0 - 50 = -50; roas and cpa 0 (no conversions: division by zero gives 0).
    expect(records[2]).toEqual({
      campaign: '',
      channel: '',
      source: 'google',
      platform: '',
      medium: '',
      landing_page: '',
      conversions: 0,
      new_lead_conversions: 0,
      conversion_value: 0,
      spend: 50,
      clicks: 40,
      ad_conversion_value: 120,
      impressions: 1000,
      roas: 0,
      ad_roas: 2.4,
      cpa: 0,
      cpm: 50,
      cpc: 1.25,
      net_profit: -50,
      net_margin: 0,
    });

    // Summary: 2 conversions worth 160, spend 50 -> roas 3.2, cpa 25, net profit 110, margin 0.6875.
    const sum = await post('/v2-4-2/api/all-attribution/get-list-sum', {
      start_date: START,
      end_date: END,
      dimensions: ['source'],
      model: 'last',
      goal: 'purchase',
    });
    expect(sum.status).toBe(200);
    expect(sum.body.data).toEqual({
      conversions: 2,
      new_lead_conversions: 2,
      conversion_value: 160,
      spend: 50,
      clicks: 40,
      ad_conversion_value: 120,
      impressions: 1000,
      roas: 3.2,
      ad_roas: 2.4,
      cpa: 25,
      cpm: 50,
      cpc: 1.25,
      net_profit: 110,
      net_margin: 0.6875,
    });
  });

  it('credits the first touch to the google campaign and joins its spend on campaign, channel and source', async () => {
    const res = await post(
      '/v2-4-2/api/all-attribution/get-list',
      listBody({ model: 'first', dimensions: ['campaign', 'channel', 'source'] }),
    );
    const google = (res.body.data.records as AttributionRecord[]).find((r) => r.source === 'google')!;
    // First touch of 5005 is the google visit: 1 conversion of 100 against 50 of spend -> roas 2, cpa 50.
    expect(google).toMatchObject({
      campaign: 'brand',
      channel: 'paid_search',
      platform: '',
      medium: '',
      landing_page: '',
      conversions: 1,
      conversion_value: 100,
      spend: 50,
      roas: 2,
      cpa: 50,
    });
  });

  it('sorts by any metric or requested dimension, and pages stably', async () => {
    const asc = await post(
      '/v2-4-2/api/all-attribution/get-list',
      listBody({ orders: [{ column: 'source', order: 'asc' }] }),
    );
    expect((asc.body.data.records as AttributionRecord[]).map((r) => r.source)).toEqual([
      'facebook',
      'google',
      'instagram',
    ]);
    const bySpend = await post(
      '/v2-4-2/api/all-attribution/get-list',
      listBody({ orders: [{ column: 'spend', order: 'desc' }] }),
    );
    expect((bySpend.body.data.records as AttributionRecord[])[0]!.source).toBe('google');
    const pages = [];
    for (let page = 1; page <= 3; page++) {
      const r = await post('/v2-4-2/api/all-attribution/get-list', listBody({ page, page_size: 1 }));
      expect(r.body.data).toMatchObject({ total: 3, page_size: 1 });
      pages.push(...(r.body.data.records as AttributionRecord[]).map((x) => x.source));
    }
    expect(pages).toEqual(['facebook', 'instagram', 'google']);
  });

  it('sum equals the sum of all pages for every model and goal, and each model sums to the conversion count', async () => {
    // Conversions: add_to_cart 2 (A's 20, D's 30), checkout_start 0, payment_info_submitted 0, purchase 2.
    const counts: Record<string, number> = {
      add_to_cart: 2,
      purchase: 2,
      checkout_start: 0,
      payment_info_submitted: 0,
    };
    const additive = [
      'conversions',
      'new_lead_conversions',
      'conversion_value',
      'spend',
      'clicks',
      'ad_conversion_value',
      'impressions',
    ] as const;
    for (const goal of GOALS) {
      for (const model of RULE_BASED_MODELS) {
        const dims = ['channel', 'source', 'landing_page'];
        const all: AttributionRecord[] = [];
        let total = Infinity;
        for (let page = 1; (page - 1) * 2 < total; page++) {
          const r = await post(
            '/v2-4-2/api/all-attribution/get-list',
            listBody({ goal, model, dimensions: dims, page, page_size: 2 }),
          );
          expect(r.status).toBe(200);
          total = r.body.data.total as number;
          all.push(...(r.body.data.records as AttributionRecord[]));
        }
        const sum = await post('/v2-4-2/api/all-attribution/get-list-sum', {
          start_date: START,
          end_date: END,
          dimensions: dims,
          model,
          goal,
        });
        expect(all).toHaveLength(total);
        for (const f of additive) expect(all.reduce((s, r) => s + r[f], 0)).toBeCloseTo(sum.body.data[f] as number, 6);
        expect(sum.body.data.conversions).toBeCloseTo(counts[goal]!, 6);
      }
    }
  });
});

describe('order/event', () => {
  it("returns the order's journey across the person's devices with the documented event types", async () => {
    const res = await request(api.url)
      .post('/v2-4-2/api/order/event')
      .set('ApiKey', shop.credentials.api_key)
      .send({ order_id: '5005', page: 1, page_size: 20 });
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data).toMatchObject({ order_id: '5005', shop_currency: 'USD', total: 6, page: 1, page_size: 20 });
    const events = data.events as Array<Record<string, unknown>>;
    expect(events.map((e) => [e.event_type, e.event_at])).toEqual([
      ['ad', local(at(0, 10))],
      ['social_media', local(at(2, 12))],
      ['product_added_to_cart', local(at(2, 12, 5))],
      // The lead form comes a day later: it starts its own (direct) session, so it is a landing event.
      ['direct', local(at(3, 8))],
      ['direct', local(at(4, 9))],
      ['checkout_completed', local(at(4, 9, 10))],
    ]);
    expect(events[0]).toMatchObject({
      event_campaign: 'brand',
      event_source: 'google',
      event_medium: 'cpc',
      ad: {
        account_id: 'acc-1',
        campaign_id: 'cmp-1',
        campaign_name: 'Brand',
        set_id: 'set-1',
        set_name: 'Brand exact',
        ad_id: 'ad-1',
        ad_name: 'Brand ad',
        ad_platform: 'google',
        keyword: '',
        account_name: '',
      },
      social_media: null,
      products: null,
    });
    expect(events[1]).toMatchObject({
      ad: null,
      social_media: { network: 'facebook', referrer: 'https://www.facebook.com/', campaign: '(referral)' },
    });
    expect(events[2]).toMatchObject({
      event_source: 'facebook',
      products: { items: [expect.objectContaining({ variant_id: '45737128657113', price: 20 })] },
      ad: null,
    });
    expect(events[5]).toMatchObject({
      checkout_completed: expect.objectContaining({ order_id: '5005', total_price: 100, is_first_order: true }),
      checkout_started: null,
    });

    const page2 = await request(api.url)
      .post('/v2-4-2/api/order/event')
      .set('ApiKey', shop.credentials.api_key)
      .send({ order_id: '5005', page: 2, page_size: 4 });
    expect(page2.body.data).toMatchObject({ total: 6, page: 2, page_size: 4 });
    expect((page2.body.data.events as unknown[]).length).toBe(2);

    const unknown = await request(api.url)
      .post('/v2-4-2/api/order/event')
      .set('ApiKey', shop.credentials.api_key)
      .send({ order_id: '999' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ code: 404, message: 'order_id: no order 999 in this store', data: null });
  });

  it('marks the tracking-link landing with its creator', async () => {
    const res = await request(api.url)
      .post('/v2-4-2/api/order/event')
      .set('ApiKey', shop.credentials.api_key)
      .send({ order_id: '5006' });
    const first = (res.body.data.events as Array<Record<string, unknown>>)[0]!;
    expect(first).toMatchObject({
      event_type: 'social_media',
      event_source: 'instagram',
      event_campaign: 'influencer_kim',
      creator: { creator: 'kim', code: linkCode },
    });
  });
});

describe('order/attribution-touch', () => {
  it('returns first and last touchpoints, and nulls for unknown orders', async () => {
    const res = await request(api.url)
      .post('/v2-4-2/api/order/attribution-touch')
      .set('ApiKey', shop.credentials.api_key)
      .send({ order_ids: ['5005', '5006', 'nope'] });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      {
        order_id: '5005',
        first_touchpoint: {
          campaign: 'brand',
          channel: 'paid_search',
          source: 'google',
          medium: 'cpc',
          time: local(at(0, 10)),
        },
        last_touchpoint: {
          campaign: '(referral)',
          channel: 'organic_social',
          source: 'facebook',
          medium: 'social',
          time: local(at(2, 12)),
        },
      },
      {
        order_id: '5006',
        first_touchpoint: {
          campaign: 'influencer_kim',
          channel: 'organic_social',
          source: 'instagram',
          medium: 'social',
          time: local(at(5, 15)),
        },
        last_touchpoint: {
          campaign: 'influencer_kim',
          channel: 'organic_social',
          source: 'instagram',
          medium: 'social',
          time: local(at(5, 15)),
        },
      },
      { order_id: 'nope', first_touchpoint: null, last_touchpoint: null },
    ]);
  });
});

describe('link-builder-analysis', () => {
  it('reports clicks, users and last-touch conversions of the link', async () => {
    const res = await post('/v2-4-2/api/get/link-builder-analysis/list', {
      start_date: START,
      end_date: day(9),
      page: 1,
      page_size: 10,
    });
    expect(res.status).toBe(200);
    expect(res.body.data.total).toBe(1);
    const [rec] = res.body.data.records as Array<Record<string, unknown>>;
    // D's session came from the link: 1 user, new (first seen there), 1 collection view; last touch of
    // D's add to cart (30) and purchase (60). The click happened now, inside the range.
    expect(rec).toEqual({
      tracking_link: `https://go.test/${linkCode}`,
      campaign: 'influencer_kim',
      source: 'instagram',
      medium: 'social',
      landing_page: 'https://shop.example/collections/summer',
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      total_users: 1,
      new_users: 1,
      clicks: 1,
      purchase: 1,
      purchase_conversion_value: 60,
      add_to_cart: 1,
      add_to_cart_conversion_value: 30,
      collection_view: 1,
      search_submit: 0,
    });
  });

  it('redirects with the utm parameters and the link code, and 404s an unknown code', async () => {
    const res = await request(api.url).get(`/${linkCode}`);
    const url = new URL(res.headers.location as string);
    expect(url.origin + url.pathname).toBe('https://shop.example/collections/summer');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      utm_source: 'instagram',
      utm_medium: 'social',
      utm_campaign: 'influencer_kim',
      ab_lnk: linkCode,
    });
    expect((await request(api.url).get('/ZZZZZZZZ')).status).toBe(404);
  });
});
