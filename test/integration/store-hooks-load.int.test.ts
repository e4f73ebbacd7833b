/**
 * Store webhooks under load (docs/product.md, Store connections): 2,000 signed Shopify deliveries from 5 shops
 * (5 stores, one connection each), 20 in flight, through the real API, pipeline and PostgreSQL. Every delivery
 * is answered 2xx and every order is stored exactly once in its newest state: none lost, none doubled. How fast
 * is measured by `npm run bench -- hooks` (the same load), not here.
 */
import type { Db } from '../../storage/db';
import { createSecretBox, generateSecretsKey, parseSecretsKey } from '../../storage/secret-box';
import { createConnection } from '../../storage/store-connections';
import type { RunningApi } from '../../query-api/src/app/api';
import type { RunningPipeline } from '../../pipeline/src/app/daemon';
import { hookLoad, sendHookLoad, type HookLoadShop } from '../../scripts/bench/hook-load';
import { createTestStore, startTestApi, startTestPipeline, testDb, waitFor } from '../support/harness';

const SECRETS_KEY = generateSecretsKey();
const SHOPS = 5;
const ORDERS_PER_SHOP = 200;

let db: Db;
let api: RunningApi;
let pipeline: RunningPipeline;
const shops: Array<HookLoadShop & { storeId: string }> = [];

beforeAll(async () => {
  db = testDb();
  const box = createSecretBox(parseSecretsKey(SECRETS_KEY));
  for (let s = 0; s < SHOPS; s++) {
    const { store } = await createTestStore(db, { currency: 'USD' });
    const shop = `load-${s}-${store.store_id.slice(-8).toLowerCase()}.myshopify.com`.replace(/[^a-z0-9.-]/g, '');
    const secret = `shpss_load_secret_${s}_0123456789`;
    const connection = await createConnection(db, box, {
      storeId: store.store_id,
      kind: 'shopify',
      account: shop,
      secret,
    });
    shops.push({ storeId: store.store_id, connectionId: connection.connection_id, shop, secret });
  }
  api = await startTestApi({ SECRETS_KEY });
  pipeline = await startTestPipeline();
}, 60_000);

afterAll(async () => {
  await pipeline?.stop();
  await api?.stop();
  await db?.close();
});

it('2,000 signed webhooks from 5 shops, 20 in flight: every one 2xx, every order stored once in its newest state', async () => {
  const { deliveries, expected } = hookLoad(shops, ORDERS_PER_SHOP);
  expect(deliveries).toHaveLength(2_000);
  expect(new Set(expected.map((e) => e.orderId)).size).toBe(SHOPS * ORDERS_PER_SHOP);

  const answers = await sendHookLoad(api.url, deliveries, 20);
  expect(answers).toHaveLength(2_000);
  const failed = answers.filter((a) => a.status < 200 || a.status >= 300);
  expect(failed.map((a) => `${a.delivery.webhookId}: ${a.status} ${a.outcome}`)).toEqual([]);
  // Every delivery is distinct, so every one publishes an order version (none taken for a redelivery).
  expect(answers.filter((a) => a.outcome !== 'published').map((a) => a.outcome)).toEqual([]);

  const storeIds = shops.map((s) => s.storeId);
  const newest = new Map(expected.map((e) => [e.orderId, String(e.valueMicros)]));
  const facts = await waitFor(
    () =>
      db.query<{ store_id: string; order_id: string; value_micros: string; cancelled: boolean }>(
        'test.load_facts',
        'select store_id, order_id, value_micros, cancelled from order_facts where store_id = any($1)',
        [storeIds],
      ),
    // Until every order has its newest version (the update may be applied after the creation).
    (rows) => rows.length >= expected.length && rows.every((r) => newest.get(r.order_id) === r.value_micros),
    120_000,
    250,
  );
  const storeOf = new Map(shops.map((s) => [s.connectionId, s.storeId]));
  const want = expected
    .map((e) => ({ store_id: storeOf.get(e.connectionId)!, order_id: e.orderId, value_micros: String(e.valueMicros) }))
    .sort((a, b) => a.order_id.localeCompare(b.order_id));
  const got = facts
    .map((f) => ({ store_id: f.store_id, order_id: f.order_id, value_micros: f.value_micros }))
    .sort((a, b) => a.order_id.localeCompare(b.order_id));
  // Exactly the expected orders, each in its store, with the update's total (the newest state), and none cancelled.
  expect(got).toEqual(want);
  expect(facts.every((f) => !f.cancelled)).toBe(true);

  const stored = await db.query<{ store_id: string; orders: string; distinct_orders: string }>(
    'test.load_orders',
    `select store_id, count(*) as orders, count(distinct order_id) as distinct_orders
     from shop_orders where store_id = any($1) group by store_id order by store_id`,
    [storeIds],
  );
  expect(stored.map((r) => [r.orders, r.distinct_orders])).toEqual(storeIds.map(() => ['200', '200']));
  const recorded = await db.query<{ connection_id: string; n: string }>(
    'test.load_deliveries',
    `select connection_id, count(*) as n from store_hook_deliveries where connection_id = any($1)
     group by connection_id`,
    [shops.map((s) => s.connectionId)],
  );
  expect(recorded.map((r) => r.n)).toEqual(shops.map(() => '400'));
}, 300_000);
