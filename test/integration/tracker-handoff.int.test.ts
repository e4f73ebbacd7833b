/**
 * Identity hand-off from the store-side tracker: an order pushed by the store carrying the visitor's
 * clientId as the cart attribute `_oa_client_id` (Shopify's `note_attributes`) joins that visitor's
 * browser journey, with no checkout_completed event and nothing else (no email, no checkout token) in
 * common, whichever of the order and the events the pipeline sees first; the reconciliation, which
 * recomputes identity from the stored links, finds no drift.
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { StorefrontEvent } from '../../contracts/src/events';
import type { ShopOrder } from '../../contracts/src/pushes';
import type { Db } from '../../storage/db';
import { reconcileStore } from '../../pipeline/src/operations/reconcile';
import type { RunningApi } from '../../query-api/src/app/api';
import type { RunningPipeline } from '../../pipeline/src/app/daemon';
import { createTestStore, startTestApi, startTestPipeline, testDb, type TestStore, waitFor } from '../support/harness';
import { addToCart, order, pageView, pushOrder } from '../support/journeys';

let db: Db;
let api: RunningApi;
let pipeline: RunningPipeline;
let shop: TestStore;

const MIN = 60_000;
const NOW = Date.now();
const iso = (ms: number) => new Date(ms).toISOString();
const local = (ms: number) => iso(ms).slice(0, 19).replace('T', ' ');
const LANDING = 'https://shop.example/?utm_source=newsletter&utm_medium=email&utm_campaign=spring';

beforeAll(async () => {
  db = testDb();
  shop = await createTestStore(db, { timezone: 'UTC' });
  api = await startTestApi();
  pipeline = await startTestPipeline();
});

afterAll(async () => {
  await pipeline.stop();
  await api.stop();
  await db.close();
});

/** Events as a browser sends them: through /collect, as text/plain, without clientIp. */
async function collect(events: StorefrontEvent[]): Promise<void> {
  const body = events.map(({ clientIp: _ip, ...e }) => e);
  const res = await request(api.url)
    .post(`/collect/${shop.credentials.ingest_key}`)
    .set('Content-Type', 'text/plain')
    .send(JSON.stringify(body));
  expect(res.status).toBe(200);
  expect(res.body.data.accepted).toBe(events.length);
  await waitFor(
    () =>
      db
        .query<{ n: string }>(
          'test.facts',
          'select count(*) as n from event_facts where store_id = $1 and event_id = any($2::text[])',
          [shop.store.store_id, events.map((e) => e.id)],
        )
        .then((r) => Number(r[0]!.n)),
    (n) => n === events.length,
  );
}

/** A browser visit: lands from the newsletter, views a product, adds it to the cart. No checkout event. */
function visit(clientId: string, start: number): StorefrontEvent[] {
  return [
    pageView({ client: clientId, at: iso(start), url: LANDING }),
    pageView({
      client: clientId,
      at: iso(start + MIN),
      url: 'https://shop.example/products/linen-shirt',
      referrer: LANDING,
    }),
    addToCart({ client: clientId, at: iso(start + 2 * MIN), url: 'https://shop.example/products/linen-shirt' }, 80),
  ];
}

/** An order as the store pushes it: nothing ties it to the browser but the cart attribute. */
function handedOffOrder(id: string, clientId: string | null, createdAt: number): ShopOrder {
  return order({
    id,
    email: `buyer-${id}@example.com`,
    customer: null,
    checkout_token: `token-${id}`,
    landing_site: null,
    referring_site: null,
    created_at: iso(createdAt),
    updated_at: iso(createdAt),
    total_price: '80.00',
    note_attributes: [
      { name: 'gift_wrap', value: 'no' },
      ...(clientId === null ? [] : [{ name: '_oa_client_id', value: clientId }]),
    ],
  });
}

/** attribution-touch allows 20 requests/s per key: poll it every 100 ms, for up to 15 s. */
const POLL = [15_000, 100] as const;

const touches = async (orderId: string) => {
  const res = await request(api.url)
    .post('/v2-4-2/api/order/attribution-touch')
    .set('ApiKey', shop.credentials.api_key)
    .send({ order_ids: [orderId] });
  expect(res.status).toBe(200);
  return res.body.data[0] as { first_touchpoint: { source: string } | null; last_touchpoint: unknown };
};

const NEWSLETTER = (at: number) => ({
  campaign: 'spring',
  channel: 'email',
  source: 'newsletter',
  medium: 'email',
  time: local(at),
});

const personOf = async (clientId: string): Promise<string | null> =>
  (
    await db.query<{ person_id: string }>(
      'test.person',
      'select person_id from clients where store_id = $1 and client_id = $2',
      [shop.store.store_id, clientId],
    )
  )[0]?.person_id ?? null;

describe('an order carrying the cart attribute joins the browser journey', () => {
  it('when the browser events came first: attributed to the visit, journey shows the visit', async () => {
    const clientId = randomUUID();
    const start = NOW - 60 * MIN;
    const events = visit(clientId, start);
    await collect(events);
    await pushOrder(
      api.url,
      shop.credentials.ingest_key,
      db,
      shop.store.store_id,
      handedOffOrder('7001', clientId, start + 10 * MIN),
    );

    const touch = await waitFor(
      () => touches('7001'),
      (t) => t.first_touchpoint?.source === 'newsletter',
      ...POLL,
    );
    expect(touch).toEqual({
      order_id: '7001',
      first_touchpoint: NEWSLETTER(start),
      last_touchpoint: NEWSLETTER(start),
    });
    expect(await personOf('order:7001')).toBe(await personOf(clientId));

    const journey = await request(api.url)
      .post('/v2-4-2/api/order/event')
      .set('ApiKey', shop.credentials.api_key)
      .send({ order_id: '7001', page: 1, page_size: 20 });
    expect(journey.status).toBe(200);
    expect(
      (journey.body.data.events as Array<{ event_type: string; event_at: string }>).map((e) => [
        e.event_type,
        e.event_at,
      ]),
    ).toEqual([
      ['email', local(start)],
      ['page_viewed', local(start + MIN)],
      ['product_added_to_cart', local(start + 2 * MIN)],
    ]);
  });

  it('when the order came first: the visitor, not seen yet, is joined as its events arrive', async () => {
    const clientId = randomUUID();
    const start = NOW - 50 * MIN;
    await pushOrder(
      api.url,
      shop.credentials.ingest_key,
      db,
      shop.store.store_id,
      handedOffOrder('7002', clientId, start + 10 * MIN),
    );
    // The order alone: its own direct session stands in.
    await waitFor(
      () => touches('7002'),
      (t) => t.first_touchpoint !== null,
      ...POLL,
    );
    expect((await touches('7002')).first_touchpoint?.source).toBe('(direct)');
    const [seen] = await db.query<{ first_seen: string }>(
      'test.first_seen',
      'select first_seen_at::text as first_seen from clients where store_id = $1 and client_id = $2',
      [shop.store.store_id, clientId],
    );
    expect(seen!.first_seen).toBe('infinity');

    await collect(visit(clientId, start));
    const touch = await waitFor(
      () => touches('7002'),
      (t) => t.first_touchpoint?.source === 'newsletter',
      ...POLL,
    );
    expect(touch.last_touchpoint).toEqual(NEWSLETTER(start));
    const [after] = await db.query<{ first_seen: Date }>(
      'test.first_seen',
      'select first_seen_at as first_seen from clients where store_id = $1 and client_id = $2',
      [shop.store.store_id, clientId],
    );
    expect(after!.first_seen.toISOString()).toBe(iso(start));
  });

  it('names nobody with an order pseudo-client as the value, and nothing without the attribute', async () => {
    const clientId = randomUUID();
    const start = NOW - 40 * MIN;
    await collect(visit(clientId, start));
    await pushOrder(
      api.url,
      shop.credentials.ingest_key,
      db,
      shop.store.store_id,
      handedOffOrder('7003', 'order:7001', start + 10 * MIN),
    );
    await pushOrder(
      api.url,
      shop.credentials.ingest_key,
      db,
      shop.store.store_id,
      handedOffOrder('7004', null, start + 11 * MIN),
    );
    for (const id of ['7003', '7004']) {
      const t = await waitFor(
        () => touches(id),
        (x) => x.first_touchpoint !== null,
        ...POLL,
      );
      expect(t.first_touchpoint?.source).toBe('(direct)');
      expect(await personOf(`order:${id}`)).toBe(`order:${id}`);
    }
    // Order 7001 kept its own person: the value could not pull it in.
    expect(await personOf('order:7001')).not.toBe('order:7003');
  });

  it('rejects a malformed cart attribute by name', async () => {
    const bad = { ...handedOffOrder('7005', 'x', NOW), note_attributes: [{ name: '_oa_client_id', value: 42 }] };
    const res = await request(api.url)
      .post('/v2-4-2/api/store/orders')
      .set('X-Ingest-Key', shop.credentials.ingest_key)
      .send([bad]);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('[0].note_attributes[0].value: must be a string, got number');
  });

  it('recomputes identically from the stored links: no drift', async () => {
    const result = await reconcileStore(db, shop.store.store_id);
    expect(result.drift).toEqual([]);
    expect(result.driftCount).toBe(0);
    expect(result.conversions).toBeGreaterThan(0);
  });
});
