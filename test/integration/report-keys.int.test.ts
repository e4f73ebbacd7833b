/**
 * One record per combination of the requested dimensions in get-list (docs/decisions.md, Views and metrics):
 * paid and organic traffic of one source, or a campaign with conversions from one platform and spend from
 * another, come back as one record whose ratios are computed on the joined figures. A property test pages
 * through every dimension set and checks that no key repeats across pages and that the pages add up to
 * get-list-sum.
 */
import fc from 'fast-check';
import request from 'supertest';
import { DIMENSIONS, RULE_BASED_MODELS } from '../../contracts/src/attribution';
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
import { checkoutCompleted, pageView, send } from '../support/journeys';

let db: Db;
let api: RunningApi;
let pipeline: RunningPipeline;
let shop: TestStore;

const DAY = 86_400_000;
const base = Math.floor(Date.now() / DAY) * DAY - 6 * DAY;
const at = (days: number, hh: number, mm = 0) => new Date(base + days * DAY + (hh * 60 + mm) * 60_000).toISOString();
const day = (days: number) => new Date(base + days * DAY).toISOString().slice(0, 10);
const START = day(0);
const END = day(7);

const paced = pacer();
function post(path: string, body: object) {
  return paced(path, () => request(api.url).post(path).set('ApiKey', shop.credentials.api_key).send(body));
}

function spendRow(o: {
  date: string;
  platform: string;
  source: string;
  medium: string;
  campaign: string;
  spend: number;
}) {
  return {
    date: o.date,
    platform: o.platform,
    account_id: `acc-${o.platform}`,
    campaign_id: `cmp-${o.campaign}`,
    campaign_name: o.campaign,
    adset_id: '',
    adset_name: '',
    ad_id: '',
    ad_name: '',
    source: o.source,
    medium: o.medium,
    campaign: o.campaign,
    spend: o.spend,
    impressions: 1000,
    clicks: 50,
    conversion_value: 0,
    currency: 'USD',
  };
}

beforeAll(async () => {
  db = testDb();
  api = await startTestApi();
  pipeline = await startTestPipeline();
  shop = await createTestStore(db, { timezone: 'UTC' });
  const ingest = shop.credentials.ingest_key;

  // Campaign "summer": its only conversion came through email (order 7001 of 100); its only spend is
  // Facebook's (40). Source "google": one paid purchase (7002 of 80) and one organic (7003 of 20), spend 30.
  const res = await request(api.url)
    .post('/v2-4-2/api/store/ad-spend')
    .set('X-Ingest-Key', ingest)
    .send([
      spendRow({
        date: day(1),
        platform: 'facebook',
        source: 'facebook',
        medium: 'paid_social',
        campaign: 'summer',
        spend: 40,
      }),
      spendRow({ date: day(2), platform: 'google', source: 'google', medium: 'cpc', campaign: 'brand', spend: 30 }),
    ]);
  expect(res.status).toBe(200);
  await send(api.url, ingest, db, shop.store.store_id, [
    pageView({
      client: 'E',
      at: at(1, 9),
      url: 'https://shop.example/?utm_source=klaviyo&utm_medium=email&utm_campaign=summer',
    }),
    checkoutCompleted(
      { client: 'E', at: at(1, 9, 5) },
      { orderId: '7001', token: 't-7001', amount: 100, email: 'e@example.com' },
    ),
    pageView({
      client: 'G',
      at: at(2, 9),
      url: 'https://shop.example/?utm_source=google&utm_medium=cpc&utm_campaign=brand&gclid=g1',
    }),
    checkoutCompleted(
      { client: 'G', at: at(2, 9, 5) },
      { orderId: '7002', token: 't-7002', amount: 80, email: 'g@example.com' },
    ),
    pageView({ client: 'O', at: at(3, 9), url: 'https://shop.example/blog', referrer: 'https://www.google.com/' }),
    checkoutCompleted(
      { client: 'O', at: at(3, 9, 5) },
      { orderId: '7003', token: 't-7003', amount: 20, email: 'o@example.com' },
    ),
  ]);
  await waitFor(
    () => db.query('test.spend', 'select 1 from ad_spend_daily where store_id = $1', [shop.store.store_id]),
    (rows) => rows.length === 2,
  );
});

afterAll(async () => {
  await pipeline.stop();
  await api.stop();
  await db.close();
});

const body = (dimensions: string[], over: Record<string, unknown> = {}) => ({
  start_date: START,
  end_date: END,
  dimensions,
  model: 'last',
  goal: 'purchase',
  page: 1,
  page_size: 100,
  ...over,
});

it('a campaign with conversions from email and spend from Facebook is one record with its roas, cpa and net margin', async () => {
  const res = await post('/v2-4-2/api/all-attribution/get-list', body(['campaign']));
  expect(res.status).toBe(200);
  const summer = (res.body.data.records as AttributionRecord[]).filter((r) => r.campaign === 'summer');
  // conversions 1 of 100 against 40 of spend: roas 2.5, cpa 40, net profit 100 - 0 - 40 = 60, margin 0.6.
  expect(summer).toEqual([
    expect.objectContaining({
      campaign: 'summer',
      platform: '',
      conversions: 1,
      conversion_value: 100,
      spend: 40,
      impressions: 1000,
      clicks: 50,
      roas: 2.5,
      cpa: 40,
      net_profit: 60,
      net_margin: 0.6,
    }),
  ]);
});

it('paid and organic traffic of one source is one record', async () => {
  const res = await post('/v2-4-2/api/all-attribution/get-list', body(['source']));
  const google = (res.body.data.records as AttributionRecord[]).filter((r) => r.source === 'google');
  // 80 (cpc) + 20 (organic) against 30 of spend: roas 3.3333, cpa 15.
  expect(google).toEqual([
    expect.objectContaining({ platform: '', conversions: 2, conversion_value: 100, spend: 30, roas: 3.3333, cpa: 15 }),
  ]);
});

it('keys never repeat across pages, for any dimensions, model, sort and page size, and pages add up to the summary', async () => {
  const dimensionSets = fc.uniqueArray(fc.constantFrom(...DIMENSIONS), { minLength: 1, maxLength: 3 });
  await fc.assert(
    fc.asyncProperty(
      dimensionSets,
      fc.constantFrom(...RULE_BASED_MODELS),
      fc.integer({ min: 1, max: 3 }),
      fc.constantFrom('conversions', 'spend', 'roas', 'conversion_value'),
      fc.constantFrom('asc', 'desc'),
      async (dims, model, pageSize, column, order) => {
        const records: AttributionRecord[] = [];
        let total = -1;
        for (let page = 1; total < 0 || (page - 1) * pageSize < total; page++) {
          const res = await post(
            '/v2-4-2/api/all-attribution/get-list',
            body(dims, { model, page, page_size: pageSize, orders: [{ column, order }] }),
          );
          expect(res.status).toBe(200);
          total = res.body.data.total as number;
          records.push(...(res.body.data.records as AttributionRecord[]));
        }
        expect(records).toHaveLength(total);
        const keys = records.map((r) => JSON.stringify(dims.map((d) => r[d as keyof AttributionRecord])));
        expect(new Set(keys).size).toBe(keys.length);
        const { page: _p, page_size: _s, ...sumBody } = body(dims, { model });
        const sum = (await post('/v2-4-2/api/all-attribution/get-list-sum', sumBody)).body.data as AttributionRecord;
        const add = (f: 'conversions' | 'conversion_value' | 'spend') =>
          Math.round(records.reduce((s, r) => s + r[f], 0) * 1e6) / 1e6;
        expect({
          conversions: add('conversions'),
          conversion_value: add('conversion_value'),
          spend: add('spend'),
        }).toEqual({
          conversions: sum.conversions,
          conversion_value: sum.conversion_value,
          spend: sum.spend,
        });
      },
    ),
    { numRuns: 12 },
  );
});
