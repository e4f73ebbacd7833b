/**
 * The Segment-compatible source against the real API and pipeline: the real SDKs (`@segment/analytics-node`,
 * `@rudderstack/rudder-sdk-node`) pointed at the service send a whole shopping journey, which comes out of
 * order/event in order and out of get-list under its channel, source and campaign with its exact revenue; an
 * identify joins two devices; a duplicate messageId counts once; a 40 KB message of a batch is refused alone; a
 * wrong write key stores nothing; RudderStack's gzip body with a form content type is accepted; Segment's own
 * documented examples are accepted; garbage gets a 400, never a 500.
 */
import { gzipSync } from 'node:zlib';
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { Analytics } from '@segment/analytics-node';
import RudderAnalytics from '@rudderstack/rudder-sdk-node';
import type { Db } from '../../storage/db';
import type { RunningApi } from '../../query-api/src/app/api';
import type { RunningPipeline } from '../../pipeline/src/app/daemon';
import type { AttributionRecord } from '../../contracts/src/reports';
import {
  createTestStore,
  pacer,
  startTestApi,
  startTestPipeline,
  testDb,
  type TestStore,
  waitFor,
} from '../support/harness';

let db: Db;
let api: RunningApi;
let pipeline: RunningPipeline;
let shop: TestStore;
const paced = pacer();

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const basic = (key: string) => `Basic ${Buffer.from(`${key}:`).toString('base64')}`;

beforeAll(async () => {
  db = testDb();
  shop = await createTestStore(db, { currency: 'USD', lookbackDays: 30 });
  api = await startTestApi();
  pipeline = await startTestPipeline();
});

afterAll(async () => {
  await pipeline.stop();
  await api.stop();
  await db.close();
});

const storedEvents = async (ids: string[]): Promise<string[]> =>
  (
    await db.query<{ event_id: string }>(
      'test.stored',
      'select event_id from event_facts where store_id = $1 and event_id = any($2::text[]) order by event_id',
      [shop.store.store_id, ids],
    )
  ).map((r) => r.event_id);

const waitStored = (ids: string[]) =>
  waitFor(
    () => storedEvents(ids),
    (s) => s.length === ids.length,
    30_000,
  );

async function journeyOf(orderId: string): Promise<Array<Record<string, unknown>>> {
  const res = await waitFor(
    () =>
      request(api.url)
        .post('/v2-4-2/api/order/event')
        .set('ApiKey', shop.credentials.api_key)
        .send({ order_id: orderId, page: 1, page_size: 50 }),
    (r) => r.status === 200,
    30_000,
  );
  return res.body.data.events as Array<Record<string, unknown>>;
}

async function purchaseRecords(model: string, dimensions: string[]): Promise<AttributionRecord[]> {
  const res = await paced('get-list', () =>
    request(api.url)
      .post('/v2-4-2/api/all-attribution/get-list')
      .set('ApiKey', shop.credentials.api_key)
      .send({
        start_date: isoDay(Date.now() - 5 * DAY),
        end_date: isoDay(Date.now() + DAY),
        dimensions,
        model,
        goal: 'purchase',
        page: 1,
        page_size: 100,
      }),
  );
  expect(res.status).toBe(200);
  return res.body.data.records as AttributionRecord[];
}

/** The six calls of a shopping journey, `start` the landing's time, one minute apart. */
function journey(sdk: string, anonymousId: string, orderId: string, start: number) {
  const page = (path: string) => ({
    page: { url: `https://shop.example${path}`, path, title: `Shop ${path}`, referrer: '' },
    ip: '198.51.100.23',
    userAgent: 'Mozilla/5.0 (Macintosh)',
  });
  const at = (i: number) => new Date(start + i * MINUTE);
  const tee = { product_id: 'p-tee', sku: 'TEE-M', name: 'Tee', price: 25.5, quantity: 2, currency: 'USD' };
  const mug = { product_id: 'p-mug', sku: 'MUG', name: 'Mug', price: 12.49, quantity: 1 };
  return {
    page: {
      anonymousId,
      name: 'Home',
      timestamp: at(0),
      context: {
        ...page('/'),
        campaign: { source: 'Newsletter', medium: 'email', name: `spring_${sdk}`, content: 'hero' },
      },
    },
    tracks: [
      { event: 'Product Viewed', properties: { ...tee, quantity: 1 }, context: page('/products/tee') },
      { event: 'Product Added', properties: { ...tee, cart_id: `cart-${sdk}` }, context: page('/products/tee') },
      {
        event: 'Checkout Started',
        properties: { checkout_id: `ck-${sdk}`, value: 63.49, currency: 'USD', products: [tee, mug] },
        context: page('/checkout'),
      },
      { event: 'Payment Info Entered', properties: { checkout_id: `ck-${sdk}` }, context: page('/checkout/payment') },
      {
        event: 'Order Completed',
        properties: {
          checkout_id: `ck-${sdk}`,
          order_id: orderId,
          total: 70.99,
          revenue: 63.49,
          shipping: 4.5,
          tax: 3,
          currency: 'USD',
          products: [tee, mug],
        },
        context: page('/checkout/thank-you'),
      },
    ].map((t, i) => ({ anonymousId, timestamp: at(i + 1), ...t })),
  };
}

const JOURNEY_TYPES = [
  'email',
  'product_viewed',
  'product_added_to_cart',
  'checkout_started',
  'payment_info_submitted',
  'checkout_completed',
];

async function expectJourneyReported(sdk: string, orderId: string): Promise<void> {
  const events = await journeyOf(orderId);
  expect(events.map((e) => e.event_type)).toEqual(JOURNEY_TYPES);
  expect(events[0]).toMatchObject({
    event_source: 'newsletter',
    event_medium: 'email',
    event_campaign: `spring_${sdk}`,
    event_page_ip: '198.51.100.23',
    event_page_user_agent: 'Mozilla/5.0 (Macintosh)',
  });
  expect(events[5]!.checkout_completed).toMatchObject({ order_id: orderId, total_price: 70.99, currency: 'USD' });
  const records = await purchaseRecords('last', ['channel', 'source', 'campaign']);
  const row = records.find((r) => r.campaign === `spring_${sdk}`);
  expect(row).toMatchObject({ channel: 'email', source: 'newsletter', conversions: 1, conversion_value: 70.99 });
}

describe('the real SDKs', () => {
  it('@segment/analytics-node (host, path): a journey reaches order/event in order and get-list with its revenue', async () => {
    const errors: unknown[] = [];
    const analytics = new Analytics({
      writeKey: shop.credentials.ingest_key,
      host: api.url,
      path: '/v1/batch',
      flushAt: 20,
      maxRetries: 2,
    });
    analytics.on('error', (err) => errors.push(err));
    const j = journey('segment', 'seg-anon-1', 'seg-order-1', Date.now() - 2 * 60 * MINUTE);
    analytics.page(j.page);
    for (const t of j.tracks) analytics.track(t);
    await analytics.closeAndFlush({ timeout: 20_000 });
    expect(errors).toEqual([]);
    await expectJourneyReported('segment', 'seg-order-1');
  });

  it('@rudderstack/rudder-sdk-node (dataPlaneUrl, gzip by default): the same journey, the same report', async () => {
    const errors: unknown[] = [];
    const client = new RudderAnalytics(shop.credentials.ingest_key, {
      dataPlaneUrl: api.url,
      flushAt: 20,
      flushInterval: 60_000,
      retryCount: 1,
      logLevel: 'error',
      errorHandler: (err: unknown) => errors.push(err),
    });
    const j = journey('rudder', 'rs-anon-1', 'rs-order-1', Date.now() - 90 * MINUTE);
    client.page(j.page);
    for (const t of j.tracks) client.track(t);
    await client.flush();
    expect(errors).toEqual([]);
    await expectJourneyReported('rudder', 'rs-order-1');
  });

  it('identify joins two devices: the second device purchase goes, first touch, to the first device campaign', async () => {
    const analytics = new Analytics({ writeKey: shop.credentials.ingest_key, host: api.url, flushAt: 20 });
    const errors: unknown[] = [];
    analytics.on('error', (err) => errors.push(err));
    const t0 = Date.now() - 3 * DAY;
    // Device 1: a paid social visit, then the shopper signs in (a server-side identify).
    analytics.page({
      anonymousId: 'dev-1',
      timestamp: new Date(t0),
      context: {
        page: { url: 'https://shop.example/?utm_source=facebook&utm_medium=paid_social&utm_campaign=winter_launch' },
      },
    });
    analytics.identify({ anonymousId: 'dev-1', userId: 'cust-42', timestamp: new Date(t0 + MINUTE) });
    // Device 2, two days later: a direct visit, sign-in, a purchase.
    const t1 = t0 + 2 * DAY;
    analytics.page({
      anonymousId: 'dev-2',
      timestamp: new Date(t1),
      context: { page: { url: 'https://shop.example/' } },
    });
    analytics.identify({ anonymousId: 'dev-2', userId: 'cust-42', timestamp: new Date(t1 + MINUTE) });
    analytics.track({
      anonymousId: 'dev-2',
      event: 'Order Completed',
      timestamp: new Date(t1 + 2 * MINUTE),
      context: { page: { url: 'https://shop.example/checkout/thank-you' } },
      properties: {
        order_id: 'two-devices-1',
        total: 88.8,
        currency: 'USD',
        products: [{ product_id: 'p', price: 88.8 }],
      },
    });
    await analytics.closeAndFlush({ timeout: 20_000 });
    expect(errors).toEqual([]);
    // The devices' events travel in different partitions: wait until the link of the first one has been applied.
    const visits = (events: Array<Record<string, unknown>>) =>
      events.filter((e) => e.event_type !== 'user_identified').map((e) => e.event_type);
    const events = await waitFor(
      () => journeyOf('two-devices-1'),
      (evs) => visits(evs).length === 3,
      30_000,
    );
    // Both devices' visits are the order's journey (the links are no visits).
    expect(visits(events)).toEqual(['ad', 'direct', 'checkout_completed']);
    const first = await waitFor(
      () => purchaseRecords('first', ['campaign', 'source']),
      (records) => records.some((r) => r.campaign === 'winter_launch'),
      30_000,
    );
    expect(first.find((r) => r.campaign === 'winter_launch')).toMatchObject({
      source: 'facebook',
      conversions: 1,
      conversion_value: 88.8,
    });
  });
});

describe('the Tracking API', () => {
  const post = (route: string, body: unknown, key = shop.credentials.ingest_key) =>
    request(api.url)
      .post(route)
      .set('Authorization', basic(key))
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(body));

  const page = (messageId: string, extra: Record<string, unknown> = {}) => ({
    type: 'page',
    anonymousId: 'api-anon',
    messageId,
    timestamp: new Date(Date.now() - 10 * MINUTE).toISOString(),
    context: { page: { url: 'https://shop.example/about' } },
    ...extra,
  });

  it('stores a duplicate messageId once', async () => {
    expect((await post('/v1/page', page('dup-1'))).body).toEqual({ success: true });
    expect((await post('/v1/batch', { batch: [page('dup-1'), page('dup-sentinel')] })).body).toEqual({
      success: true,
    });
    await waitStored(['dup-1', 'dup-sentinel']);
    const count = await db.query<{ n: string }>(
      'test.count',
      'select count(*) as n from event_facts where store_id = $1 and event_id = $2',
      [shop.store.store_id, 'dup-1'],
    );
    expect(Number(count[0]!.n)).toBe(1);
  });

  it('refuses a 40 KB message of a batch alone, with its reason, and keeps the others', async () => {
    const big = {
      type: 'track',
      anonymousId: 'api-anon',
      messageId: 'too-big',
      event: 'Blob',
      properties: { blob: 'x'.repeat(40 * 1024) },
    };
    const res = await post('/v1/batch', { batch: [page('big-before'), big, page('big-after')] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      rejected: [
        { index: 1, errors: [{ field: 'message', message: expect.stringMatching(/^is \d+ bytes; at most 32768$/) }] },
      ],
    });
    await waitStored(['big-before', 'big-after']);
    expect(await storedEvents(['too-big'])).toEqual([]);
    // The same message alone on its route: 400, naming it.
    const alone = await post('/v1/track', big);
    expect(alone.status).toBe(400);
    expect(alone.body.message).toMatch(/message: is \d+ bytes; at most 32768/);
  });

  it('answers a wrong write key 401 and stores nothing; a writeKey in the body is accepted', async () => {
    const wrong = await post('/v1/batch', { batch: [page('wrong-key-1')] }, 'ik_not_a_key');
    expect(wrong.status).toBe(401);
    expect(wrong.body.message).toMatch(/^writeKey: /);
    const none = await request(api.url).post('/v1/page').set('Content-Type', 'application/json').send(page('no-key'));
    expect(none.status).toBe(401);
    const inBody = await request(api.url)
      .post('/v1/page')
      .set('Content-Type', 'application/json')
      .send({ ...page('body-key'), writeKey: shop.credentials.ingest_key });
    expect(inBody.body).toEqual({ success: true });
    await waitStored(['body-key']);
    expect(await storedEvents(['wrong-key-1', 'no-key'])).toEqual([]);
  });

  /** Raw bytes as sent (supertest would serialize a Buffer by its content type). */
  const sendRaw = async (bytes: Buffer | string, headers: Record<string, string>) => {
    const res = await fetch(`${api.url}/v1/batch`, {
      method: 'POST',
      headers: { Authorization: basic(shop.credentials.ingest_key), ...headers },
      body: typeof bytes === 'string' ? bytes : new Uint8Array(bytes),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it("accepts RudderStack's gzip body with a form content type, with or without Content-Encoding", async () => {
    const body = (id: string) => gzipSync(JSON.stringify({ batch: [page(id)], sentAt: new Date().toISOString() }));
    const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
    const declared = await sendRaw(body('gzip-declared'), { ...form, 'Content-Encoding': 'gzip' });
    const undeclared = await sendRaw(body('gzip-undeclared'), form);
    expect([declared, undeclared]).toEqual([
      { status: 200, body: { success: true } },
      { status: 200, body: { success: true } },
    ]);
    await waitStored(['gzip-declared', 'gzip-undeclared']);
  });

  it('answers garbage with a 400 naming the body, never a 500', async () => {
    const json = { 'Content-Type': 'application/json' };
    const cases: Array<[Buffer | string, RegExp]> = [
      ['{not json', /^body: malformed JSON/],
      [Buffer.from([0x1f, 0x8b, 1, 2, 3]), /^body: starts as gzip but does not decompress/],
      ['[1,2]', /^body: must be a JSON object/],
      ['{"batch": 5}', /^batch: must be a non-empty array/],
      [gzipSync('nope'), /^body: malformed JSON/],
      ['', /^body: is empty/],
    ];
    for (const [bytes, message] of cases) {
      const res = await sendRaw(bytes, json);
      expect([res.status, res.body.message]).toEqual([400, expect.stringMatching(message)]);
    }
    const allBad = await sendRaw(JSON.stringify({ batch: [{ type: 'track', anonymousId: 'a' }] }), json);
    expect([allBad.status, allBad.body.message]).toEqual([400, '[0].event: is required on track']);
    // Nested past any stack, without a messageId (its id would be a hash of its content), beside a good one.
    const deep = `{"type":"track","event":"x","anonymousId":"a","properties":{"p":${'['.repeat(200_000)}${']'.repeat(200_000)}}}`;
    const nested = await sendRaw(gzipSync(`{"batch":[${deep},${JSON.stringify(page('beside-deep'))}]}`), json);
    expect([nested.status, nested.body]).toEqual([
      200,
      { success: true, rejected: [{ index: 0, errors: [{ field: 'message', message: 'is nested too deeply' }] }] },
    ]);
    const huge = await sendRaw(gzipSync(Buffer.alloc(600 * 1024, 0x20)), json);
    expect(huge.status).toBe(413);
    const badEncoding = await sendRaw(Buffer.from('not gzip'), { ...json, 'Content-Encoding': 'gzip' });
    expect(badEncoding.status).toBe(400);
  });

  it("accepts Segment's documented examples on their routes", async () => {
    const dir = path.join(__dirname, '..', 'fixtures', 'segment');
    const load = (f: string) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as Record<string, unknown>;
    const recent = new Date(Date.now() - MINUTE).toISOString();
    for (const type of ['track', 'page', 'identify', 'alias', 'group']) {
      // The examples share one messageId: each gets its own here, so that all of them are stored.
      const msg = { ...load(`${type}.json`), messageId: `doc-${type}`, timestamp: recent };
      const res = await post(`/v1/${type}`, msg);
      expect([type, res.status, res.body]).toEqual([type, 200, { success: true }]);
    }
    const batch = await post('/v1/batch', { ...load('batch.json'), writeKey: undefined });
    expect(batch.body).toEqual({ success: true });
    await waitStored(['doc-track', 'doc-page']);
  });
});
