/**
 * Store platform webhooks (docs/product.md, Store connections) through the real API, pipeline and PostgreSQL:
 * recorded Shopify and WooCommerce payloads (test/fixtures/shopify, test/fixtures/woocommerce) sent byte for
 * byte with signatures over those bytes; redeliveries, tampering, ids above 2^53, attribution without the
 * tracker, refunds and out-of-order deliveries. Shopify's privacy topics: privacy-hooks.int.test.ts.
 */
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import type { Db } from '../../storage/db';
import { createSecretBox, generateSecretsKey, parseSecretsKey } from '../../storage/secret-box';
import { createConnection, type StoreConnection } from '../../storage/store-connections';
import type { RunningApi } from '../../query-api/src/app/api';
import type { RunningPipeline } from '../../pipeline/src/app/daemon';
import { createTestStore, startTestApi, startTestPipeline, testDb, type TestStore, waitFor } from '../support/harness';
import { pageView } from '../support/journeys';

const FIXTURES = path.join(__dirname, '..', 'fixtures');
const fixture = (p: string): Buffer => fs.readFileSync(path.join(FIXTURES, p));
const SECRETS_KEY = generateSecretsKey();
const SHOP = 'hooks-test.myshopify.com';
const SHOPIFY_SECRET = 'shpss_test_client_secret_0123456789';
const WOO_SECRET = 'woo webhook secret: 0123456789';

let db: Db;
let api: RunningApi;
let pipeline: RunningPipeline;
let shop: TestStore;
let shopify: StoreConnection;
let woo: StoreConnection;

beforeAll(async () => {
  db = testDb();
  shop = await createTestStore(db, { timezone: 'UTC', currency: 'USD' });
  const box = createSecretBox(parseSecretsKey(SECRETS_KEY));
  shopify = await createConnection(db, box, {
    storeId: shop.store.store_id,
    kind: 'shopify',
    account: SHOP,
    secret: SHOPIFY_SECRET,
  });
  woo = await createConnection(db, box, {
    storeId: shop.store.store_id,
    kind: 'woocommerce',
    account: 'https://example.com',
    secret: WOO_SECRET,
  });
  api = await startTestApi({ SECRETS_KEY });
  pipeline = await startTestPipeline();
});

afterAll(async () => {
  await pipeline.stop();
  await api.stop();
  await db.close();
});

const sign = (body: Buffer, secret: string): string => createHmac('sha256', secret).update(body).digest('base64');

let deliveries = 0;
function sendShopify(
  topic: string,
  body: Buffer,
  opts: { webhookId?: string; signature?: string; shop?: string } = {},
) {
  return request(api.url)
    .post(`/hooks/shopify/${shopify.connection_id}`)
    .set('Content-Type', 'application/json')
    .set('X-Shopify-Topic', topic)
    .set('X-Shopify-Hmac-Sha256', opts.signature ?? sign(body, SHOPIFY_SECRET))
    .set('X-Shopify-Shop-Domain', opts.shop ?? SHOP)
    .set('X-Shopify-API-Version', '2026-07')
    .set('X-Shopify-Webhook-Id', opts.webhookId ?? `delivery-${++deliveries}`)
    .send(body.toString('utf8'));
}

function sendWoo(topic: string, body: Buffer, signature = sign(body, WOO_SECRET)) {
  const [resource, event] = topic.split('.');
  return request(api.url)
    .post(`/hooks/woocommerce/${woo.connection_id}`)
    .set('Content-Type', 'application/json')
    .set('X-WC-Webhook-Source', 'https://example.com/')
    .set('X-WC-Webhook-Topic', topic)
    .set('X-WC-Webhook-Resource', resource ?? '')
    .set('X-WC-Webhook-Event', event ?? '')
    .set('X-WC-Webhook-Signature', signature)
    .set('X-WC-Webhook-ID', '1')
    .set('X-WC-Webhook-Delivery-ID', String(++deliveries))
    .send(body.toString('utf8'));
}

interface OrderFactRow {
  cancelled: boolean;
  value_micros: string;
  refunded_micros: string;
  currency_orig: string;
  customer_id: string | null;
}

const orderFact = async (orderId: string): Promise<OrderFactRow | null> =>
  (
    await db.query<OrderFactRow>(
      'test.order_fact',
      'select cancelled, value_micros, refunded_micros, currency_orig, customer_id from order_facts where store_id = $1 and order_id = $2',
      [shop.store.store_id, orderId],
    )
  )[0] ?? null;

const storedOrders = async (orderId: string): Promise<number> =>
  Number(
    (
      await db.query<{ n: string }>(
        'test.shop_orders',
        'select count(*) as n from shop_orders where store_id = $1 and order_id = $2',
        [shop.store.store_id, orderId],
      )
    )[0]!.n,
  );

const touches = async (orderId: string) => {
  const res = await request(api.url)
    .post('/v2-4-2/api/order/attribution-touch')
    .set('ApiKey', shop.credentials.api_key)
    .send({ order_ids: [orderId] });
  expect(res.status).toBe(200);
  return res.body.data[0] as {
    order_id: string;
    first_touchpoint: { channel: string; source: string; medium: string; campaign: string } | null;
  };
};
const POLL = [20_000, 100] as const;

const NOW = Date.now();
const HOUR = 3600_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * The Shopify sample order as a live, paid order with the given id, landing site and referrer, re-signed;
 * `opts.at` places it at that time (the sample's is 2021-12-31), `opts.clientId` carries the tracker's visitor
 * as the cart attribute, `opts.test` keeps it a test order.
 */
function liveShopifyOrder(
  id: string,
  over: Record<string, string | null> = {},
  opts: { at?: number; clientId?: string; test?: boolean } = {},
): Buffer {
  const at = opts.at === undefined ? null : new Date(opts.at).toISOString();
  let text = fixture('shopify/orders-create.json')
    .toString('utf8')
    .replace(/"id":820982911946154508/, `"id":${id}`)
    .replace('"cancelled_at":"2021-12-31T19:00:00-05:00"', '"cancelled_at":null')
    .replace('"test":true', `"test":${opts.test === true}`)
    .replaceAll('115310627314723954', id)
    .replaceAll('john@example.com', `buyer-${id}@example.com`)
    .replaceAll('jon@example.com', `buyer-${id}@example.com`);
  if (at)
    for (const k of ['created_at', 'updated_at', 'processed_at'])
      text = text.replace(`"${k}":"2021-12-31T19:00:00-05:00"`, `"${k}":"${at}"`);
  if (opts.clientId)
    text = text.replace(
      '"note_attributes":[]',
      `"note_attributes":[{"name":"_oa_client_id","value":"${opts.clientId}"}]`,
    );
  for (const [k, v] of Object.entries(over)) text = text.replace(`"${k}":null`, `"${k}":${JSON.stringify(v)}`);
  return Buffer.from(text);
}

describe('Shopify', () => {
  it('the recorded orders/create is stored once as a test order, whatever the redeliveries; one changed byte is 401', async () => {
    const body = fixture('shopify/orders-create.json');
    const tampered = Buffer.from(body);
    tampered[tampered.indexOf('404.95')] = '5'.charCodeAt(0);
    const bad = await sendShopify('orders/create', tampered, { signature: sign(body, SHOPIFY_SECRET), webhookId: 'x' });
    expect(bad.status).toBe(401);
    expect(bad.body.message).toMatch(/X-Shopify-Hmac-Sha256/);
    const unsigned = await request(api.url)
      .post(`/hooks/shopify/${shopify.connection_id}`)
      .set('X-Shopify-Topic', 'orders/create')
      .set('X-Shopify-Shop-Domain', SHOP)
      .send(body.toString('utf8'));
    expect(unsigned.status).toBe(401);
    const otherShop = await sendShopify('orders/create', body, { shop: 'other.myshopify.com' });
    expect(otherShop.status).toBe(401);

    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await sendShopify('orders/create', body, { webhookId: 'sample-1' }));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(answers.map((a) => (a.body as { data: { outcome: string } }).data.outcome)).toEqual([
      'published',
      'duplicate',
      'duplicate',
    ]);
    const fact = await waitFor(
      () => orderFact('820982911946154508'),
      (f) => f !== null,
      ...POLL,
    );
    // Shopify's sample is a cancelled test order: stored with its exact id, total and currency, counting nothing.
    expect(fact).toMatchObject({
      cancelled: true,
      value_micros: '404950000',
      currency_orig: 'USD',
      customer_id: '115310627314723954',
    });
    expect(await storedOrders('820982911946154508')).toBe(1);
    const recorded = await db.query<{ n: string }>(
      'test.deliveries',
      'select count(*) as n from store_hook_deliveries where connection_id = $1 and delivery_key = $2',
      [shopify.connection_id, 'wh:sample-1'],
    );
    expect(recorded[0]!.n).toBe('1');
    const tamperedStored = await db.query(
      'test.tampered',
      'select 1 from store_hook_deliveries where delivery_key = $1',
      ['wh:x'],
    );
    expect(tamperedStored).toEqual([]);
  });

  it('an order id above 2^53 comes back exact, credited from landing_site to paid search', async () => {
    const id = '9007199254740993123';
    const res = await sendShopify(
      'orders/create',
      liveShopifyOrder(id, { landing_site: '/?utm_source=google&utm_medium=cpc&utm_campaign=x' }, { at: NOW - HOUR }),
    );
    expect(res.status).toBe(200);
    const touch = await waitFor(
      () => touches(id),
      (t) => t?.first_touchpoint !== null && t !== undefined,
      ...POLL,
    );
    expect(touch.order_id).toBe(id);
    expect(touch.first_touchpoint).toMatchObject({ channel: 'paid_search', source: 'google', campaign: 'x' });
    const event = await request(api.url)
      .post('/v2-4-2/api/order/event')
      .set('ApiKey', shop.credentials.api_key)
      .send({ order_id: id });
    expect(event.status).toBe(200);
    expect(JSON.stringify(event.body)).toContain(`"${id}"`);
    expect(await orderFact(id)).toMatchObject({ cancelled: false, value_micros: '404950000' });

    // Every report that lists orders gives the id as its exact digits, a string.
    const range = { start_date: day(NOW - 24 * HOUR), end_date: day(NOW + 24 * HOUR) };
    const report = (op: string, body: object) =>
      request(api.url).post(`/v2-4-2/api/${op}`).set('ApiKey', shop.credentials.api_key).send(body);
    const idsOf = (res: request.Response): unknown[] => {
      expect(res.status).toBe(200);
      return (res.body.data.records as Array<{ order_id: unknown }>).map((r) => r.order_id);
    };
    expect(idsOf(await report('get/order/list', { ...range, page: 1, page_size: 50 }))).toContain(id);
    expect(idsOf(await report('order/campaign-list', { ...range, campaign: 'x', model: 'last' }))).toEqual([id]);
    expect(
      idsOf(
        await report('get/ad-analysis/customer-list', {
          ...range,
          dimensions: ['campaign'],
          model: 'last',
          goal: 'purchase',
          filters: [{ key: 'campaign', operator: 'eq', value: 'x' }],
        }),
      ),
    ).toEqual([id]);
  });

  it("an order whose note_attributes carry a tracker clientId is credited to that browser's journey", async () => {
    const clientId = `hook-client-${NOW}`;
    const start = NOW - 3 * HOUR;
    const view = pageView({
      client: clientId,
      at: new Date(start).toISOString(),
      url: 'https://shop.example/?utm_source=newsletter&utm_medium=email&utm_campaign=spring',
    });
    const sent = await request(api.url)
      .post('/v2-4-2/api/events')
      .set('X-Ingest-Key', shop.credentials.ingest_key)
      .send([view]);
    expect(sent.status).toBe(200);
    await waitFor(
      () =>
        db.query('test.view', 'select 1 from event_facts where store_id = $1 and event_id = $2', [
          shop.store.store_id,
          view.id,
        ]),
      (rows) => rows.length === 1,
      ...POLL,
    );
    const id = '9100000000000000003';
    // No landing site, no referrer: only the cart attribute ties the order to the visit.
    expect((await sendShopify('orders/create', liveShopifyOrder(id, {}, { at: start + HOUR, clientId }))).status).toBe(
      200,
    );
    const touch = await waitFor(
      () => touches(id),
      (t) => t?.first_touchpoint?.source === 'newsletter',
      ...POLL,
    );
    expect(touch.first_touchpoint).toMatchObject({ channel: 'email', source: 'newsletter', campaign: 'spring' });
  });

  it('a test order (test: true, not cancelled) is stored and converts nothing', async () => {
    const id = '9100000000000000004';
    const body = liveShopifyOrder(
      id,
      { landing_site: '/?utm_source=google&utm_medium=cpc&utm_campaign=t' },
      {
        at: NOW - 2 * HOUR,
        test: true,
      },
    );
    expect((await sendShopify('orders/create', body)).status).toBe(200);
    const fact = await waitFor(
      () => orderFact(id),
      (f) => f !== null,
      ...POLL,
    );
    expect(fact).toMatchObject({ cancelled: true, value_micros: '404950000' });
    expect(await storedOrders(id)).toBe(1);
    // The batch that stored the fact would have stored the conversion too.
    const conversions = await db.query(
      'test.conversions',
      'select 1 from conversions where store_id = $1 and order_id = $2',
      [shop.store.store_id, id],
    );
    expect(conversions).toEqual([]);
    const listed = await request(api.url)
      .post('/v2-4-2/api/order/campaign-list')
      .set('ApiKey', shop.credentials.api_key)
      .send({ start_date: day(NOW - 24 * HOUR), end_date: day(NOW + 24 * HOUR), campaign: 't', model: 'last' });
    expect(listed.status).toBe(200);
    expect(listed.body.data.total).toBe(0);
  });

  it('a search-engine referring_site is organic search', async () => {
    const id = '9100000000000000001';
    expect(
      (await sendShopify('orders/create', liveShopifyOrder(id, { referring_site: 'https://www.google.com/' }))).status,
    ).toBe(200);
    const touch = await waitFor(
      () => touches(id),
      (t) => t?.first_touchpoint !== null && t !== undefined,
      ...POLL,
    );
    expect(touch.first_touchpoint).toMatchObject({ channel: 'organic_search', source: 'google' });
  });

  it('refunds/create lowers the order net revenue exactly; an older update after a newer one changes nothing', async () => {
    const id = '9100000000000000002';
    const created = liveShopifyOrder(id);
    const newer = Buffer.from(
      created
        .toString('utf8')
        .replace('"updated_at":"2021-12-31T19:00:00-05:00"', '"updated_at":"2022-01-02T10:00:00-05:00"')
        .replace('"total_price":"404.95"', '"total_price":"300.00"'),
    );
    // Out of order: the update arrives before the creation.
    expect((await sendShopify('orders/updated', newer)).status).toBe(200);
    expect((await sendShopify('orders/create', created)).status).toBe(200);
    await waitFor(
      () => orderFact(id),
      (f) => f?.value_micros === '300000000',
      ...POLL,
    );
    // Ids above 2^53 written as Shopify writes them: JSON numbers.
    const refund = Buffer.from(
      `{"id":9100000000000000777,"order_id":${id},"created_at":"2022-01-03T10:00:00-05:00",` +
        '"transactions":[{"id":1,"kind":"refund","status":"success","amount":"75.00"}]}',
    );
    for (let i = 0; i < 2; i++)
      expect((await sendShopify('refunds/create', refund, { webhookId: 'refund-1' })).status).toBe(200);
    const fact = await waitFor(
      () => orderFact(id),
      (f) => f?.value_micros === '225000000',
      ...POLL,
    );
    expect(fact).toMatchObject({ refunded_micros: '75000000', cancelled: false });
    // The creation, delivered again late under a new webhook id, does not undo the update nor the refund.
    expect((await sendShopify('orders/create', created)).status).toBe(200);
    expect(await orderFact(id)).toMatchObject({ value_micros: '225000000' });
  });

  it("Shopify's recorded refund reaches its recorded order; a same-second update after it keeps the refund", async () => {
    const id = '450789469';
    expect((await sendShopify('orders/create', fixture('shopify/order-450789469.json'))).status).toBe(200);
    await waitFor(
      () => orderFact(id),
      (f) => f?.value_micros === '409940000',
      ...POLL,
    );
    const refund = fixture('shopify/refunds-create-509562969.json');
    expect((await sendShopify('refunds/create', refund)).status).toBe(200);
    // 409.94 less the refund's transaction of 209.00.
    expect(
      await waitFor(
        () => orderFact(id),
        (f) => f?.refunded_micros === '209000000',
        ...POLL,
      ),
    ).toMatchObject({ value_micros: '200940000', currency_orig: 'USD', cancelled: false });
    // Shopify stamps whole seconds: an edit in the second of the stored version has its updated_at, and arrives
    // after the refund. It is the newest state, and the refund stays.
    const edited = Buffer.from(
      fixture('shopify/order-450789469.json')
        .toString('utf8')
        .replace('"total_price":"409.94"', '"total_price":"419.94"'),
    );
    expect((await sendShopify('orders/updated', edited)).status).toBe(200);
    expect(
      await waitFor(
        () => orderFact(id),
        (f) => f?.value_micros !== '200940000',
        ...POLL,
      ),
    ).toMatchObject({ value_micros: '210940000', refunded_micros: '209000000' });
    expect(await storedOrders(id)).toBe(1);
  });

  it('get/connection/source lists the connection with its deliveries', async () => {
    const res = await request(api.url)
      .post('/v2-4-2/api/get/connection/source')
      .set('ApiKey', shop.credentials.api_key)
      .send({});
    expect(res.status).toBe(200);
    const record = (res.body.data.records as Array<Record<string, unknown>>).find(
      (r) => r.id === shopify.connection_id,
    );
    expect(record).toMatchObject({ platform_type: 'shopify', account_id: SHOP, connected: true });
    expect(record!.events_24h).toBeGreaterThan(0);
  });

  it('an unknown connection is 404', async () => {
    const res = await request(api.url)
      .post('/hooks/shopify/sc_doesnotexist')
      .set('X-Shopify-Hmac-Sha256', 'AAAA')
      .send('{}');
    expect(res.status).toBe(404);
  });
});

describe('WooCommerce', () => {
  it('the creation ping is answered 200 and stores nothing', async () => {
    const res = await request(api.url)
      .post(`/hooks/woocommerce/${woo.connection_id}`)
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send('webhook_id=15');
    expect(res.status).toBe(200);
    expect(res.body.data.outcome).toBe('ping');
  });

  it('the recorded orders are stored with their total, less their refunds; thrice sent, counted once', async () => {
    const order = fixture('woocommerce/order-727.json');
    for (let i = 0; i < 3; i++) expect((await sendWoo('order.created', order)).status).toBe(200);
    expect(
      await waitFor(
        () => orderFact('727'),
        (f) => f !== null,
        ...POLL,
      ),
    ).toMatchObject({
      cancelled: false,
      value_micros: '29350000',
      currency_orig: 'USD',
    });
    expect(await storedOrders('727')).toBe(1);
    const refunded = fixture('woocommerce/order-723-refunds.json');
    expect((await sendWoo('order.updated', refunded)).status).toBe(200);
    // 39.00 less the refunds of 10.00 and 9.00, as a refund push would.
    expect(
      await waitFor(
        () => orderFact('723'),
        (f) => f !== null,
        ...POLL,
      ),
    ).toMatchObject({
      value_micros: '20000000',
      refunded_micros: '19000000',
      customer_id: '26',
    });
    const tampered = Buffer.from(refunded);
    tampered[tampered.indexOf('39.00')] = '4'.charCodeAt(0);
    expect((await sendWoo('order.updated', tampered, sign(refunded, WOO_SECRET))).status).toBe(401);
  });

  it("WooCommerce's own attribution: utm is credited to its UTMs, typein is direct; a deletion converts nothing", async () => {
    const base = JSON.parse(fixture('woocommerce/order-727.json').toString('utf8')) as Record<string, unknown>;
    const withMeta = (id: number, meta: Record<string, string>) =>
      Buffer.from(
        JSON.stringify({
          ...base,
          id,
          billing: { ...(base.billing as object), email: `buyer-${id}@example.com` },
          meta_data: Object.entries(meta).map(([key, value], i) => ({ id: i + 1, key, value })),
        }),
      );
    const P = '_wc_order_attribution_';
    expect(
      (
        await sendWoo(
          'order.created',
          withMeta(801, {
            [`${P}source_type`]: 'utm',
            [`${P}utm_source`]: 'newsletter',
            [`${P}utm_medium`]: 'email',
            [`${P}utm_campaign`]: 'spring',
            [`${P}session_entry`]: 'https://example.com/shop/',
          }),
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await sendWoo(
          'order.created',
          withMeta(802, { [`${P}source_type`]: 'typein', [`${P}session_entry`]: 'https://example.com/' }),
        )
      ).status,
    ).toBe(200);
    const utm = await waitFor(
      () => touches('801'),
      (t) => t?.first_touchpoint !== null && t !== undefined,
      ...POLL,
    );
    expect(utm.first_touchpoint).toMatchObject({ channel: 'email', source: 'newsletter', campaign: 'spring' });
    const typein = await waitFor(
      () => touches('802'),
      (t) => t?.first_touchpoint !== null && t !== undefined,
      ...POLL,
    );
    expect(typein.first_touchpoint).toMatchObject({ channel: 'direct', source: '(direct)' });

    expect((await sendWoo('order.deleted', Buffer.from('{"id":802}'))).status).toBe(200);
    await waitFor(
      () => orderFact('802'),
      (f) => f?.cancelled === true,
      ...POLL,
    );
    expect((await sendWoo('order.restored', withMeta(802, { [`${P}source_type`]: 'typein' }))).status).toBe(200);
    await waitFor(
      () => orderFact('802'),
      (f) => f?.cancelled === false,
      ...POLL,
    );
  });
});
