/**
 * Shopify's three mandatory privacy webhooks (docs/operations.md, Privacy) through the real API, pipeline,
 * nats-server and PostgreSQL, with Shopify's own sample bodies (test/fixtures/shopify) signed byte for byte:
 * - a bad or missing signature is 401 and records nothing;
 * - `customers/data_request` keeps the customer's export for the operator;
 * - `customers/redact` erases the customer (by id, email and the orders it lists);
 * - `shop/redact` deletes the store: its rows, its stream messages, its credentials.
 */
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { EVENTS_STREAM } from '../../contracts/src/subjects';
import type { Db } from '../../storage/db';
import { createSecretBox, generateSecretsKey, parseSecretsKey } from '../../storage/secret-box';
import { createConnection, type StoreConnection } from '../../storage/store-connections';
import type { RunningApi } from '../../query-api/src/app/api';
import type { RunningPipeline } from '../../pipeline/src/app/daemon';
import { createTestStore, startTestApi, startTestPipeline, testDb, type TestStore, waitFor } from '../support/harness';
import { checkoutCompleted, order, pageView } from '../support/journeys';
import { pipelineCaughtUp } from '../support/stream';
import { testEnv } from '../support/env';

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'shopify');
const fixture = (name: string): Buffer => fs.readFileSync(path.join(FIXTURES, name));
const SECRETS_KEY = generateSecretsKey();
const SHOP = 'privacy-hooks.myshopify.com';
const SECRET = 'shpss_privacy_hooks_secret_0123456789';
/** The customer of Shopify's sample bodies. */
const JOHN = { id: '191167', email: 'john@example.com', orders: ['299938', '280263', '220458'] };
const JOHN_CLIENT = 'john-browser-5b1e';

let db: Db;
let api: RunningApi;
let pipeline: RunningPipeline;
let nc: NatsConnection;
let shop: TestStore;
let connection: StoreConnection;

const sign = (body: Buffer): string => createHmac('sha256', SECRET).update(body).digest('base64');

let deliveries = 0;
function sendShopify(topic: string, body: Buffer, signature = sign(body)) {
  return request(api.url)
    .post(`/hooks/shopify/${connection.connection_id}`)
    .set('Content-Type', 'application/json')
    .set('X-Shopify-Topic', topic)
    .set('X-Shopify-Hmac-Sha256', signature)
    .set('X-Shopify-Shop-Domain', SHOP)
    .set('X-Shopify-API-Version', '2026-07')
    .set('X-Shopify-Webhook-Id', `privacy-delivery-${++deliveries}`)
    .send(body.toString('utf8'));
}

const requestsOf = (storeId: string) =>
  db.query<{ kind: string; source: string; status: string; subject: unknown; result: unknown }>(
    'test.requests',
    'select kind, source, status, subject, result from privacy_requests where store_id = $1 order by received_at',
    [storeId],
  );

/**
 * Rows naming `text`, by table: of this store where a table has a store id (other test files of this worker
 * send Shopify's samples too, with John's email), every row elsewhere.
 */
async function rowsNaming(text: string, storeId = shop.store.store_id): Promise<Record<string, number>> {
  const tables = await db.query<{ table_name: string; scoped: boolean }>(
    'test.tables',
    `select t.table_name, exists (select 1 from information_schema.columns c where c.table_schema = t.table_schema
       and c.table_name = t.table_name and c.column_name = 'store_id') as scoped
     from information_schema.tables t where t.table_schema = current_schema() and t.table_type = 'BASE TABLE'`,
  );
  const found: Record<string, number> = {};
  for (const { table_name: t, scoped } of tables) {
    const [row] = await db.query<{ n: string }>(
      'test.scan',
      `select count(*) as n from ${t} x where x::text like $1 ${scoped ? 'and x.store_id = $2' : 'and $2::text is not null'}`,
      [`%${text}%`, storeId],
    );
    if (Number(row!.n) > 0) found[t] = Number(row!.n);
  }
  return found;
}

beforeAll(async () => {
  db = testDb();
  nc = await connect({ servers: testEnv.natsUrl });
  shop = await createTestStore(db);
  connection = await createConnection(db, createSecretBox(parseSecretsKey(SECRETS_KEY)), {
    storeId: shop.store.store_id,
    kind: 'shopify',
    account: SHOP,
    secret: SECRET,
  });
  api = await startTestApi({ SECRETS_KEY });
  pipeline = await startTestPipeline();
  // John shops: a visit, a purchase with one of the orders Shopify names, the order pushed by the store.
  const at = (m: number) => new Date(Date.now() - m * 60_000).toISOString();
  const events = [
    pageView({ client: JOHN_CLIENT, at: at(30), url: 'https://shop.example/?utm_source=google&utm_medium=cpc' }),
    checkoutCompleted(
      { client: JOHN_CLIENT, at: at(20) },
      { orderId: JOHN.orders[0]!, token: 'john-token', amount: 40, email: JOHN.email, customerId: JOHN.id },
    ),
    pageView({ client: 'someone-else-5b1e', at: at(10) }),
  ];
  const ingest = (p: string, body: unknown) =>
    request(api.url)
      .post(`/v2-4-2/api/${p}`)
      .set('X-Ingest-Key', shop.credentials.ingest_key)
      .send(body as object);
  expect((await ingest('events', events)).status).toBe(200);
  const pushed = order({
    id: JOHN.orders[1]!,
    email: JOHN.email,
    checkout_token: 'john-token-2',
    customer: { id: JOHN.id, email: JOHN.email, first_name: 'John', last_name: 'Smith' },
    created_at: at(15),
    updated_at: at(14),
  });
  expect((await ingest('store/orders', [pushed])).status).toBe(200);
  await pipelineCaughtUp(nc);
});

afterAll(async () => {
  await pipeline.stop();
  await api.stop();
  await nc.close();
  await db.close();
});

it('a bad or missing signature is 401 on each privacy topic and records nothing', async () => {
  for (const [topic, file] of [
    ['customers/data_request', 'customers-data_request.json'],
    ['customers/redact', 'customers-redact.json'],
    ['shop/redact', 'shop-redact.json'],
  ] as const) {
    const body = fixture(file);
    expect((await sendShopify(topic, body, sign(Buffer.from(`${body.toString()} `)))).status).toBe(401);
    expect((await sendShopify(topic, body, '')).status).toBe(401);
  }
  expect(await requestsOf(shop.store.store_id)).toEqual([]);
});

it('customers/data_request keeps the customer as one document for the operator', async () => {
  const res = await sendShopify('customers/data_request', fixture('customers-data_request.json'));
  expect(res.status).toBe(200);
  expect(res.body.data).toEqual({ topic: 'customers/data_request', outcome: 'recorded' });
  const [req] = await requestsOf(shop.store.store_id);
  expect(req).toMatchObject({ kind: 'export', source: 'shopify', status: 'done', subject: null });
  const doc = req!.result as {
    identifiers: Record<string, string[]>;
    events: Array<{ name: string }>;
    orders: Array<{ order_id: string }>;
  };
  expect(doc.identifiers).toEqual({
    client_ids: [JOHN_CLIENT],
    emails: [JOHN.email],
    customer_ids: [JOHN.id],
    order_ids: [JOHN.orders[1], JOHN.orders[0]].sort(),
  });
  // The purchase the storefront saw, and the order the store pushed.
  expect(doc.events.map((e) => e.name)).toEqual(['page_viewed', 'checkout_completed']);
  expect(doc.orders.map((o) => o.order_id)).toEqual([JOHN.orders[1]]);
});

it('customers/redact erases the customer, its export included', async () => {
  // The browser, and the pushed order's pseudo-client under John's person.
  expect(await rowsNaming(JOHN_CLIENT)).toMatchObject({ raw_events: 2, clients: 2 });
  const res = await sendShopify('customers/redact', fixture('customers-redact.json'));
  expect(res.status).toBe(200);
  expect(res.body.data).toEqual({ topic: 'customers/redact', outcome: 'recorded' });
  const done = await waitFor(
    () => requestsOf(shop.store.store_id).then((rs) => rs.find((r) => r.kind === 'erase')),
    (r) => r?.status === 'done',
  );
  // Two events, the pushed order (the other was only a checkout; the third is unknown here), the export kept.
  expect(done).toMatchObject({
    subject: null,
    result: expect.objectContaining({ persons: 1, event_facts: 2, orders: 1, privacy_records: 1 }),
  });
  for (const text of [JOHN.email, JOHN_CLIENT, `"${JOHN.id}"`, JOHN.orders[0]!])
    expect(await rowsNaming(text)).toEqual({});
  expect(await rowsNaming('someone-else-5b1e')).toMatchObject({ raw_events: 1 });
});

it('shop/redact deletes the store: rows, stream messages and credentials', async () => {
  const storeId = shop.store.store_id;
  const jsm = await jetstreamManager(nc);
  const subjects = () =>
    jsm.streams
      .info(EVENTS_STREAM, { subjects_filter: `ev.*.${storeId}.>` })
      .then((i) => Object.keys(i.state.subjects ?? {}).length);
  expect(await subjects()).toBeGreaterThan(0);
  const res = await sendShopify('shop/redact', fixture('shop-redact.json'));
  expect(res.status).toBe(200);
  const audit = await waitFor(
    () =>
      db.query<{ counts: Record<string, number> }>(
        'test.audit',
        "select counts from privacy_audit where store_id = $1 and action = 'delete_store'",
        [storeId],
      ),
    (rows) => rows.length === 1,
  );
  expect(audit[0]!.counts).toMatchObject({ stores: 1, raw_events: 1, event_facts: 1 });
  expect(audit[0]!.counts.stream_messages).toBeGreaterThan(0);
  expect(await subjects()).toBe(0);
  const left = await rowsNaming(storeId);
  // What stays: the audit of the store's privacy operations and the tombstone that drops its messages in flight.
  expect(Object.keys(left).sort()).toEqual(['erased_identifiers', 'privacy_audit']);
  const refused = await request(api.url)
    .post('/v2-4-2/api/get/setting-models')
    .set('ApiKey', shop.credentials.api_key)
    .send({});
  expect(refused.status).toBe(401);
});
