/**
 * The attribution engine end to end, through HTTP, JetStream, the pipeline and PostgreSQL, on
 * small journeys whose credits are worked out by hand in the comments. Every test ends with the
 * reconciliation finding zero drift: the incrementally maintained views equal a recomputation.
 */
import type { Db } from '../../storage/db';
import type { RunningApi } from '../../query-api/src/app/api';
import type { RunningPipeline } from '../../pipeline/src/app/daemon';
import { reconcileStore } from '../../pipeline/src/operations/reconcile';
import request from 'supertest';
import { sampleProduct } from '../support/samples';
import { ATTRIBUTION_BY_AD } from '../../pipeline/src/domain/rollups/ad';
import { byModel } from '../support/attribution-by-model';
import { createTestStore, startTestApi, startTestPipeline, testDb, type TestStore, waitFor } from '../support/harness';
import {
  addToCart,
  checkoutCompleted,
  checkoutStarted,
  leadForm,
  order,
  pageView,
  paymentInfo,
  pushOrder,
  rollup,
  send,
} from '../support/journeys';

let db: Db;
let api: RunningApi;
let pipeline: RunningPipeline;

beforeAll(async () => {
  db = testDb();
  api = await startTestApi();
  pipeline = await startTestPipeline();
});
afterAll(async () => {
  await pipeline.stop();
  await api.stop();
  await db.close();
});

async function newStore(opts: { lookbackDays?: number; timezone?: string } = {}) {
  const shop: TestStore = await createTestStore(db, opts);
  const id = shop.store.store_id;
  return {
    id,
    send: (...events: Parameters<typeof send>[4]) => send(api.url, shop.credentials.ingest_key, db, id, events),
    pushOrder: (o: Parameters<typeof pushOrder>[4]) => pushOrder(api.url, shop.credentials.ingest_key, db, id, o),
    rollup: (goal: string, model: string) => rollup(db, id, goal, model),
    /** The platforms of the touchpoints a goal's conversions credit under a model (the rollups sum them). */
    platforms: async (goal: string, model: string) =>
      (
        await db.query<{ platform: string }>(
          'test.platforms',
          'select distinct platform from conversion_credits where store_id = $1 and goal = $2 and model = $3 order by 1',
          [id, goal, model],
        )
      ).map((r) => r.platform),
    ingestKey: shop.credentials.ingest_key,
    apiKey: shop.credentials.api_key,
    expectNoDrift: async () => {
      const r = await reconcileStore(db, id);
      expect(r.drift).toEqual([]);
      expect(r.driftCount).toBe(0);
    },
  };
}

const GOOGLE = 'https://shop.example/?utm_source=google&utm_medium=cpc&utm_campaign=brand&gclid=abc';
const FACEBOOK_REF = 'https://www.facebook.com/';

const bySource = (rows: Awaited<ReturnType<typeof rollup>>) =>
  Object.fromEntries(
    rows.map((r) => [
      `${r.source}/${r.medium}`,
      { conversions: r.conversions, value: r.value, new: r.new_lead_conversions },
    ]),
  );

describe('a two-device journey, by hand', () => {
  // Device A: day 1 google cpc (S1), day 3 facebook organic (S2) and an add to cart of 20 at 12:05,
  // day 4 a lead form with jane's email. Device B: day 5 direct visit (S3) and a purchase of 100 by jane.
  // The lead form joins A and B into one person. Lookback 30 days.
  //
  // add_to_cart (day 3, value 20): touches in the window are S1, S2 (n = 2).
  //   first: google 1 / 20     last: facebook 1 / 20
  //   linear: 0.5 / 10 each    position (n = 2): 0.5 / 10 each
  // purchase (day 5, value 100): touches S1, S2, S3; S3 is direct and others are not, so it is dropped (n = 2).
  //   first: google 1 / 100    last: facebook 1 / 100
  //   linear and position: 0.5 / 50 each
  // Both are new-lead conversions (no purchase before; the event says isFirstOrder).
  it('credits each model as worked out on paper', async () => {
    const s = await newStore();
    await s.send(
      pageView({ client: 'A', at: '2026-05-01T10:00:00Z', url: GOOGLE }),
      pageView({ client: 'A', at: '2026-05-03T12:00:00Z', url: 'https://shop.example/blog', referrer: FACEBOOK_REF }),
      addToCart({ client: 'A', at: '2026-05-03T12:05:00Z', url: 'https://shop.example/products/tee' }, 20),
      leadForm({ client: 'A', at: '2026-05-04T08:00:00Z' }, 'jane@example.com'),
      pageView({ client: 'B', at: '2026-05-05T09:00:00Z' }),
      checkoutCompleted(
        { client: 'B', at: '2026-05-05T09:10:00Z' },
        { orderId: '5005', token: 't-1', amount: 100, email: 'Jane@Example.com ', firstOrder: true },
      ),
    );

    expect(bySource(await s.rollup('add_to_cart', 'first'))).toEqual({
      'google/cpc': { conversions: 1, value: 20, new: 1 },
    });
    expect(bySource(await s.rollup('add_to_cart', 'last'))).toEqual({
      'facebook/social': { conversions: 1, value: 20, new: 1 },
    });
    for (const model of ['linear', 'position']) {
      expect(bySource(await s.rollup('add_to_cart', model))).toEqual({
        'google/cpc': { conversions: 0.5, value: 10, new: 0.5 },
        'facebook/social': { conversions: 0.5, value: 10, new: 0.5 },
      });
    }
    expect(bySource(await s.rollup('purchase', 'first'))).toEqual({
      'google/cpc': { conversions: 1, value: 100, new: 1 },
    });
    expect(bySource(await s.rollup('purchase', 'last'))).toEqual({
      'facebook/social': { conversions: 1, value: 100, new: 1 },
    });
    for (const model of ['linear', 'position']) {
      expect(bySource(await s.rollup('purchase', model))).toEqual({
        'google/cpc': { conversions: 0.5, value: 50, new: 0.5 },
        'facebook/social': { conversions: 0.5, value: 50, new: 0.5 },
      });
    }
    const [g] = await s.rollup('purchase', 'first');
    expect(g).toMatchObject({ day: '2026-05-05', channel: 'paid_search', campaign: 'brand' });
    expect(await s.platforms('purchase', 'first')).toEqual(['google']);
    const [f] = await s.rollup('purchase', 'last');
    expect(f).toMatchObject({ channel: 'organic_social', campaign: '(referral)' });
    expect(await s.platforms('purchase', 'last')).toEqual(['']);
    await s.expectNoDrift();
  });
});

describe('position model over four touches and the other goals', () => {
  // One client, four sessions a day apart: google cpc, newsletter email, bing organic, tiktok cpc;
  // then checkout_started (value 80) and payment_info_submitted (value 80) on the same token, twice
  // each (one conversion per token), in the last session.
  //   position n = 4: 0.4 first (google), 0.1 + 0.1 middle (email, bing), 0.4 last (tiktok)
  //   values: 32, 8, 8, 32
  //   linear: 0.25 and 20 each; first: google 1; last: tiktok 1.
  it('splits 40/20/40 and counts one conversion per checkout token', async () => {
    const s = await newStore();
    await s.send(
      pageView({ client: 'C', at: '2026-06-01T10:00:00Z', url: GOOGLE }),
      pageView({
        client: 'C',
        at: '2026-06-02T10:00:00Z',
        url: 'https://shop.example/?utm_source=newsletter&utm_medium=email&utm_campaign=june',
      }),
      pageView({
        client: 'C',
        at: '2026-06-03T10:00:00Z',
        url: 'https://shop.example/p',
        referrer: 'https://www.bing.com/search?q=x',
      }),
      pageView({ client: 'C', at: '2026-06-04T10:00:00Z', url: 'https://shop.example/?ttclid=zz' }),
      checkoutStarted({ client: 'C', at: '2026-06-04T10:05:00Z' }, 'tok-9', 80),
      checkoutStarted({ client: 'C', at: '2026-06-04T10:06:00Z' }, 'tok-9', 81),
      paymentInfo({ client: 'C', at: '2026-06-04T10:07:00Z' }, 'tok-9', 80),
      paymentInfo({ client: 'C', at: '2026-06-04T10:08:00Z' }, 'tok-9', 80),
    );
    for (const goal of ['checkout_start', 'payment_info_submitted']) {
      expect(bySource(await s.rollup(goal, 'position'))).toEqual({
        'google/cpc': { conversions: 0.4, value: 32, new: 0.4 },
        'newsletter/email': { conversions: 0.1, value: 8, new: 0.1 },
        'bing/organic': { conversions: 0.1, value: 8, new: 0.1 },
        'tiktok/cpc': { conversions: 0.4, value: 32, new: 0.4 },
      });
      expect(bySource(await s.rollup(goal, 'linear'))).toEqual({
        'google/cpc': { conversions: 0.25, value: 20, new: 0.25 },
        'newsletter/email': { conversions: 0.25, value: 20, new: 0.25 },
        'bing/organic': { conversions: 0.25, value: 20, new: 0.25 },
        'tiktok/cpc': { conversions: 0.25, value: 20, new: 0.25 },
      });
      expect(bySource(await s.rollup(goal, 'first'))).toEqual({ 'google/cpc': { conversions: 1, value: 80, new: 1 } });
      expect(bySource(await s.rollup(goal, 'last'))).toEqual({ 'tiktok/cpc': { conversions: 1, value: 80, new: 1 } });
    }
    await s.expectNoDrift();
  });
});

describe('changes that move credit', () => {
  it('moves the credit when a touchpoint arrives after its conversion', async () => {
    // A direct visit and a purchase of 50; later, an earlier google visit of the same client arrives.
    const s = await newStore();
    await s.send(
      pageView({ client: 'L', at: '2026-04-10T12:00:00Z' }),
      checkoutCompleted(
        { client: 'L', at: '2026-04-10T12:05:00Z' },
        { orderId: '5003', token: 't-late', amount: 50, email: 'late@example.com' },
      ),
    );
    expect(bySource(await s.rollup('purchase', 'last'))).toEqual({
      '(direct)/(none)': { conversions: 1, value: 50, new: 1 },
    });
    await s.send(pageView({ client: 'L', at: '2026-04-08T09:00:00Z', url: GOOGLE }));
    // The direct session is now dropped: a non-direct touch is in the window.
    expect(bySource(await s.rollup('purchase', 'last'))).toEqual({
      'google/cpc': { conversions: 1, value: 50, new: 1 },
    });
    await s.expectNoDrift();
  });

  it('joins two devices when an identity link arrives after the purchase', async () => {
    const s = await newStore();
    await s.send(
      pageView({ client: 'P1', at: '2026-04-01T10:00:00Z', url: GOOGLE }),
      pageView({ client: 'P2', at: '2026-04-02T10:00:00Z' }),
      checkoutCompleted(
        { client: 'P2', at: '2026-04-02T10:05:00Z' },
        { orderId: '5004', token: 't-m', amount: 40, email: 'merge@example.com' },
      ),
    );
    expect(bySource(await s.rollup('purchase', 'first'))).toEqual({
      '(direct)/(none)': { conversions: 1, value: 40, new: 1 },
    });
    await s.send(leadForm({ client: 'P1', at: '2026-04-03T10:00:00Z' }, 'MERGE@example.com'));
    expect(bySource(await s.rollup('purchase', 'first'))).toEqual({
      'google/cpc': { conversions: 1, value: 40, new: 1 },
    });
    const persons = await db.query<{ person_id: string }>(
      'test.persons',
      'select distinct person_id from clients where store_id = $1',
      [s.id],
    );
    expect(persons).toEqual([{ person_id: 'P1' }]);
    await s.expectNoDrift();
  });

  it('lowers conversion_value on a refund and removes the conversion on a cancellation', async () => {
    const s = await newStore();
    await s.send(
      pageView({ client: 'R', at: '2026-03-01T10:00:00Z', url: GOOGLE }),
      checkoutCompleted(
        { client: 'R', at: '2026-03-01T10:05:00Z' },
        { orderId: '5001', token: 't-r', amount: 120, email: 'r@example.com' },
      ),
    );
    expect(bySource(await s.rollup('purchase', 'last'))).toEqual({
      'google/cpc': { conversions: 1, value: 120, new: 1 },
    });

    const base = {
      id: '5001',
      total_price: '120.00',
      currency: 'USD',
      created_at: '2026-03-01T10:05:00Z',
      email: 'r@example.com',
    };
    await s.pushOrder(order({ ...base, updated_at: '2026-03-02T00:00:00Z' }));
    await s.pushOrder(
      order({
        ...base,
        updated_at: '2026-03-05T00:00:00Z',
        refunds: [
          {
            id: '77001',
            created_at: '2026-03-05T00:00:00Z',
            transactions: [{ amount: '30.00', kind: 'refund', status: 'success' }],
          },
        ],
      }),
    );
    expect(bySource(await s.rollup('purchase', 'last'))).toEqual({
      'google/cpc': { conversions: 1, value: 90, new: 1 },
    });

    await s.pushOrder(order({ ...base, updated_at: '2026-03-06T00:00:00Z', cancelled_at: '2026-03-06T00:00:00Z' }));
    for (const model of ['first', 'last', 'linear', 'position', 'time_decay'])
      expect(await s.rollup('purchase', model)).toEqual([]);
    await s.expectNoDrift();
  });

  it('converts an order pushed without any checkout event, from its landing site', async () => {
    // The browser tracker was blocked: the order's landing_site carries the campaign (server-side fallback).
    const s = await newStore();
    await s.pushOrder(
      order({
        id: '5002',
        total_price: '64.00',
        currency: 'USD',
        created_at: '2026-02-10T15:00:00Z',
        updated_at: '2026-02-10T15:00:00Z',
        email: 'blocked@example.com',
        landing_site: '/products/tee?utm_source=facebook&utm_medium=paid_social&utm_campaign=spring&fbclid=x',
        referring_site: 'https://l.facebook.com/',
      }),
    );
    expect(await s.rollup('purchase', 'linear')).toEqual([
      expect.objectContaining({
        source: 'facebook',
        medium: 'paid_social',
        campaign: 'spring',
        channel: 'paid_social',
        conversions: 1,
        value: 64,
      }),
    ]);
    expect(await s.platforms('purchase', 'linear')).toEqual(['facebook']);
    await s.expectNoDrift();
  });
});

describe('dimension values that COPY must escape', () => {
  it('stores and credits a tab, a line break and a backslash as they are', async () => {
    // Credits go in by COPY, whose text format reads these characters as separators and escapes.
    const s = await newStore();
    const url = 'https://shop.example/?utm_source=news%5Cletter&utm_medium=e%09mail&utm_campaign=spring%0Adrop';
    await s.send(
      pageView({ client: 'E', at: '2026-04-10T12:00:00Z', url }),
      addToCart({ client: 'E', at: '2026-04-10T12:05:00Z' }, 20),
    );
    const credits = await db.query<{ model: string; source: string; medium: string; campaign: string }>(
      'test.credits',
      'select model, source, medium, campaign from conversion_credits where store_id = $1 order by model',
      [s.id],
    );
    expect(credits).toEqual(
      ['first', 'last', 'linear', 'position', 'time_decay'].map((model) => ({
        model,
        source: 'news\\letter',
        medium: 'e\tmail',
        campaign: 'spring\ndrop',
      })),
    );
    await s.expectNoDrift();
  });
});

describe('touchpoints that share their dimensions', () => {
  it('are stored as one credit row per model that sums them, and still counted one by one', async () => {
    // Client R: google cpc on day 1 (S1), facebook organic on day 2 (S2), the same google cpc link on day 3 (S3),
    // then a purchase of 30 (order 7001) in S3. Touches S1, S2, S3 (n = 3); S1 and S3 have the same dimensions.
    //   linear (1/3 each): google 2/3 = 666,667 weight units / 20 (the remainder unit goes to the first
    //     touch), facebook 1/3 = 333,333 / 10
    //   position (2/5, 1/5, 2/5): google 4/5 / 24, facebook 1/5 / 6
    //   first and last: google, one touch each
    const s = await newStore();
    await s.send(
      pageView({ client: 'R', at: '2026-04-01T10:00:00Z', url: GOOGLE }),
      pageView({ client: 'R', at: '2026-04-02T10:00:00Z', referrer: FACEBOOK_REF }),
      pageView({ client: 'R', at: '2026-04-03T10:00:00Z', url: GOOGLE }),
      checkoutCompleted(
        { client: 'R', at: '2026-04-03T10:05:00Z' },
        { orderId: '7001', token: 'tok-r', amount: 30, email: 'rae@example.com' },
      ),
    );
    const credits = await db.query<{ model: string; source: string; touches: number; weight: string; v: string }>(
      'test.credits',
      `select model, source, touches, weight::text, (value_micros / 1000000)::text as v from conversion_credits
       where store_id = $1 and goal = 'purchase' order by model, touch_index`,
      [s.id],
    );
    expect(credits).toEqual([
      { model: 'first', source: 'google', touches: 1, weight: '1000000', v: '30' },
      { model: 'last', source: 'google', touches: 1, weight: '1000000', v: '30' },
      { model: 'linear', source: 'google', touches: 2, weight: '666667', v: '20' },
      { model: 'linear', source: 'facebook', touches: 1, weight: '333333', v: '10' },
      { model: 'position', source: 'google', touches: 2, weight: '800000', v: '24' },
      { model: 'position', source: 'facebook', touches: 1, weight: '200000', v: '6' },
      expect.objectContaining({ model: 'time_decay', source: 'google', touches: 2 }),
      expect.objectContaining({ model: 'time_decay', source: 'facebook', touches: 1 }),
    ]);
    // The order's touchpoints are counted one by one in the campaign's order list.
    const orders = await request(api.url)
      .post('/v2-4-2/api/order/campaign-list')
      .set('ApiKey', s.apiKey)
      .send({ start_date: '2026-04-01', end_date: '2026-04-04', campaign: 'brand', model: 'linear' });
    expect(orders.status).toBe(200);
    expect(orders.body.data.records).toEqual([
      expect.objectContaining({ order_id: '7001', credit: 0.666667, attributed_value: 20, touchpoints_count: 3 }),
    ]);
    await s.expectNoDrift();
  });
});

describe('currencies and cost of goods', () => {
  it('converts other currencies with the store rate, keeping both amounts, and credits cost of goods', async () => {
    // Store in USD, rate EUR -> USD 1.1. An add to cart of 20 EUR is 22 USD. The tee's unit cost is 7.50
    // (a product push); quantity 1, so cost of goods 7.50, credited like the value.
    const s = await newStore();
    await db.query('test.rate', "insert into currency_rates (store_id, currency, rate) values ($1, 'EUR', 1.1)", [
      s.id,
    ]);
    const tee = { ...sampleProduct(), updated_at: '2026-01-01T00:00:00Z' };
    const res = await request(api.url)
      .post('/v2-4-2/api/store/products')
      .set('X-Ingest-Key', s.ingestKey)
      .send([{ ...tee, variants: tee.variants.map((v) => ({ ...v, cost: '7.50' })) }]);
    expect(res.status).toBe(200);
    await waitFor(
      () => db.query('test.cost', 'select 1 from variant_costs where store_id = $1', [s.id]).then((r) => r.length),
      (n) => n > 0,
    );
    const cart = addToCart({ client: 'EU', at: '2026-01-10T10:00:00Z', url: GOOGLE }, 20);
    cart.data.cartLine.cost.totalAmount.currencyCode = 'EUR';
    await s.send(cart);
    const [conv] = await db.query<{
      value_micros: string;
      value_orig: string;
      currency_orig: string;
      cogs_micros: string;
    }>(
      'test.conv',
      "select value_micros, value_orig, currency_orig, cogs_micros from conversions where store_id = $1 and goal = 'add_to_cart'",
      [s.id],
    );
    expect(conv).toEqual({ value_micros: '22000000', value_orig: '20', currency_orig: 'EUR', cogs_micros: '7500000' });
    const [row] = await db.query<{ cogs_micros: string }>(
      'test.cogs',
      "select cogs_micros_last as cogs_micros from attribution_daily where store_id = $1 and goal = 'add_to_cart'",
      [s.id],
    );
    expect(row!.cogs_micros).toBe('7500000');
    await s.expectNoDrift();
  });
});

describe('reconciliation', () => {
  it('reports drift row by row and repairs it', async () => {
    const s = await newStore();
    await s.send(
      pageView({ client: 'Z', at: '2026-01-05T10:00:00Z', url: GOOGLE }),
      addToCart({ client: 'Z', at: '2026-01-05T10:01:00Z' }, 15),
    );
    await s.expectNoDrift();
    await db.query(
      'test.corrupt',
      'update attribution_daily set value_micros_last = value_micros_last + 1 where store_id = $1',
      [s.id],
    );
    await db.query('test.corrupt2', 'delete from sessions where store_id = $1', [s.id]);
    const found = await reconcileStore(db, s.id);
    expect(found.driftCount).toBeGreaterThanOrEqual(2);
    expect(found.drift.map((d) => d.view)).toEqual(expect.arrayContaining(['attribution_daily', 'sessions']));
    const attr = found.drift.find((d) => d.view === 'attribution_daily')!;
    expect(attr.expected).toMatchObject({ valueMicrosLast: 15_000_000 });
    expect(attr.actual).toMatchObject({ valueMicrosLast: 15_000_001 });
    await reconcileStore(db, s.id, { repair: true });
    await s.expectNoDrift();
  });

  it('checks the ad rollup and the ad ids of the credits, and repairs both', async () => {
    const s = await newStore();
    const meta =
      'https://shop.example/?utm_source=facebook&utm_medium=paid_social&utm_campaign=spring&utm_id=120&adset_id=1201&ad_id=12011';
    await s.send(
      pageView({ client: 'Y', at: '2026-01-06T10:00:00Z', url: meta }),
      addToCart({ client: 'Y', at: '2026-01-06T10:01:00Z' }, 15),
    );
    const adRows = () =>
      db.query<{ model: string; campaign_id: string; ad_set_id: string; ad_id: string; weight: string }>(
        'test.ad_rows',
        `select model, campaign_id, ad_set_id, ad_id, weight from ${byModel(ATTRIBUTION_BY_AD)}
         where store_id = $1 order by model`,
        [s.id],
      );
    // One paid touchpoint: every model gives it the whole conversion.
    const expected = ['first', 'last', 'linear', 'position', 'time_decay'].map((model) => ({
      model,
      campaign_id: '120',
      ad_set_id: '1201',
      ad_id: '12011',
      weight: '1000000',
    }));
    expect(await adRows()).toEqual(expected);
    await s.expectNoDrift();

    await db.query(
      'test.corrupt_ad',
      'update attribution_by_ad set weight_last = weight_last - 1 where store_id = $1',
      [s.id],
    );
    await db.query(
      'test.corrupt_credit',
      "update conversion_credits set ad_id = '999' where store_id = $1 and model = 'first'",
      [s.id],
    );
    const found = await reconcileStore(db, s.id);
    const views = found.drift.map((d) => d.view);
    expect(views.filter((v) => v === 'attribution_by_ad')).toHaveLength(1);
    // The credit now names another ad: its own group is missing and a group nobody expects appeared.
    expect(views.filter((v) => v === 'conversion_credits').length).toBeGreaterThanOrEqual(2);
    // One row holds every model's sums: the drift is that row, its last-click weight one short.
    expect(found.drift.find((d) => d.view === 'attribution_by_ad')).toMatchObject({
      expected: { weightFirst: 1_000_000, weightLast: 1_000_000 },
      actual: { weightFirst: 1_000_000, weightLast: 999_999 },
    });
    await reconcileStore(db, s.id, { repair: true });
    await s.expectNoDrift();
    expect(await adRows()).toEqual(expected);
  });
});
