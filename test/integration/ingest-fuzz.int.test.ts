/**
 * What the API accepts, the pipeline stores (docs/decisions.md, Ingestion): seeded generated items (valid
 * samples with odd values put in: extreme numbers, edge dates and offsets, non-ASCII and long strings, hostile
 * URL parameters, deep nesting) go through every ingestion route to a real API and pipeline. Every item the API
 * accepted must be stored (event facts; order, product, customer and ad-spend rows) and nothing dead-lettered.
 * A few concrete regressions that such runs found are pinned below.
 */
import fc from 'fast-check';
import request from 'supertest';
import { connect } from '@nats-io/transport-node';
import type { Db } from '../../storage/db';
import type { RunningApi } from '../../query-api/src/app/api';
import type { RunningPipeline } from '../../pipeline/src/app/daemon';
import { createTestStore, startTestApi, startTestPipeline, testDb, type TestStore } from '../support/harness';
import { testEnv } from '../support/env';
import { pipelineCaughtUp } from '../support/stream';
import { INGEST_ROUTES, ingestItem, type IngestRoute } from '../support/ingest-arbitraries';
import { sampleAdSpendRow, sampleEvent, sampleOrder } from '../support/samples';

const V = '/v2-4-2/api';
const PATHS: Record<IngestRoute, string> = {
  events: `${V}/events`,
  collect: '/collect/{key}',
  orders: `${V}/store/orders`,
  products: `${V}/store/products`,
  customers: `${V}/store/customers`,
  'ad-spend': `${V}/store/ad-spend`,
};
/** Items per route and per request: a few hundred in all, well under a minute on a busy machine. */
const ITEMS_PER_ROUTE = 120;
const BATCH = 40;

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

function post(shop: TestStore, route: IngestRoute, items: unknown[]) {
  const target = PATHS[route].replace('{key}', shop.credentials.ingest_key);
  const r = request(api.url).post(target);
  if (route === 'collect') return r.set('Content-Type', 'text/plain').send(JSON.stringify(items));
  return r
    .set('Content-Type', 'application/json')
    .set('X-Ingest-Key', shop.credentials.ingest_key)
    .send(JSON.stringify(items));
}

/** Waits until the pipeline has committed every message of the stream (it acknowledges after the commit). */
async function pipelineDrained(): Promise<void> {
  const nc = await connect({ servers: testEnv.natsUrl });
  try {
    await pipelineCaughtUp(nc);
  } finally {
    await nc.close();
  }
}

async function deadLetters(shop: TestStore): Promise<string[]> {
  const rows = await db.query<{ reason: string }>('test.dead', 'select reason from dead_letters where store_id = $1', [
    shop.store.store_id,
  ]);
  return rows.map((r) => r.reason);
}

const str = (v: unknown): string => String(v);

/** The key under which an accepted item is stored, and the query that lists the stored keys among some. */
const STORED: Record<IngestRoute, { key: (item: Record<string, unknown>) => string; sql: string }> = {
  events: {
    key: (e) => str(e.id),
    sql: 'select event_id as k from event_facts where store_id = $1 and event_id = any($2)',
  },
  collect: {
    key: (e) => str(e.id),
    sql: 'select event_id as k from event_facts where store_id = $1 and event_id = any($2)',
  },
  orders: {
    key: (o) => str(o.id),
    // The push itself and the order fact it derives.
    sql: `select s.order_id as k from shop_orders s join order_facts f using (store_id, order_id)
          where s.store_id = $1 and s.order_id = any($2)`,
  },
  products: {
    key: (p) => str(p.id),
    sql: 'select product_id as k from shop_products where store_id = $1 and product_id = any($2)',
  },
  customers: {
    key: (c) => str(c.id),
    sql: 'select customer_id as k from shop_customers where store_id = $1 and customer_id = any($2)',
  },
  'ad-spend': {
    key: (r) => [r.account_id, r.campaign_id, r.adset_id, r.ad_id].map(str).join('|'),
    sql: `select concat_ws('|', account_id, campaign_id, adset_id, ad_id) as k from ad_spend
          where store_id = $1 and concat_ws('|', account_id, campaign_id, adset_id, ad_id) = any($2)`,
  },
};

describe('fuzz: every item an ingestion route accepts is stored', () => {
  it('a few hundred generated items through the six routes: all accepted ones stored, none dead-lettered', async () => {
    // Far from UTC, so that store-local days of edge times are exercised too.
    const shop = await createTestStore(db, { timezone: 'Pacific/Kiritimati' });
    let counter = 0;
    const next = () => ++counter;
    const now = () => new Date().toISOString();
    const accepted = new Map<IngestRoute, Set<string>>();
    let rejectedCount = 0;

    for (const [r, route] of INGEST_ROUTES.entries()) {
      const items = fc.sample(ingestItem(route, next, now), {
        seed: Number(process.env.FUZZ_SEED ?? 20261124) + r,
        numRuns: ITEMS_PER_ROUTE,
      });
      const keys = new Set<string>();
      for (let start = 0; start < items.length; start += BATCH) {
        const batch = items.slice(start, start + BATCH);
        const res = await post(shop, route, batch);
        expect({ route, status: res.status, body: res.status >= 500 ? res.body : null }).toEqual({
          route,
          status: res.status === 200 ? 200 : 400,
          body: null,
        });
        const rejected = new Set<number>(
          res.status === 200 ? (res.body.data.rejected as Array<{ index: number }>).map((x) => x.index) : batch.keys(),
        );
        rejectedCount += rejected.size;
        batch.forEach((item, i) => {
          if (!rejected.has(i)) keys.add(STORED[route].key(item as Record<string, unknown>));
        });
      }
      accepted.set(route, keys);
    }
    // The generators must exercise both outcomes, or the test proves nothing.
    expect(rejectedCount).toBeGreaterThan(0);
    expect([...accepted.values()].every((keys) => keys.size > 0)).toBe(true);

    await pipelineDrained();
    expect(await deadLetters(shop)).toEqual([]);
    for (const route of INGEST_ROUTES) {
      const keys = [...accepted.get(route)!];
      const rows = await db.query<{ k: string }>(`test.stored.${route}`, STORED[route].sql, [
        shop.store.store_id,
        keys,
      ]);
      const stored = new Set(rows.map((row) => row.k));
      expect({ route, missing: keys.filter((k) => !stored.has(k)) }).toEqual({ route, missing: [] });
    }
  });
});

describe('regressions the fuzzing found', () => {
  let shop: TestStore;
  beforeAll(async () => {
    shop = await createTestStore(db, { timezone: 'Pacific/Kiritimati' });
  });
  const id = () => `rg-${Math.random().toString(36).slice(2)}`;

  it.each([
    ['year 0000', '0000-06-01T00:00:00Z', 'must lie between 1000-01-01 and 8999-12-31 (UTC)'],
    [
      'year 0001 at +14:00, year 0000 in UTC',
      '0001-01-01T00:00:00+14:00',
      'must lie between 1000-01-01 and 8999-12-31 (UTC)',
    ],
    ['an offset of 16 hours or more', '2025-01-12T04:30:54+23:59', 'must have a UTC offset below 16 hours'],
  ])('an event time with %s is a 400 naming timestamp, not a dead letter', async (_what, timestamp, message) => {
    const event = sampleEvent('page_viewed', { id: id(), clientId: id(), timestamp });
    const res = await post(shop, 'events', [event]);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(`[0].timestamp: ${message}, got ${JSON.stringify(timestamp)}`);
  });

  it('an order updated in 9999 at -14:00 (year 10000 in UTC) is a 400 naming updated_at', async () => {
    const order = sampleOrder({ id: '7100000000001', updated_at: '9999-12-31T23:59:59-14:00' });
    const res = await post(shop, 'orders', [order]);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^\[0\]\.updated_at: must lie between 1000-01-01 and 8999-12-31 \(UTC\)/);
  });

  it('ad spend on 0000-01-01 is a 400 naming date', async () => {
    const res = await post(shop, 'ad-spend', [sampleAdSpendRow({ date: '0000-01-01', campaign_id: id() })]);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^\[0\]\.date: must lie between 1000-01-01 and 8999-12-31/);
  });

  it('ad-spend ids of 200 CJK characters (600 bytes each) are a 400 naming the field, not an index overflow', async () => {
    const wide = '中文字'.repeat(67).slice(0, 200);
    const row = sampleAdSpendRow({ account_id: wide, campaign_id: wide, adset_id: wide, ad_id: wide, platform: wide });
    const res = await post(shop, 'ad-spend', [row]);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^\[0\]\.platform: must be at most 512 bytes in UTF-8/);
  });

  it('a line feed in an event id or a push key is stored, not a 503 (the id goes in a NATS header)', async () => {
    const eventId = `${id()}\nX-Injected: 1`;
    const events = await post(shop, 'events', [sampleEvent('page_viewed', { id: eventId, clientId: id() })]);
    expect(events.status).toBe(200);
    const campaignId = `${id()}\r\n\t`;
    const spend = await post(shop, 'ad-spend', [sampleAdSpendRow({ campaign_id: campaignId })]);
    expect(spend.status).toBe(200);
    await pipelineDrained();
    const stored = await db.query<{ n: string }>(
      'test.lf',
      `select (select count(*) from event_facts where store_id = $1 and event_id = $2)
            + (select count(*) from ad_spend where store_id = $1 and campaign_id = $3) as n`,
      [shop.store.store_id, eventId, campaignId],
    );
    expect(Number(stored[0]!.n)).toBe(2);
    expect(await deadLetters(shop)).toEqual([]);
  });

  it('an event whose UTM values carry 900 CJK characters (2,700 bytes) is stored: its touchpoint keys fit an index entry', async () => {
    const wide = (n: number, seed: number) =>
      Array.from({ length: n }, (_, i) => String.fromCharCode(0x4e00 + ((i * 7919 + seed) % 20000))).join('');
    const params = new URLSearchParams({
      utm_source: wide(400, 1),
      utm_medium: wide(100, 2),
      utm_campaign: wide(400, 3),
    });
    const event = sampleEvent('page_viewed', { id: id(), clientId: id(), timestamp: new Date().toISOString() });
    event.context.document.location.href = `https://shop.example/landing?${params}`;
    const res = await post(shop, 'events', [event]);
    expect(res.status).toBe(200);
    await pipelineDrained();
    expect(await deadLetters(shop)).toEqual([]);
    const stored = await db.query('test.wide', 'select 1 from event_facts where store_id = $1 and event_id = $2', [
      shop.store.store_id,
      event.id,
    ]);
    expect(stored).toHaveLength(1);
  });
});
