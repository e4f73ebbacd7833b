/**
 * The order journey comes from the facts alone (docs/decisions.md, Storage, "Raw payloads off the hot path"): a
 * store whose raw payloads are dropped (`npm run store -- retention --days none`) shows the same events and fields
 * as before, and from then on its events are stored with no payload at all, their journeys just as complete.
 */
import request from 'supertest';
import type { Checkout, EventName, StorefrontEvent } from '../../contracts/src/events';
import type { Db } from '../../storage/db';
import type { RunningApi } from '../../query-api/src/app/api';
import type { RunningPipeline } from '../../pipeline/src/app/daemon';
import { createTestStore, startTestApi, startTestPipeline, testDb, type TestStore } from '../support/harness';
import { send } from '../support/journeys';
import { runScript } from '../support/processes';
import { pipelineCaughtUp } from '../support/stream';
import { metricValue } from '../support/metrics';
import { sampleContext, sampleEvent } from '../support/samples';
import { connect } from '@nats-io/transport-node';
import { testEnv } from '../support/env';

let db: Db;
let api: RunningApi;
let pipeline: RunningPipeline;
let shop: TestStore;

/** A journey with every kind the journey shows an object for, on pages with a title, from one browser. */
const KINDS: EventName[] = [
  'page_viewed',
  'search_submitted',
  'collection_viewed',
  'product_viewed',
  'product_added_to_cart',
  'product_removed_from_cart',
  'cart_viewed',
  'checkout_started',
  'checkout_contact_info_submitted',
  'payment_info_submitted',
  'checkout_completed',
];

function journeyEvents(client: string, orderId: string, startMs: number): StorefrontEvent[] {
  return KINDS.map((name, i) => {
    const e = sampleEvent(name, {
      id: `${client}-${i}`,
      clientId: client,
      clientIp: `198.51.100.${i + 1}`,
      timestamp: new Date(startMs + i * 60_000).toISOString(),
      context: sampleContext(
        `https://shop.example/page-${i}?utm_source=news&utm_medium=email&utm_campaign=spring`,
        '',
        `Page ${i}`,
      ),
    }) as StorefrontEvent;
    // Each journey its own buyer: its own email, checkout and customer (shared ones join both into one person).
    const own = { email: `${client}@example.com`, token: `tok-${client}` };
    if (e.name === 'checkout_completed')
      e.data = {
        checkout: {
          ...e.data.checkout,
          ...own,
          order: { id: orderId, customer: { id: `cust-${client}`, isFirstOrder: true } },
        },
      };
    else if (e.name.startsWith('checkout') || e.name === 'payment_info_submitted') {
      const data = e.data as { checkout: Checkout };
      data.checkout = { ...data.checkout, ...own };
    }
    return e;
  });
}

const journey = async (orderId: string) => {
  const res = await request(api.url)
    .post('/v2-4-2/api/order/event')
    .set('ApiKey', shop.credentials.api_key)
    .send({ order_id: orderId, page: 1, page_size: 50 });
  expect(res.status).toBe(200);
  return res.body.data as { total: number; events: Array<Record<string, unknown>> };
};

const rawCount = async (): Promise<number> =>
  Number(
    (
      await db.query<{ n: string }>('test.raw', 'select count(*) as n from raw_events where store_id = $1', [
        shop.store.store_id,
      ])
    )[0]!.n,
  );

/** Everything that once came from the payload is there: titles, IPs, user agents, and each kind's object. */
function expectComplete(events: Array<Record<string, unknown>>): void {
  events.forEach((e, i) => {
    expect(e).toMatchObject({
      event_page_title: `Page ${i}`,
      event_page_ip: `198.51.100.${i + 1}`,
      event_page_user_agent: expect.stringContaining('Mozilla/5.0'),
    });
  });
  const objects = ['products', 'cart_viewed', 'checkout_started', 'checkout_completed', 'payment_info_submitted'];
  const filled = (e: Record<string, unknown>) => [...objects, 'search_submitted'].filter((k) => e[k] !== null);
  expect(events.map(filled)).toEqual([
    [],
    ['search_submitted'],
    ['products'],
    ['products'],
    ['products'],
    ['products'],
    ['cart_viewed'],
    ['checkout_started'],
    [],
    ['payment_info_submitted'],
    ['checkout_completed'],
  ]);
  expect(events[10]!.checkout_completed).toMatchObject({
    total_price: expect.any(Number),
    items: [expect.objectContaining({ title: expect.any(String) }), expect.objectContaining({ title: 'Wool Socks' })],
  });
}

beforeAll(async () => {
  db = testDb();
  api = await startTestApi();
  pipeline = await startTestPipeline();
  shop = await createTestStore(db, { timezone: 'UTC', lookbackDays: 30 });
});

afterAll(async () => {
  await pipeline.stop();
  await api.stop();
  await db.close();
});

it('a journey shows the same events and fields once the raw payloads are dropped, and new events have them too', async () => {
  const id = shop.store.store_id;
  await send(api.url, shop.credentials.ingest_key, db, id, journeyEvents('kept-1', '7001', Date.now() - 3_600_000));
  expect(await rawCount()).toBe(KINDS.length);

  const before = await journey('7001');
  expect(before.total).toBe(KINDS.length);
  expectComplete(before.events);

  const dropped = await runScript('store.ts', ['retention', '--store', id, '--days', 'none']);
  expect(dropped.code).toBe(0);
  expect(JSON.parse(dropped.stdout)).toEqual({
    store_id: id,
    raw_payloads_stored: false,
    raw_events_deleted: KINDS.length,
  });
  expect(await rawCount()).toBe(0);
  expect(await journey('7001')).toEqual(before);

  // From now on none is stored, and a new journey is as complete as the first was.
  const notKept = () => metricValue(pipeline.metrics.rawPayloads, { result: 'not_kept' });
  const notKeptBefore = await notKept();
  await send(api.url, shop.credentials.ingest_key, db, id, journeyEvents('none-1', '7002', Date.now() - 1_800_000));
  const nc = await connect({ servers: testEnv.natsUrl });
  try {
    await pipelineCaughtUp(nc);
  } finally {
    await nc.close();
  }
  expect(await rawCount()).toBe(0);
  expect(await notKept()).toBe(notKeptBefore + KINDS.length);
  const after = await journey('7002');
  expect(after.total).toBe(KINDS.length);
  expectComplete(after.events);
});
