/**
 * A rebuild's bulk load (docs/decisions.md, Operations, "A rebuild loads the stream in memory"), through a real
 * nats-server and PostgreSQL, against what the live daemon stored from the same stream:
 * - every stream-derived fact table and every view equal the live run's, row by row: events sent twice, order
 *   versions (refunds, cancellations) and a version older than the one held, products, customers, ad spend, link
 *   clicks sent twice, and an undecodable message, which is dead-lettered once;
 * - a message whose facts PostgreSQL refuses fails the bulk load, which then loads through the daemon's batch
 *   flow: that message alone is dead-lettered and the views are the same;
 * - a load that fails leaves the store as it was (its emptying is in its transaction), and one whose connection
 *   the database ended runs again.
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { headers as natsHeaders } from '@nats-io/nats-core';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import request from 'supertest';
import type { Db } from '../../storage/db';
import type { RunningApi } from '../../query-api/src/app/api';
import type { RunningPipeline } from '../../pipeline/src/app/daemon';
import { reconcileStore } from '../../pipeline/src/operations/reconcile';
import { type ReplayRange, replayStore } from '../../pipeline/src/operations/replay';
import { loadStoreStream } from '../../pipeline/src/operations/rebuild-load';
import { loadStores } from '../../pipeline/src/adapters/pg-fact-store';
import {
  EVENTS_STREAM,
  eventSubject,
  LINK_CLICK_SUBJECT_NAME,
  partitionOf,
  PUSH_SUBJECT_NAMES,
  VALIDATED_HEADER,
  VALIDATION_VERSION,
} from '../../contracts/src/subjects';
import { silentLogger } from '../../runtime/logger';
import { planDemo } from '../../scripts/demo/generate';
import { pushDemo } from '../../scripts/demo/push';
import { sampleCustomer } from '../support/samples';
import { VERSION } from '../support/spec-fields';
import { STREAM_FACT_TABLES, VIEW_TABLES } from '../../storage/schema';
import { createTestStore, startTestApi, startTestPipeline, testDb, type TestStore, waitFor } from '../support/harness';
import { TEST_PARTITIONS, testEnv } from '../support/env';
import { pipelineCaughtUp } from '../support/stream';

let db: Db;
let api: RunningApi;
let pipeline: RunningPipeline;
let nc: NatsConnection;

beforeAll(async () => {
  db = testDb();
  api = await startTestApi();
  pipeline = await startTestPipeline();
  nc = await connect({ servers: testEnv.natsUrl });
});
afterAll(async () => {
  await nc.close();
  await pipeline.stop();
  await api.stop();
  await db.close();
});

/** The tables a rebuild loads again, but the product names (below): the raw payloads are kept as they were. */
const LOADED_TABLES = [...STREAM_FACT_TABLES, ...VIEW_TABLES].filter((t) => t !== 'raw_events' && t !== 'product_info');

/**
 * Every row of the store's facts and views (each as its digest), product names without the time they were seen
 * (the daemon moves that forward at most daily, a rebuild sets the latest), and the store's dead letters.
 */
async function everything(storeId: string): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of LOADED_TABLES) {
    out[table] = (
      await db.query<{ row: string }>(
        'test.rows',
        // When a fact was stored is the time of its load, not part of what was loaded.
        `select md5((to_jsonb(t) - 'stored_at')::text) as row from ${table} t where store_id = $1 order by 1`,
        [storeId],
      )
    ).map((r) => r.row);
  }
  out.product_info = await db.query(
    'test.product_info',
    'select product_id, title, vendor, product_type, image_src from product_info where store_id = $1 order by 1',
    [storeId],
  );
  out.dead_letters = await db.query(
    'test.dead_letters',
    'select stream_seq, subject, reason from dead_letters where store_id = $1 order by 1',
    [storeId],
  );
  return out;
}

async function publish(shop: TestStore, name: string, key: string, body: string, msgId: string): Promise<void> {
  const h = natsHeaders();
  h.set(VALIDATED_HEADER, VALIDATION_VERSION);
  h.set('Nats-Msg-Id', `${shop.store.store_id}:${msgId}`);
  const subject = eventSubject(partitionOf(shop.store.store_id, key, TEST_PARTITIONS), shop.store.store_id, name);
  await jetstream(nc).publish(subject, body, { headers: h });
}

const count = (sql: string, storeId: string) => () =>
  db.query<{ n: string }>('test.count', sql, [storeId]).then((r) => Number(r[0]!.n));

/** A demo store pushed through the API, with the messages a store's stream also holds, applied by the daemon. */
async function seededStore(): Promise<{ shop: TestStore; orders: number }> {
  const shop = await createTestStore(db);
  const id = shop.store.store_id;
  const demo = planDemo({ events: 1500, seed: 21, start: new Date(Date.now() - 15 * 86_400_000), days: 15 });
  await pushDemo({ apiUrl: api.url, ingestKey: shop.credentials.ingest_key, stream: demo });
  const events = [...demo.events()];
  // Two events sent again under other message ids: the stream holds them twice.
  for (const e of events.slice(0, 2)) await publish(shop, e.name, e.clientId, JSON.stringify(e), `again-${e.id}`);
  // An order version older than the one held, sent last.
  const first = demo.orders[0]!;
  await publish(
    shop,
    PUSH_SUBJECT_NAMES.orders,
    first.id,
    JSON.stringify({ ...first, updated_at: '2000-01-01T00:00:00Z', total_price: '1.00' }),
    `old-${first.id}`,
  );
  // A customer, and a link click sent twice.
  const customer = await request(api.url)
    .post(`/${VERSION}/api/store/customers`)
    .set('X-Ingest-Key', shop.credentials.ingest_key)
    .send([sampleCustomer({ id: '9001', email: 'rebuild@example.com' })]);
  expect(customer.status).toBe(200);
  const click = JSON.stringify({
    code: 'spring',
    clickId: 'click-1',
    clientId: events[0]!.clientId,
    at: events[0]!.timestamp,
    ip: '203.0.113.9',
    userAgent: 'Mozilla/5.0',
    referrer: '',
  });
  for (const n of [1, 2]) await publish(shop, LINK_CLICK_SUBJECT_NAME, 'click-1', click, `click-1-${n}`);
  // A message that is not JSON.
  await publish(shop, 'page_viewed', 'x', '{not json', 'undecodable');

  const orders = new Set(demo.orders.map((o) => o.id)).size;
  await waitFor(count('select count(*) as n from raw_events where store_id = $1', id), (n) => n === events.length);
  await waitFor(count('select count(*) as n from shop_orders where store_id = $1', id), (n) => n === orders);
  await waitFor(count('select count(*) as n from shop_customers where store_id = $1', id), (n) => n === 1);
  await waitFor(count('select count(*) as n from link_clicks where store_id = $1', id), (n) => n === 1);
  await waitFor(count('select count(*) as n from dead_letters where store_id = $1', id), (n) => n === 1);
  return { shop, orders };
}

/** Everything the daemon was sent is applied: every message delivered and acknowledged (i.e. committed). */
async function settled(storeId: string): Promise<Record<string, unknown[]>> {
  await pipelineCaughtUp(nc);
  return everything(storeId);
}

/** A rebuild of the store, through the replay as an operator runs it. */
const rebuild = (storeId: string, range: Partial<ReplayRange> = {}) =>
  replayStore(nc, db, { storeId, rebuild: true, ...range }, silentLogger());

/** The store's facts and views are the live run's, row by row, and the reconciliation finds no drift. */
async function expectAsLive(storeId: string, live: Record<string, unknown[]>): Promise<void> {
  expect(await everything(storeId)).toEqual(live);
  expect((await reconcileStore(db, storeId)).driftCount).toBe(0);
}

it('loads every fact and view of the live run again, row by row', async () => {
  const { shop, orders } = await seededStore();
  const id = shop.store.store_id;
  const live = await settled(id);
  expect(live.conversions!.length).toBeGreaterThan(20);
  expect(live.variant_costs!.length).toBeGreaterThan(0);
  expect(live.ad_spend!.length).toBeGreaterThan(0);
  expect(live.shop_orders!.length).toBe(orders);

  const rebuilt = await rebuild(id);
  expect(rebuilt.loadedBy).toBe('bulk');
  expect(rebuilt.duplicates).toBe(2);
  expect(rebuilt.deadLettered).toBe(1);
  expect(rebuilt.processed).toBe(rebuilt.total);
  await expectAsLive(id, live);
}, 180_000);

it('loads through the batch flow a store with more messages than a load in memory takes', async () => {
  const { shop } = await seededStore();
  const id = shop.store.store_id;
  const live = await settled(id);

  const rebuilt = await rebuild(id, { bulkMaxMessages: 10 });
  expect(rebuilt.total).toBeGreaterThan(10);
  expect(rebuilt.loadedBy).toBe('batches');
  expect(rebuilt.processed).toBe(rebuilt.total);
  await expectAsLive(id, live);
}, 180_000);

it('loads through the batch flow when PostgreSQL refuses a message, which alone is dead-lettered', async () => {
  const { shop } = await seededStore();
  const id = shop.store.store_id;
  // An order whose time PostgreSQL cannot read: the daemon's batch holding it fails and is split until that
  // message alone is dead-lettered.
  await publish(
    shop,
    PUSH_SUBJECT_NAMES.orders,
    'broken',
    JSON.stringify({ id: 'broken', created_at: 'not a time', updated_at: 'not a time' }),
    'broken-order',
  );
  await waitFor(count('select count(*) as n from dead_letters where store_id = $1', id), (n) => n === 2);
  const live = await settled(id);

  const rebuilt = await rebuild(id);
  expect(rebuilt.loadedBy).toBe('batches');
  expect(rebuilt.deadLettered).toBe(2);
  await expectAsLive(id, live);
}, 180_000);

it('leaves the store as it was when its load fails, and loads again when the database ends its connection', async () => {
  const { shop } = await seededStore();
  const id = shop.store.store_id;
  const live = await settled(id);

  // A load whose transaction fails after the store was emptied and loaded: nothing of it remains.
  const filter = `ev.*.${id}.*`;
  const info = await (await jetstreamManager(nc)).streams.info(EVENTS_STREAM, { subjects_filter: filter });
  const total = Object.values(info.state.subjects ?? {}).reduce((a, b) => a + b, 0);
  const store = (await loadStores(db.query, [id])).get(id)!;
  const failed = new Error('the load fails after it has loaded');
  await expect(
    db.transaction('test.failed_load', async (tx) => {
      const loaded = await loadStoreStream(
        tx,
        jetstream(nc),
        { filter, range: {}, lastSeq: info.state.last_seq, batchSize: 500, total },
        store,
        new Map(),
      );
      expect(loaded.processed).toBe(total);
      const [facts] = await tx<{ n: string }>(
        'test.facts',
        'select count(*) as n from event_facts where store_id = $1',
        [id],
      );
      expect(Number(facts!.n)).toBe(live.event_facts!.length);
      const [sessions] = await tx<{ n: string }>(
        'test.sessions',
        'select count(*) as n from sessions where store_id = $1',
        [id],
      );
      expect(Number(sessions!.n)).toBe(0); // emptied, not yet recomputed
      throw failed;
    }),
  ).rejects.toBe(failed);
  expect(await everything(id)).toEqual(live);

  // A rebuild whose load waits for its table locks, and whose connection the database then ends. The waiting
  // backend is looked up outside the lock's transaction, whose view of pg_stat_activity would not change.
  let ended = 0;
  const { rebuilding } = await db.transaction('test.hold_lock', async (tx) => {
    await tx('test.lock', 'lock table product_info in row share mode');
    const started = rebuild(id);
    started.catch(() => undefined); // awaited below, once the lock is released
    const waiting = await waitFor(
      () =>
        db.query<{ pid: number }>(
          'test.waiting_load',
          "select pid from pg_stat_activity where wait_event_type = 'Lock' and query like '%replay.lock%'",
        ),
      (rows) => rows.length === 1,
      30_000,
      20,
    );
    const [terminated] = await db.query<{ ok: boolean }>('test.terminate', 'select pg_terminate_backend($1) as ok', [
      waiting[0]!.pid,
    ]);
    if (terminated!.ok) ended++;
    return { rebuilding: started };
  });
  const rebuilt = await rebuilding;
  expect(ended).toBe(1);
  expect(rebuilt.loadedBy).toBe('bulk');
  await expectAsLive(id, live);
}, 180_000);
