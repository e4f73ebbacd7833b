/**
 * Ads attribution end to end (docs/product.md, Ads attribution and Settings): a journey with two paid touches on
 * different ads and one organic touch, credited under all five models, read back from the ad report at ad, ad
 * set, campaign and channel level with spend, roas, cpa, ctr and cvr worked out by hand; the customers and
 * orders behind a row; a late spend push and a late touch moving the figures exactly; the settings operations;
 * errors naming the field and tenant isolation.
 */
import request from 'supertest';
import type { AdRecord } from '../../contracts/src/ads';
import type { Db } from '../../storage/db';
import type { RunningApi } from '../../query-api/src/app/api';
import type { RunningPipeline } from '../../pipeline/src/app/daemon';
import { reconcileStore } from '../../pipeline/src/operations/reconcile';
import { createDestination, insertDeadLetter } from '../../webhook-worker/src/destination-repo';
import {
  createTestStore,
  pacer,
  startTestApi,
  startTestPipeline,
  testDb,
  type TestStore,
  waitFor,
} from '../support/harness';
import { checkoutCompleted, pageView, send } from '../support/journeys';

let db: Db;
let api: RunningApi;
let pipeline: RunningPipeline;
let shop: TestStore;
let other: TestStore;

const DAY = 86_400_000;
const base = Math.floor(Date.now() / DAY) * DAY - 8 * DAY;
const at = (days: number, hh: number, mm = 0) => new Date(base + days * DAY + (hh * 60 + mm) * 60_000).toISOString();
const day = (days: number) => new Date(base + days * DAY).toISOString().slice(0, 10);
const START = day(0);
const END = day(8);

const META_A =
  'https://shop.example/?utm_source=facebook&utm_medium=paid_social&utm_campaign=spring&utm_id=120&adset_id=1201&ad_id=12011&fbclid=f1';
const META_B =
  'https://shop.example/?utm_source=facebook&utm_medium=paid_social&utm_campaign=spring&utm_id=120&adset_id=1201&ad_id=12012&fbclid=f2';
const GOOGLE =
  'https://shop.example/?utm_source=google&utm_medium=cpc&utm_campaign=brand&gclid=g1&campaignid=205&adgroupid=1512&creative=6901';

const paced = pacer();
function post(path: string, body: object, key = shop.credentials.api_key) {
  return paced(`${key} ${path}`, () => request(api.url).post(`/v2-4-2/api/${path}`).set('ApiKey', key).send(body));
}

function spend(o: {
  platform: string;
  account: string;
  campaignId: string;
  campaignName: string;
  adsetId: string;
  adsetName: string;
  adId: string;
  adName: string;
  source: string;
  medium: string;
  campaign: string;
  spend: number;
  impressions: number;
  clicks: number;
  value: number;
  updatedAt?: string;
}) {
  return {
    date: day(1),
    platform: o.platform,
    account_id: o.account,
    campaign_id: o.campaignId,
    campaign_name: o.campaignName,
    adset_id: o.adsetId,
    adset_name: o.adsetName,
    ad_id: o.adId,
    ad_name: o.adName,
    source: o.source,
    medium: o.medium,
    campaign: o.campaign,
    spend: o.spend,
    impressions: o.impressions,
    clicks: o.clicks,
    conversion_value: o.value,
    currency: 'USD',
    updated_at: o.updatedAt ?? '2026-01-01T00:00:00Z',
  };
}

const videoA = (spendUsd: number, updatedAt?: string) =>
  spend({
    platform: 'facebook',
    account: 'act_1',
    campaignId: '120',
    campaignName: 'Spring Sale',
    adsetId: '1201',
    adsetName: 'Lookalike US',
    adId: '12011',
    adName: 'Video A',
    source: 'facebook',
    medium: 'paid_social',
    campaign: 'spring',
    spend: spendUsd,
    impressions: 10_000,
    clicks: 200,
    value: 150,
    updatedAt,
  });

async function pushSpend(rows: object[]) {
  const res = await request(api.url)
    .post('/v2-4-2/api/store/ad-spend')
    .set('X-Ingest-Key', shop.credentials.ingest_key)
    .send(rows);
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  db = testDb();
  api = await startTestApi();
  pipeline = await startTestPipeline();
  shop = await createTestStore(db, { timezone: 'UTC', lookbackDays: 30 });
  other = await createTestStore(db, { timezone: 'UTC' });

  await pushSpend([
    videoA(50),
    spend({
      platform: 'facebook',
      account: 'act_1',
      campaignId: '120',
      campaignName: 'Spring Sale',
      adsetId: '1201',
      adsetName: 'Lookalike US',
      adId: '12012',
      adName: 'Video B',
      source: 'facebook',
      medium: 'paid_social',
      campaign: 'spring',
      spend: 30,
      impressions: 5_000,
      clicks: 100,
      value: 0,
    }),
    spend({
      platform: 'google',
      account: '555',
      campaignId: '205',
      campaignName: 'Brand Search',
      adsetId: '1512',
      adsetName: 'Exact',
      adId: '6901',
      adName: 'RSA 1',
      source: 'google',
      medium: 'cpc',
      campaign: 'brand',
      spend: 20,
      impressions: 1_000,
      clicks: 40,
      value: 60,
    }),
  ]);
  // Client J: Meta ad A on day 1, Google ad on day 3, an organic visit on day 4 and a purchase of 100 then.
  await send(api.url, shop.credentials.ingest_key, db, shop.store.store_id, [
    pageView({ client: 'J', at: at(1, 10), url: META_A }),
    pageView({ client: 'J', at: at(3, 10), url: GOOGLE }),
    pageView({ client: 'J', at: at(4, 10), url: 'https://shop.example/blog', referrer: 'https://www.google.com/' }),
    checkoutCompleted(
      { client: 'J', at: at(4, 10, 5) },
      { orderId: '9001', token: 't-9001', amount: 100, email: 'jane@example.com', firstOrder: true },
    ),
  ]);
  await waitFor(
    () => db.query('test.spend', 'select 1 from ad_spend where store_id = $1', [shop.store.store_id]),
    (rows) => rows.length === 3,
  );
});

afterAll(async () => {
  await pipeline.stop();
  await api.stop();
  await db.close();
});

const body = (dimensions: string[], model: string, over: Record<string, unknown> = {}) => ({
  start_date: START,
  end_date: END,
  dimensions,
  model,
  goal: 'purchase',
  page: 1,
  page_size: 100,
  ...over,
});

async function adRows(dimensions: string[], model: string, over: Record<string, unknown> = {}): Promise<AdRecord[]> {
  const res = await post('get/ad-analysis/list', body(dimensions, model, over));
  expect(res.status).toBe(200);
  return (res.body as { data: { records: AdRecord[] } }).data.records;
}

const pick = (r: AdRecord) => ({
  campaign: r.campaign,
  ad_set: r.ad_set,
  ad: r.ad,
  conversions: r.conversions,
  conversion_value: r.conversion_value,
  spend: r.spend,
});

// Touchpoints of order 9001 (lookback 30 days): S1 Meta ad A (day 1 10:00), S2 Google ad (day 3 10:00),
// S3 organic google search (day 4 10:00); n = 3, none direct.
//   first: S1 1 / 100;  last: S3 1 / 100 (organic: no ad row)
//   linear: 1/3 each -> weights [333_334, 333_333, 333_333] (remainder to the earliest), cents [3_334, 3_333, 3_333]
//   position: 0.4 / 0.2 / 0.4 -> S1 0.4 / 40, S2 0.2 / 20
//   time_decay, H = 7 days, relative to S3: S1 2^(-3/7) = 0.742997, S2 2^(-1/7) = 0.905724, S3 1; sum 2.648721
//     -> shares 0.280512 / 0.341948 / 0.377541 -> weights [280_512, 341_947, 377_541], cents [2_805, 3_420, 3_775]
// Spend on day 1: Video A 50 (10_000 impressions, 200 clicks, platform value 150), Video B 30 (5_000, 100, 0),
// RSA 1 20 (1_000, 40, 60).
describe('the ad report, by hand', () => {
  it('credits each ad under the five models', async () => {
    const expected: Record<string, Array<[string, number, number]>> = {
      first: [['Video A', 1, 100]],
      last: [],
      linear: [
        ['Video A', 0.333334, 33.34],
        ['RSA 1', 0.333333, 33.33],
      ],
      position: [
        ['Video A', 0.4, 40],
        ['RSA 1', 0.2, 20],
      ],
      time_decay: [
        ['RSA 1', 0.341947, 34.2],
        ['Video A', 0.280512, 28.05],
      ],
    };
    for (const [model, credited] of Object.entries(expected)) {
      const rows = (await adRows(['ad'], model)).filter((r) => r.conversions > 0);
      expect(rows.map((r) => [r.ad, r.conversions, r.conversion_value])).toEqual(credited);
    }
  });

  it('shows spend, roas, cpa, ctr and cvr at ad, ad set, campaign and channel level', async () => {
    const ads = await adRows(['platform', 'campaign', 'ad_set', 'ad'], 'position');
    expect(ads).toEqual([
      {
        channel: '',
        platform: 'facebook',
        campaign: 'Spring Sale',
        ad_set: 'Lookalike US',
        ad: 'Video A',
        account_id: 'act_1',
        campaign_id: '120',
        ad_set_id: '1201',
        ad_id: '12011',
        conversions: 0.4,
        new_lead_conversions: 0.4,
        conversion_value: 40,
        spend: 50,
        clicks: 200,
        ad_conversion_value: 150,
        impressions: 10_000,
        roas: 0.8, // 40 / 50
        ad_roas: 3, // 150 / 50
        cpa: 125, // 50 / 0.4
        cpm: 5, // 1000 * 50 / 10_000
        cpc: 0.25, // 50 / 200
        net_profit: -10, // 40 - 0 - 50
        net_margin: -0.25, // -10 / 40
        ctr: 0.02, // 200 / 10_000
        cvr: 0.002, // 0.4 / 200
      },
      {
        channel: '',
        platform: 'google',
        campaign: 'Brand Search',
        ad_set: 'Exact',
        ad: 'RSA 1',
        account_id: '555',
        campaign_id: '205',
        ad_set_id: '1512',
        ad_id: '6901',
        conversions: 0.2,
        new_lead_conversions: 0.2,
        conversion_value: 20,
        spend: 20,
        clicks: 40,
        ad_conversion_value: 60,
        impressions: 1_000,
        roas: 1,
        ad_roas: 3,
        cpa: 100,
        cpm: 20,
        cpc: 0.5,
        net_profit: 0,
        net_margin: 0,
        ctr: 0.04,
        cvr: 0.005,
      },
      {
        channel: '',
        platform: 'facebook',
        campaign: 'Spring Sale',
        ad_set: 'Lookalike US',
        ad: 'Video B',
        account_id: 'act_1',
        campaign_id: '120',
        ad_set_id: '1201',
        ad_id: '12012',
        conversions: 0,
        new_lead_conversions: 0,
        conversion_value: 0,
        spend: 30,
        clicks: 100,
        ad_conversion_value: 0,
        impressions: 5_000,
        roas: 0,
        ad_roas: 0,
        cpa: 0,
        cpm: 6,
        cpc: 0.3,
        net_profit: -30,
        net_margin: 0,
        ctr: 0.02,
        cvr: 0,
      },
    ]);

    // Ad set and campaign: Video A and Video B together (spend 80, 15_000 impressions, 300 clicks).
    for (const dims of [['ad_set'], ['campaign']]) {
      const [spring, brand] = await adRows(dims, 'position');
      expect(spring).toMatchObject({
        conversions: 0.4,
        conversion_value: 40,
        spend: 80,
        impressions: 15_000,
        clicks: 300,
        roas: 0.5, // 40 / 80
        cpa: 200, // 80 / 0.4
        ctr: 0.02, // 300 / 15_000
        cvr: 0.0013, // 0.4 / 300 = 0.001333
      });
      expect(brand).toMatchObject({ conversions: 0.2, spend: 20, roas: 1, cpa: 100, ctr: 0.04, cvr: 0.005 });
    }
    const [campaign] = await adRows(['campaign'], 'position');
    expect(campaign).toMatchObject({ campaign: 'Spring Sale', campaign_id: '120', account_id: 'act_1', ad_set: '' });

    const channels = await adRows(['channel'], 'position');
    expect(channels.map((r) => [r.channel, r.conversions, r.spend, r.roas])).toEqual([
      ['paid_social', 0.4, 80, 0.5],
      ['paid_search', 0.2, 20, 1],
    ]);
  });

  it('accepts ad_name for ad, filters rows, sorts and pages', async () => {
    const byName = await adRows(['ad_name'], 'position', {
      filters: [{ key: 'platform', operator: 'eq', value: 'facebook' }],
    });
    expect(byName.map((r) => r.ad)).toEqual(['Video A', 'Video B']);
    const some = await adRows(['ad'], 'position', {
      filters: [
        { key: 'ad_id', operator: 'in', value: ['12012', '6901'] },
        { key: 'campaign', operator: 'eq', value: 'Brand Search' },
      ],
    });
    expect(some.map((r) => r.ad_id)).toEqual(['6901']);
    const bySpend = await adRows(['ad'], 'position', { orders: [{ column: 'spend', order: 'asc' }] });
    expect(bySpend.map((r) => r.spend)).toEqual([20, 30, 50]);
    const res = await post('get/ad-analysis/list', body(['ad'], 'position', { page: 2, page_size: 2 }));
    expect(res.body.data).toMatchObject({ total: 3, page_size: 2 });
    expect((res.body.data.records as AdRecord[]).map((r) => r.ad)).toEqual(['Video B']);
  });

  it('list-sum adds every row up; the conversions of the ad rows equal the paid part of get-list-sum', async () => {
    for (const model of ['first', 'last', 'linear', 'position', 'time_decay']) {
      const rows = await adRows(['ad'], model);
      const sum = await post(
        'get/ad-analysis/list-sum',
        body(['ad'], model, { page: undefined, page_size: undefined }),
      );
      expect(sum.status).toBe(200);
      expect(sum.body.data.spend).toBe(100);
      expect(sum.body.data.impressions).toBe(16_000);
      const total = rows.reduce((a, r) => a + r.conversions, 0);
      expect(sum.body.data.conversions).toBeCloseTo(total, 6);
      const [paid] = await db.query<{ w: string | null }>(
        'test.paid',
        `select sum(weight) as w from conversion_credits
         where store_id = $1 and goal = 'purchase' and model = $2 and platform <> '' and day >= $3 and day < $4`,
        [shop.store.store_id, model, START, END],
      );
      expect(Math.round(sum.body.data.conversions * 1e6)).toBe(Number(paid?.w ?? 0));
      const list = await post('all-attribution/get-list', {
        start_date: START,
        end_date: END,
        dimensions: ['channel'],
        model,
        goal: 'purchase',
        page: 1,
        page_size: 100,
      });
      const paidChannels = (list.body.data.records as Array<{ channel: string; conversions: number }>).filter((r) =>
        ['paid_social', 'paid_search'].includes(r.channel),
      );
      expect(paidChannels.reduce((a, r) => a + r.conversions, 0)).toBeCloseTo(total, 6);
    }
  });
});

describe('the customers and orders behind a row', () => {
  it('customer-list rows add up to the row they drill into, with the credits worked by hand', async () => {
    // The credits of order 9001 worked out above (by the describe of the ad report):
    // - position, Video A (ad 12011): 0.4 of the order, 40 of its 100; its campaign row is Spring Sale's.
    // - time decay, Brand Search (RSA 1 only): weight 341_947 -> 0.341947, 3_420 cents -> 34.20.
    // - linear, the paid channels: Video A 333_334 / 33.34 (facebook) and RSA 1 333_333 / 33.33 (google); the
    //   order's one customer-list record sums both: 0.666667 and 66.67.
    for (const { model, filters, dims, rows: drilled, credit, value } of [
      {
        model: 'position',
        filters: [{ key: 'ad_id', operator: 'eq', value: '12011' }],
        dims: ['campaign'],
        rows: [['Spring Sale', '', 0.4, 40]],
        credit: 0.4,
        value: 40,
      },
      {
        model: 'time_decay',
        filters: [{ key: 'campaign', operator: 'eq', value: 'Brand Search' }],
        dims: ['campaign'],
        rows: [['Brand Search', '', 0.341947, 34.2]],
        credit: 0.341947,
        value: 34.2,
      },
      {
        model: 'linear',
        filters: [{ key: 'channel', operator: 'in', value: ['paid_social', 'paid_search'] }],
        dims: ['platform'],
        rows: [
          ['', 'facebook', 0.333334, 33.34],
          ['', 'google', 0.333333, 33.33],
        ],
        credit: 0.666667,
        value: 66.67,
      },
    ] as const) {
      const rows = await adRows([...dims], model, { filters: [...filters] });
      expect(rows.map((r) => [r.campaign, r.platform, r.conversions, r.conversion_value])).toEqual(drilled);
      const listed = await post('get/ad-analysis/customer-list', {
        start_date: START,
        end_date: END,
        dimensions: ['ad'],
        model,
        goal: 'purchase',
        filters,
      });
      expect(listed.status).toBe(200);
      const records = listed.body.data.records as Array<{ order_id: string; credit: number; conversion_value: number }>;
      expect(listed.body.data.total).toBe(1);
      expect(records.map((r) => [r.order_id, r.credit, r.conversion_value])).toEqual([['9001', credit, value]]);
      const rowsSum = (await adRows(['channel'], model, { filters: [...filters] })).reduce(
        (a, r) => ({ c: a.c + r.conversions, v: a.v + r.conversion_value }),
        { c: 0, v: 0 },
      );
      expect(records.reduce((a, r) => a + r.credit, 0)).toBeCloseTo(rowsSum.c, 6);
      expect(records.reduce((a, r) => a + r.conversion_value, 0)).toBeCloseTo(rowsSum.v, 2);
    }
    const one = await post('get/ad-analysis/customer-list', {
      start_date: START,
      end_date: END,
      dimensions: ['ad'],
      model: 'position',
      goal: 'purchase',
      filters: [{ key: 'ad_id', operator: 'eq', value: '12011' }],
    });
    expect(one.body.data).toEqual({
      total: 1,
      page: 1,
      page_size: 20,
      records: [
        {
          order_id: '9001',
          customer_id: 'cust-jane@example.com',
          email: 'jane@example.com',
          first_name: '',
          last_name: '',
          converted_at: at(4, 10, 5).replace('T', ' ').slice(0, 19),
          credit: 0.4,
          conversion_value: 40,
          order_value: 100,
          new_customer: true,
          first_touchpoint: {
            campaign: 'spring',
            channel: 'paid_social',
            source: 'facebook',
            medium: 'paid_social',
            time: at(1, 10).replace('T', ' ').slice(0, 19),
          },
          last_touchpoint: expect.objectContaining({ channel: 'organic_search', source: 'google' }),
        },
      ],
    });
  });

  it('order/campaign-list lists the orders credited to a campaign', async () => {
    const res = await post('order/campaign-list', {
      start_date: START,
      end_date: END,
      campaign: 'Spring',
      model: 'position',
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ total: 1, page: 1, page_size: 20 });
    expect(res.body.data.records[0]).toMatchObject({
      order_id: '9001',
      email: 'jane@example.com',
      total_price: 100,
      currency: 'USD',
      credit: 0.4,
      attributed_value: 40,
      new_customer: true,
      touchpoints_count: 3,
    });
    const none = await post('order/campaign-list', {
      start_date: START,
      end_date: END,
      campaign: 'spring',
      model: 'last',
    });
    expect(none.body.data).toEqual({ total: 0, page: 1, page_size: 20, records: [] });
    const filtered = await post('order/campaign-list', {
      start_date: START,
      end_date: END,
      campaign: 'brand',
      platform: 'facebook',
      model: 'linear',
    });
    expect(filtered.body.data.total).toBe(0);
  });
});

describe('late facts move the figures exactly', () => {
  it('a late spend push and a late touch', async () => {
    // A newer version of Video A's spend row: 100 instead of 50 -> roas 40 / 100 = 0.4, cpa 250.
    await pushSpend([videoA(100, '2026-02-01T00:00:00Z')]);
    await waitFor(
      () =>
        db.query<{ s: string }>(
          'test.spend_a',
          `select spend_micros::text as s from ad_spend where store_id = $1 and ad_id = '12011'`,
          [shop.store.store_id],
        ),
      (rows) => rows[0]?.s === '100000000',
    );
    const [a] = await adRows(['ad'], 'position', { filters: [{ key: 'ad_id', operator: 'eq', value: '12011' }] });
    expect(pick(a!)).toEqual({
      campaign: '',
      ad_set: '',
      ad: 'Video A',
      conversions: 0.4,
      conversion_value: 40,
      spend: 100,
    });
    expect(a).toMatchObject({ roas: 0.4, cpa: 250 });

    // A touch on Video B on day 2 arrives late: n = 4, position gives 0.4 / 0.1 / 0.1 / 0.4.
    await send(api.url, shop.credentials.ingest_key, db, shop.store.store_id, [
      pageView({ client: 'J', at: at(2, 10), url: META_B }),
    ]);
    await waitFor(
      () => adRows(['ad'], 'position'),
      (rows) => rows.some((r) => r.ad === 'Video B' && r.conversions > 0),
    );
    const rows = await adRows(['ad'], 'position');
    expect(rows.map((r) => [r.ad, r.conversions, r.conversion_value])).toEqual([
      ['Video A', 0.4, 40],
      ['RSA 1', 0.1, 10],
      ['Video B', 0.1, 10],
    ]);
    const r = await reconcileStore(db, shop.store.store_id);
    expect(r.drift).toEqual([]);
  });
});

describe('settings', () => {
  it('get/setting-models lists the six models with the store settings, data_driven with its fit', async () => {
    const res = await post('get/setting-models', {});
    expect(res.status).toBe(200);
    const records = res.body.data.records as Array<Record<string, unknown>>;
    expect(records.map((r) => r.code)).toEqual(['first', 'last', 'linear', 'position', 'time_decay', 'data_driven']);
    // Not fitted yet: every goal says so, with the thresholds.
    expect(records.find((r) => r.code === 'data_driven')?.data_driven).toMatchObject({
      min_conversions: 100,
      min_paths: 1000,
      goals: ['purchase', 'add_to_cart', 'checkout_start', 'payment_info_submitted'].map((goal) => ({
        goal,
        fitted: false,
        weights: {},
      })),
    });
    expect(records.find((r) => r.code === 'time_decay')).toMatchObject({
      base_model: 'time_decay',
      lookback_days: 30,
      half_life_days: 7,
      position_weights: null,
      is_default: false,
    });
    expect(records.find((r) => r.code === 'position')).toMatchObject({
      position_weights: { first: 0.4, middle: 0.2, last: 0.4 },
      half_life_days: null,
    });
    expect(records.filter((r) => r.is_default).map((r) => r.code)).toEqual(['last']);
  });

  it('get/setting-goals counts the conversions of the last 30 days', async () => {
    const res = await post('get/setting-goals', {});
    expect(res.status).toBe(200);
    expect(res.body.data.goals).toEqual([
      { code: 'purchase', name: 'Purchase', event_type: 'checkout_completed', lookback_days: 30, conversion_num: 1 },
      {
        code: 'add_to_cart',
        name: 'Add to cart',
        event_type: 'product_added_to_cart',
        lookback_days: 30,
        conversion_num: 0,
      },
      {
        code: 'checkout_start',
        name: 'Checkout started',
        event_type: 'checkout_started',
        lookback_days: 30,
        conversion_num: 0,
      },
      {
        code: 'payment_info_submitted',
        name: 'Payment info submitted',
        event_type: 'payment_info_submitted',
        lookback_days: 30,
        conversion_num: 0,
      },
    ]);
  });

  it('get/connection/source tells what fed the store', async () => {
    const res = await post('get/connection/source', {});
    expect(res.status).toBe(200);
    const byId = Object.fromEntries(
      (res.body.data.records as Array<{ id: string }>).map((r) => [r.id, r] as const),
    ) as Record<string, Record<string, unknown>>;
    expect(Object.keys(byId)).toEqual([
      'shopify_pixel',
      'web_snippet',
      'store_push',
      'ad:facebook:act_1',
      'ad:google:555',
    ]);
    expect(byId.shopify_pixel).toMatchObject({ connected: false, last_event_at: null, events_24h: 0 });
    expect(byId.web_snippet).toMatchObject({ platform_type: 'web_snippet', connected: true, events_24h: 5 });
    expect(byId['ad:facebook:act_1']).toMatchObject({ platform_type: 'facebook', account_id: 'act_1', events_24h: 0 });
    // The spend rows' updated_at is in the past: connected only when something arrived in the last 7 days.
    expect(byId['ad:google:555']).toMatchObject({ connected: false });
  });

  it('get/connection/destination shows each destination and its state', async () => {
    const d = await createDestination(db, {
      storeId: shop.store.store_id,
      url: 'https://hooks.example/in',
      events: ['Checkout Started', 'Added to Cart'],
    });
    const id = d.destination.destination_id;
    await insertDeadLetter(db, {
      storeId: shop.store.store_id,
      destinationId: id,
      webhookId: 'msg_1',
      eventName: 'Checkout Started',
      body: '{}',
      attempts: 5,
      lastStatus: 500,
      lastError: 'boom',
    });
    await db.query(
      'test.status',
      `update webhook_destinations set last_delivery_at = '2026-01-01T10:00:00Z', last_failure_at = '2026-01-02T10:00:00Z'
       where store_id = $1 and destination_id = $2`,
      [shop.store.store_id, id],
    );
    const res = await post('get/connection/destination', {});
    expect(res.status).toBe(200);
    expect(res.body.data.records).toEqual([
      {
        id,
        platform_type: 'webhook',
        name: 'hooks.example',
        status: 'enabled',
        server_config: {
          'Active On site': false,
          'Viewed Product': false,
          'Collection View': false,
          'Added to Cart': true,
          'Checkout Started': true,
          Subscribe: false,
        },
        last_delivery_at: '2026-01-01 10:00:00',
        failing: true,
        dead_letters: 1,
      },
    ]);
    const none = await post('get/connection/destination', {}, other.credentials.api_key);
    expect(none.body.data.records).toEqual([]);
  });

  it('refuses a body with members', async () => {
    const res = await post('get/setting-models', { x: 1 });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 400, data: null, message: expect.stringMatching(/x/) });
  });
});

describe('errors name the field; another store sees nothing', () => {
  it.each([
    ['dimensions', { dimensions: ['adset'] }],
    ['dimensions', { dimensions: [] }],
    ['dimensions', { dimensions: ['channel', 'platform', 'campaign', 'ad_set', 'ad'] }],
    ['dimensions', { dimensions: ['ad', 'ad_name'] }],
    ['model', { model: 'data_driven' }],
    ['filters[0].key', { filters: [{ key: 'source', operator: 'eq', value: 'x' }] }],
    ['filters[0].operator', { filters: [{ key: 'ad', operator: 'like', value: 'x' }] }],
    ['filters[0].value', { filters: [{ key: 'ad', operator: 'in', value: 'x' }] }],
    [
      'filters[1].value',
      {
        filters: [
          { key: 'ad', operator: 'eq', value: 'x' },
          { key: 'ad', operator: 'eq', value: ['x'] },
        ],
      },
    ],
    ['orders[0].column', { orders: [{ column: 'source', order: 'asc' }] }],
    ['end_date', { end_date: START }],
    ['start_date', { start_date: '2026-02-30' }],
  ])('%s', async (field, over) => {
    const res = await post('get/ad-analysis/list', body(['ad'], 'last', over));
    expect(res.status).toBe(400);
    expect(res.body.data).toBeNull();
    expect(res.body.message).toMatch(new RegExp(`^${field.replace(/[[\].]/g, '\\$&')}`));
  });

  it('order/campaign-list and customer-list check their fields too', async () => {
    const a = await post('order/campaign-list', { start_date: START, end_date: END, campaign: '  ' });
    expect(a.status).toBe(400);
    expect(a.body.message).toMatch(/^campaign/);
    const b = await post('order/campaign-list', { start_date: START, end_date: END });
    expect(b.status).toBe(400);
    expect(b.body.message).toMatch(/campaign/);
    const c = await post('get/ad-analysis/customer-list', {
      start_date: START,
      end_date: END,
      dimensions: ['ad'],
      model: 'last',
      goal: 'purchase',
      page_size: 101,
    });
    expect(c.status).toBe(400);
    expect(c.body.message).toMatch(/page_size/);
  });

  it('another store’s key sees none of these rows', async () => {
    for (const model of ['first', 'position', 'time_decay']) {
      const rows = await adRows(['ad'], model, {}).then(() =>
        post('get/ad-analysis/list', body(['ad'], model), other.credentials.api_key),
      );
      expect(rows.body.data).toEqual({ total: 0, page_size: 100, records: [] });
    }
    const c = await post(
      'get/ad-analysis/customer-list',
      { start_date: START, end_date: END, dimensions: ['ad'], model: 'first', goal: 'purchase' },
      other.credentials.api_key,
    );
    expect(c.body.data.total).toBe(0);
    const o = await post(
      'order/campaign-list',
      { start_date: START, end_date: END, campaign: 'spring', model: 'first' },
      other.credentials.api_key,
    );
    expect(o.body.data.total).toBe(0);
    const s = await post('get/connection/source', {}, other.credentials.api_key);
    expect((s.body.data.records as Array<{ events_24h: number }>).every((r) => r.events_24h === 0)).toBe(true);
  });
});
