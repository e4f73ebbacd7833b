/**
 * Events recorded from real Shopify Web Pixels of two producers (test/fixtures/shopify-pixel), sent to
 * `/collect/<ingest key>` as a browser sends them (text/plain, no clientIp, no seq, mostly no type): all are
 * accepted and stored, none is dead-lettered; each `checkout_completed` is a purchase with its journey, and the
 * order the store backend pushes under the numeric id (the pixel said `gid://shopify/OrderIdentity/<n>`) is the
 * same purchase: one conversion, with the pushed order's value.
 */
import request from 'supertest';
import { sampleOrder } from '../support/samples';
import type { Db } from '../../storage/db';
import type { RunningApi } from '../../query-api/src/app/api';
import type { RunningPipeline } from '../../pipeline/src/app/daemon';
import { createTestStore, startTestApi, startTestPipeline, testDb, type TestStore, waitFor } from '../support/harness';
import { loadPixelRecordings, shiftedToRecent, type PixelProducer } from '../support/shopify-pixel';

let db: Db;
let api: RunningApi;
let pipeline: RunningPipeline;
let shop: TestStore;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** A producer's recorded events, moved in time so that the last one happened `hoursAgo` hours ago. */
function recentEvents(producer: PixelProducer, hoursAgo: number): Record<string, unknown>[] {
  return shiftedToRecent(
    loadPixelRecordings(producer).map((r) => r.event),
    Date.now() - hoursAgo * HOUR,
  );
}

const valmi = recentEvents('valmi-app-pixel', 2);
const customerlabs = recentEvents('customerlabs-custom-pixel', 1);
const all = [...valmi, ...customerlabs];
const byName = (events: Record<string, unknown>[], name: string) => events.find((e) => e['name'] === name)!;

/** Order ids as the pixels recorded them, and as the store knows them. */
const VALMI_ORDER = '5364716830934';
const CUSTOMERLABS_ORDER_GID = 'gid://shopify/OrderIdentity/5396439498987';
const CUSTOMERLABS_ORDER = '5396439498987';
/** `totalPrice` of the two recorded `checkout_completed` events (INR, the store's currency). */
const VALMI_TOTAL = 884.94;
const CUSTOMERLABS_TOTAL = 50.73;
/** Polls of a report stay under its rate limit (5 per second per key), however long the pipeline takes. */
const REPORT_POLL_MS = 250;
/** Reports give money to the cent. */
const cents = (amount: number) => Math.round(amount * 100) / 100;

const beacon = (body: unknown) =>
  request(api.url)
    .post(`/collect/${shop.credentials.ingest_key}`)
    .set('Origin', 'https://shoperzoney.myshopify.com')
    .set('Content-Type', 'text/plain')
    .send(JSON.stringify(body));

const count = async (sql: string, params: unknown[]): Promise<number> =>
  Number((await db.query<{ n: string }>('test.count', sql, params))[0]!.n);

const purchaseSummary = async () => {
  const res = await request(api.url)
    .post('/v2-4-2/api/all-attribution/get-list-sum')
    .set('ApiKey', shop.credentials.api_key)
    .send({
      start_date: isoDay(Date.now() - 10 * DAY),
      end_date: isoDay(Date.now() + DAY),
      dimensions: ['source'],
      model: 'last',
      goal: 'purchase',
    });
  expect(res.status).toBe(200);
  return res.body.data as { conversions: number; conversion_value: number };
};

beforeAll(async () => {
  db = testDb();
  shop = await createTestStore(db, { currency: 'INR', lookbackDays: 30 });
  api = await startTestApi();
  pipeline = await startTestPipeline();
});

afterAll(async () => {
  await pipeline.stop();
  await api.stop();
  await db.close();
});

describe('recorded Shopify pixel events on /collect', () => {
  it('the recordings are what real pixels send: no seq, no clientIp, a global order id', () => {
    for (const e of all) {
      expect(e['seq']).toBeUndefined();
      expect(e['clientIp']).toBeUndefined();
    }
    expect(byName(valmi, 'page_viewed')['data']).toBeUndefined();
    const order = (byName(customerlabs, 'checkout_completed')['data'] as { checkout: { order: { id: string } } })
      .checkout.order;
    expect(order.id).toBe(CUSTOMERLABS_ORDER_GID);
  });

  it('accepts every event, one beacon each or one batch, and stores all of them without dead letters', async () => {
    // The app pixel's events one request each (sendBeacon per event)...
    for (const event of valmi) {
      const res = await beacon(event);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ accepted: 1, duplicates: 0, rejected: [], warnings: expect.any(Number) });
    }
    // ...the custom pixel's as one batch.
    const res = await beacon(customerlabs);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ accepted: customerlabs.length, duplicates: 0, rejected: [] });
    // Every one of them lacks a member the reference marks required: all are counted as warned about.
    expect(res.body.data.warnings).toBe(customerlabs.length);

    const ids = all.map((e) => String(e['id']));
    await waitFor(
      () =>
        count('select count(*) as n from event_facts where store_id = $1 and event_id = any($2::text[])', [
          shop.store.store_id,
          ids,
        ]),
      (n) => n === ids.length,
      30_000,
    );
    expect(await count('select count(*) as n from dead_letters where store_id = $1', [shop.store.store_id])).toBe(0);
    // The payloads follow from their own writer.
    await waitFor(
      () => count('select count(*) as n from raw_events where store_id = $1', [shop.store.store_id]),
      (n) => n === ids.length,
      30_000,
    );

    // What was stored is the normalized event: envelope defaults, the request's address, the numeric order id.
    const [stored] = await db.query<{ seq: string; type: string; ip: string; order_id: string; fact_order: string }>(
      'test.stored',
      `select r.payload->>'seq' as seq, r.payload->>'type' as type, r.payload->>'clientIp' as ip,
              r.payload->'data'->'checkout'->'order'->>'id' as order_id, f.order_id as fact_order
       from raw_events r join event_facts f on f.store_id = r.store_id and f.event_id = r.event_id
       where r.store_id = $1 and r.event_id = $2`,
      [shop.store.store_id, byName(customerlabs, 'checkout_completed')['id']],
    );
    expect(stored).toEqual({
      seq: '0',
      type: 'standard',
      ip: expect.stringMatching(/127\.0\.0\.1/),
      order_id: CUSTOMERLABS_ORDER,
      fact_order: CUSTOMERLABS_ORDER,
    });
  });

  it('counts each checkout_completed as one purchase worth its total', async () => {
    const sum = await waitFor(purchaseSummary, (s) => s.conversions === 2, 30_000, REPORT_POLL_MS);
    expect(sum).toMatchObject({ conversions: 2, conversion_value: cents(VALMI_TOTAL + CUSTOMERLABS_TOTAL) });
  });

  it('lists the journey of the order under its numeric id', async () => {
    const res = await request(api.url)
      .post('/v2-4-2/api/order/event')
      .set('ApiKey', shop.credentials.api_key)
      .send({ order_id: CUSTOMERLABS_ORDER, page: 1, page_size: 50 });
    expect(res.status).toBe(200);
    // The person's events up to and including the completion (the later browsing is not part of it). The
    // first event lands the session: a direct visit (the referrer is the store's own page).
    const journey = customerlabs.filter(
      (e) => String(e['timestamp']) <= String(byName(customerlabs, 'checkout_completed')['timestamp']),
    );
    const events = res.body.data.events as Array<{ event_id: string; event_type: string; checkout_completed: unknown }>;
    expect(res.body.data).toMatchObject({ order_id: CUSTOMERLABS_ORDER, shop_currency: 'INR', total: journey.length });
    expect(events.map((e) => e.event_id)).toEqual(journey.map((e) => e['id']));
    expect(events.map((e) => e.event_type)).toEqual(['direct', ...journey.slice(1).map((e) => e['name'])]);
    expect(events.at(-1)!.checkout_completed).toMatchObject({
      order_id: CUSTOMERLABS_ORDER,
      total_price: CUSTOMERLABS_TOTAL,
    });

    const valmiJourney = await request(api.url)
      .post('/v2-4-2/api/order/event')
      .set('ApiKey', shop.credentials.api_key)
      .send({ order_id: VALMI_ORDER, page: 1, page_size: 50 });
    expect(valmiJourney.status).toBe(200);
    // Two events share a millisecond here, so the ids are compared as a set.
    const valmiEvents = valmiJourney.body.data.events as Array<{ event_id: string; event_type: string }>;
    const valmiUpTo = String(byName(valmi, 'checkout_completed')['timestamp']);
    const valmiIds = valmi.filter((e) => String(e['timestamp']) <= valmiUpTo).map((e) => String(e['id']));
    expect(valmiEvents.map((e) => e.event_id).sort()).toEqual(valmiIds.sort());
    expect(valmiEvents[0]).toMatchObject({ event_id: byName(valmi, 'page_viewed')['id'], event_type: 'direct' });
    expect(valmiEvents.at(-1)).toMatchObject({
      event_type: 'checkout_completed',
      checkout_completed: expect.objectContaining({ order_id: VALMI_ORDER, total_price: VALMI_TOTAL }),
    });
  });

  it('finds the order by the id the pixel sent too: order/event and order/attribution-touch take every form', async () => {
    const forms = [CUSTOMERLABS_ORDER, CUSTOMERLABS_ORDER_GID, `gid://shopify/Order/${CUSTOMERLABS_ORDER}`];
    const journeys = await Promise.all(
      forms.map((order_id) =>
        request(api.url)
          .post('/v2-4-2/api/order/event')
          .set('ApiKey', shop.credentials.api_key)
          .send({ order_id, page: 1, page_size: 50 }),
      ),
    );
    expect(journeys.map((r) => r.status)).toEqual([200, 200, 200]);
    const ids = (r: request.Response) => (r.body.data.events as Array<{ event_id: string }>).map((e) => e.event_id);
    expect(ids(journeys[0]!).length).toBeGreaterThan(1);
    // The same order each time; each answer names the id as it was asked for.
    for (const [i, r] of journeys.entries()) {
      expect(ids(r)).toEqual(ids(journeys[0]!));
      expect(r.body.data.order_id).toBe(forms[i]);
    }

    const touches = await request(api.url)
      .post('/v2-4-2/api/order/attribution-touch')
      .set('ApiKey', shop.credentials.api_key)
      .send({ order_ids: forms });
    expect(touches.status).toBe(200);
    const records = touches.body.data as Array<{
      order_id: string;
      first_touchpoint: unknown;
      last_touchpoint: unknown;
    }>;
    expect(records.map((r) => r.order_id)).toEqual(forms);
    expect(records[0]!.first_touchpoint).not.toBeNull();
    for (const r of records) {
      expect(r.first_touchpoint).toEqual(records[0]!.first_touchpoint);
      expect(r.last_touchpoint).toEqual(records[0]!.last_touchpoint);
    }
  });

  it('meets the order pushed by the store under the numeric id: one conversion, the pushed value', async () => {
    const completedAt = Date.parse(String(byName(customerlabs, 'checkout_completed')['timestamp']));
    const pushed = sampleOrder({
      id: CUSTOMERLABS_ORDER,
      name: '#1042',
      email: 'buyer.two@example.com',
      created_at: new Date(completedAt + 2_000).toISOString(),
      updated_at: new Date(completedAt + 3_000).toISOString(),
      processed_at: new Date(completedAt + 2_000).toISOString(),
      currency: 'INR',
      presentment_currency: 'INR',
      total_price: '60.00',
      subtotal_price: '42.99',
      total_tax: '7.74',
      landing_site: '/products/chain-bracelet',
      referring_site: '',
      checkout_token: '864ef6919a4214321240c177707a01f7',
      customer: null,
      line_items: [
        {
          id: '14000000000001',
          variant_id: '43751530397931',
          product_id: '7992983748843',
          title: '7 Shakra Bracelet',
          variant_title: 'Blue',
          sku: null,
          vendor: 'Company 123',
          quantity: 1,
          price: '42.99',
        },
      ],
    });
    // Shopify's REST order id is a JSON number.
    const res = await request(api.url)
      .post('/v2-4-2/api/store/orders')
      .set('X-Ingest-Key', shop.credentials.ingest_key)
      .send([{ ...pushed, id: Number(CUSTOMERLABS_ORDER) }]);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ accepted: 1, rejected: [] });

    const sum = await waitFor(
      purchaseSummary,
      (s) => s.conversion_value === cents(VALMI_TOTAL + 60),
      30_000,
      REPORT_POLL_MS,
    );
    expect(sum.conversions).toBe(2);
    expect(
      await count(
        `select count(*) as n from conversions where store_id = $1 and goal = 'purchase' and conversion_key = $2`,
        [shop.store.store_id, CUSTOMERLABS_ORDER],
      ),
    ).toBe(1);
    expect(await count('select count(*) as n from dead_letters where store_id = $1', [shop.store.store_id])).toBe(0);
  });
});
