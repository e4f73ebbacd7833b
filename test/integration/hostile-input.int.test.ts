/**
 * Hostile input and a database outage, measured from outside (docs/decisions.md, Ingestion and Credentials):
 * - nesting 100,000 deep, 100,000-character ids, unpaired surrogates, out-of-range and infinite numbers and
 *   far dates get a 400 naming the field (or a clamped answer), never a 5xx;
 * - a fast-check property posts near-valid items with such values injected at random places to every
 *   route: no 5xx, and every item the API accepted (event, order, product, customer, ad spend row) is stored
 *   by the pipeline under its id, none dead-lettered;
 * - while PostgreSQL is down, a known key still ingests (JetStream holds the events) and an unverifiable key
 *   gets 503 with Retry-After and no internal detail, never 401.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import request from 'supertest';
import { connect } from '@nats-io/transport-node';
import { EVENT_NAMES, type EventName, type EventOf } from '../../contracts/src/events';
import { validateEvent } from '../../contracts/src/validation/event';
import {
  validateAdSpendRow,
  validateCustomer,
  validateOrder,
  validateProduct,
} from '../../contracts/src/validation/pushes';
import { sampleAdSpendRow, sampleCustomer, sampleEvent, sampleOrder, sampleProduct } from '../support/samples';
import type { Db } from '../../storage/db';
import type { RunningApi } from '../../query-api/src/app/api';
import type { RunningPipeline } from '../../pipeline/src/app/daemon';
import {
  createTestStore,
  pacer,
  startTestApi,
  startTestPipeline,
  testDb,
  type TestStore,
  waitFor,
} from '../support/harness';
import { testEnv } from '../support/env';
import { pipelineCaughtUp } from '../support/stream';
import { startPostgresOnly, stopPostgresOnly } from '../support/local-services';

const V = '/v2-4-2/api';
let db: Db;
let api: RunningApi;
let pipeline: RunningPipeline;
let shop: TestStore;

beforeAll(async () => {
  db = testDb();
  api = await startTestApi();
  pipeline = await startTestPipeline();
  shop = await createTestStore(db, { timezone: 'America/New_York' });
});
afterAll(async () => {
  await pipeline.stop();
  await api.stop();
  await db.close();
});

const now = () => new Date().toISOString();
function event<N extends EventName = 'page_viewed'>(name?: N): EventOf<N> {
  return sampleEvent((name ?? 'page_viewed') as N, {
    id: `h-${randomUUID()}`,
    clientId: `hc-${randomUUID()}`,
    timestamp: now(),
  });
}

const REPORT_BODIES: Record<string, Record<string, unknown>> = {
  'all-attribution/get-list': {
    start_date: '2026-01-01',
    end_date: '2026-02-01',
    dimensions: ['source'],
    model: 'last',
    goal: 'purchase',
    page: 1,
    page_size: 10,
  },
  'all-attribution/get-list-sum': {
    start_date: '2026-01-01',
    end_date: '2026-02-01',
    dimensions: ['source'],
    model: 'last',
    goal: 'purchase',
  },
  'order/event': { order_id: '1', page: 1, page_size: 20 },
  'order/attribution-touch': { order_ids: ['1'] },
  'get/link-builder-analysis/list': { start_date: '2026-01-01', end_date: '2026-02-01', page: 1, page_size: 20 },
  'link-builder/create': { landing_page: 'https://shop.example/p', campaign: 'c', source: 's', medium: 'm' },
};

function send(route: string, body: string, contentType = 'application/json') {
  const r = request(api.url).post(route).set('Content-Type', contentType);
  if (route.startsWith('/collect/')) return r.send(body);
  const ingest = route.includes('/store/') || route.endsWith('/events');
  return ingest
    ? r.set('X-Ingest-Key', shop.credentials.ingest_key).send(body)
    : r.set('ApiKey', shop.credentials.api_key).send(body);
}

const paced = pacer();

describe('regressions found from outside', () => {
  const DEEP = '['.repeat(100_000) + ']'.repeat(100_000);

  it.each([
    ...Object.keys(REPORT_BODIES).map((op) => `${V}/${op}`),
    `${V}/events`,
    `${V}/store/orders`,
    `${V}/store/ad-spend`,
    '/collect/{key}',
  ])('%s: 100,000 nested brackets are a 400 naming the depth limit', async (route) => {
    const target = route.replace('{key}', shop.credentials.ingest_key);
    const res = await paced(route, () =>
      send(target, DEEP, route.startsWith('/collect') ? 'text/plain' : 'application/json'),
    );
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      code: 400,
      message: expect.stringMatching(/: is nested deeper than 32 levels/),
      data: null,
    });
  });

  it('dimensions nested 5,000 deep are a 400 naming dimensions', async () => {
    // Written by hand: JSON.stringify itself cannot serialize such a value.
    const valid = JSON.stringify(REPORT_BODIES['all-attribution/get-list']);
    const body = valid.replace('["source"]', `${'['.repeat(5000)}"source"${']'.repeat(5000)}`);
    const res = await paced('get-list', () => send(`${V}/all-attribution/get-list`, body));
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^dimensions(\[0\])+: is nested deeper than 32 levels$/);
  });

  it.each(['created_at_min', 'created_at_max', 'updated_at_min', 'updated_at_max'])(
    'customers with %s=9999-12-31 23:59:59 in a zone behind UTC answer 200',
    async (param) => {
      const res = await request(api.url)
        .get(`${V}/customers`)
        .query({ [param]: '9999-12-31 23:59:59' })
        .set('Authorization', `Bearer ${shop.credentials.access_token}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ customers: [] });
    },
  );

  it.each(['platform', 'campaign_id', 'account_id', 'adset_id', 'ad_id'])(
    'ad spend with a 100,000-character %s is a 400 naming it (it would not fit a stream header)',
    async (field) => {
      const row = { ...sampleAdSpendRow(), [field]: 'x'.repeat(100_000) };
      const res = await send(`${V}/store/ad-spend`, JSON.stringify([row]));
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(new RegExp(`^\\[0\\]\\.${field}: must be at most 512 characters`));
    },
  );

  it('an unpaired surrogate, a number beyond the bounds or an infinite one is refused by name', async () => {
    const surrogate = {
      ...event(),
      context: { ...event().context, document: { ...event().context.document, title: '\ud800' } },
    };
    const huge = event('product_added_to_cart');
    (huge.data.cartLine.cost.totalAmount as { amount: number }).amount = 9.007199254740992e21;
    const infinite = JSON.stringify(event('product_added_to_cart')).replace(/"amount":[0-9.]+/, '"amount":1e999');
    const body = `[${JSON.stringify(surrogate)},${JSON.stringify(huge)},${infinite},${JSON.stringify(event())}]`;
    const res = await send(`${V}/events`, body);
    expect(res.status).toBe(200);
    expect(res.body.data.accepted).toBe(1);
    expect(res.body.data.rejected).toEqual([
      {
        index: 0,
        errors: [
          {
            field: 'context.document.title',
            message: 'must not contain an unpaired UTF-16 surrogate (\\ud800-\\udfff)',
          },
        ],
      },
      { index: 1, errors: [expect.objectContaining({ field: 'data.cartLine.cost.totalAmount.amount' })] },
      { index: 2, errors: [expect.objectContaining({ field: 'data.cartLine.cost.totalAmount.amount' })] },
    ]);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Property: hostile values at random places of near-valid items
// ---------------------------------------------------------------------------------------------------------

const hostile: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    '\ud800',
    'a\udc00',
    '\u0000',
    'x'.repeat(100_000),
    'é'.repeat(3000),
    '',
    ' Padded@Example.COM ',
    9.007199254740992e21,
    -9.007199254740992e21,
    2 ** 53 + 2,
    1e308,
    -1,
    0.1,
    '9999-12-31T23:59:59Z',
    '0001-01-01T00:00:00Z',
    'gid://shopify/Order/1',
    null,
    true,
    [],
    {},
  ),
  fc.integer({ min: 1, max: 60 }).map((depth) => {
    let v: unknown = 'deep';
    for (let i = 0; i < depth; i++) v = [v];
    return v;
  }),
  fc.string({ unit: 'binary', maxLength: 30 }),
);

/** Every path to a member of a JSON value (objects and arrays included). */
function paths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [];
  if (Array.isArray(value)) value.forEach((v, i) => out.push([...prefix, i], ...paths(v, [...prefix, i])));
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) out.push([...prefix, k], ...paths(v, [...prefix, k]));
  return out;
}

function setAt(value: unknown, at: (string | number)[], to: unknown): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let cur: unknown = copy;
  for (const [i, k] of at.entries()) {
    // An earlier mutation may have replaced a parent with a scalar: nothing left to replace there.
    if (typeof cur !== 'object' || cur === null) return copy;
    if (i === at.length - 1) (cur as Record<string | number, unknown>)[k] = to;
    else cur = (cur as Record<string | number, unknown>)[k];
  }
  return copy;
}

/** A valid item with one to three hostile values injected at random paths. */
function mutated(valid: () => unknown): fc.Arbitrary<unknown> {
  return fc.constant(null).chain(() => {
    const base = valid();
    const all = paths(base);
    return fc
      .array(fc.tuple(fc.nat({ max: all.length - 1 }), hostile), { minLength: 1, maxLength: 3 })
      .map((muts) => muts.reduce((v, [i, h]) => setAt(v, all[i]!, h), base));
  });
}

let n = 0;
const nextId = () => String(1_000_000_000_000 + ++n);
/** The keys of the items the API accepted, by fact table, for the check that the pipeline stored each one. */
const accepted = {
  event_facts: new Set<string>(),
  shop_orders: new Set<string>(),
  shop_products: new Set<string>(),
  shop_customers: new Set<string>(),
  ad_spend: new Set<string>(),
};
type FactTable = keyof typeof accepted;

/** The value the API accepted, as its validator gives it (ids as strings), or an error if it would not. */
function valid<T>(r: { ok: true; value: T } | { ok: false; errors: unknown }): T {
  if (!r.ok) throw new Error(`the API accepted an item its validator refuses: ${JSON.stringify(r.errors)}`);
  return r.value;
}

/** An ad spend row's key as stored: the day, the platform trimmed and lower-cased, the account, campaign, ad set, ad. */
const spendKey = (day: string, platform: string, ...ids: string[]): string =>
  [day, platform.trim().toLowerCase(), ...ids].join('\u0000');

const INGEST_ROUTES: Array<{
  route: string;
  item: () => unknown;
  contentType?: string;
  table: FactTable;
  key: (item: unknown) => string;
}> = [
  {
    route: `${V}/events`,
    item: () => event(EVENT_NAMES[++n % EVENT_NAMES.length]),
    table: 'event_facts',
    key: (item) => valid(validateEvent(item, { now: new Date() })).id,
  },
  {
    route: '/collect/{key}',
    item: () => event('checkout_started'),
    contentType: 'text/plain',
    table: 'event_facts',
    key: (item) =>
      valid(validateEvent(item, { now: new Date(), clientIpFallback: '127.0.0.1', collectDefaults: true })).id,
  },
  {
    route: `${V}/store/orders`,
    item: () => sampleOrder({ id: nextId(), updated_at: now() }),
    table: 'shop_orders',
    key: (item) => valid(validateOrder(item)).id,
  },
  {
    route: `${V}/store/products`,
    item: () => sampleProduct({ id: nextId(), updated_at: now() }),
    table: 'shop_products',
    key: (item) => valid(validateProduct(item)).id,
  },
  {
    route: `${V}/store/customers`,
    item: () => sampleCustomer({ id: nextId(), updated_at: now() }),
    table: 'shop_customers',
    key: (item) => valid(validateCustomer(item)).id,
  },
  {
    route: `${V}/store/ad-spend`,
    item: () => sampleAdSpendRow({ campaign_id: nextId() }),
    table: 'ad_spend',
    key: (item) => {
      const row = valid(validateAdSpendRow(item));
      return spendKey(row.date, row.platform, row.account_id, row.campaign_id, row.adset_id, row.ad_id);
    },
  },
];

/** The keys of `table` stored for the store, in the form of `accepted`. */
async function storedKeys(table: FactTable): Promise<Set<string>> {
  const columns = {
    event_facts: ['event_id'],
    shop_orders: ['order_id'],
    shop_products: ['product_id'],
    shop_customers: ['customer_id'],
    ad_spend: ["to_char(day, 'YYYY-MM-DD')", 'platform', 'account_id', 'campaign_id', 'adset_id', 'ad_id'],
  }[table];
  const rows = await db.query<{ k: string[] }>(
    'test.keys',
    `select array[${columns.join(', ')}] as k from ${table} where store_id = $1`,
    [shop.store.store_id],
  );
  return new Set(rows.map((r) => (table === 'ad_spend' ? spendKey(...(r.k as [string, string])) : r.k[0]!)));
}

describe('fuzz: hostile values injected into near-valid items and bodies', () => {
  it.each(INGEST_ROUTES.map((r) => [r.route, r] as const))(
    '%s: never a 5xx; what is accepted is stored',
    async (_name, { route, item, contentType, table, key }) => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.oneof(mutated(item), fc.constant(null).map(item)), { minLength: 1, maxLength: 4 }),
          async (items) => {
            const target = route.replace('{key}', shop.credentials.ingest_key);
            const res = await send(target, JSON.stringify(items), contentType);
            expect({ status: res.status < 500, code: typeof res.body?.code }).toEqual({ status: true, code: 'number' });
            if (res.status === 200) {
              // What is accepted is stored: its key is checked against the fact table once the pipeline is idle.
              const rejected = new Set((res.body.data.rejected as Array<{ index: number }>).map((r) => r.index));
              expect(res.body.data.accepted).toBe(items.length - rejected.size);
              items.forEach((it, i) => {
                if (!rejected.has(i)) accepted[table].add(key(it));
              });
            } else {
              expect(res.body.message).toMatch(/^\S.*?: \S/s);
            }
          },
        ),
        { numRuns: 40, seed: 20261123 },
      );
    },
  );

  it.each(Object.keys(REPORT_BODIES))('%s: never a 5xx, always the envelope', async (op) => {
    await fc.assert(
      fc.asyncProperty(
        mutated(() => REPORT_BODIES[op]),
        async (body) => {
          const res = await paced(op, () => send(`${V}/${op}`, JSON.stringify(body)));
          expect(res.status).toBeLessThan(500);
          if (res.status !== 200)
            expect(res.body).toEqual({ code: res.status, message: expect.stringMatching(/^\S.*?: \S/s), data: null });
        },
      ),
      { numRuns: 15, seed: 20261123 },
    );
  });

  it('every item the API accepted is stored, by its id, and none is dead-lettered', async () => {
    const nc = await connect({ servers: testEnv.natsUrl });
    try {
      await pipelineCaughtUp(nc);
    } finally {
      await nc.close();
    }
    const dead = await db.query<{ reason: string }>(
      'test.dead',
      'select reason from dead_letters where store_id = $1',
      [shop.store.store_id],
    );
    expect(dead).toEqual([]);
    for (const table of Object.keys(accepted) as FactTable[]) {
      // Every route had items accepted (the unmutated ones at least), so each table has something to check.
      expect({ table, accepted: accepted[table].size > 0 }).toEqual({ table, accepted: true });
      const stored = await storedKeys(table);
      expect({ table, missing: [...accepted[table]].filter((k) => !stored.has(k)) }).toEqual({ table, missing: [] });
    }
  });
});

// ---------------------------------------------------------------------------------------------------------
// PostgreSQL down
// ---------------------------------------------------------------------------------------------------------

describe('while PostgreSQL is down', () => {
  it('a verified key still ingests; an unverifiable one gets 503 with Retry-After, never 401', async () => {
    const other = await createTestStore(db);
    const warm = await send(`${V}/events`, JSON.stringify(event()));
    expect(warm.status).toBe(200);
    const accepted: string[] = [];
    stopPostgresOnly(testEnv.dataDir);
    try {
      const ev = event();
      const during = await send(`${V}/events`, JSON.stringify(ev));
      expect(during.status).toBe(200);
      accepted.push(ev.id);

      const cold = await request(api.url)
        .post(`${V}/events`)
        .set('X-Ingest-Key', other.credentials.ingest_key)
        .send(event());
      const report = await request(api.url)
        .post(`${V}/all-attribution/get-list`)
        .set('ApiKey', other.credentials.api_key)
        .send(REPORT_BODIES['all-attribution/get-list']);
      const warmReport = await paced('get-list', () =>
        send(`${V}/all-attribution/get-list`, JSON.stringify(REPORT_BODIES['all-attribution/get-list'])),
      );
      const customers = await request(api.url)
        .get(`${V}/customers`)
        .set('Authorization', `Bearer ${other.credentials.access_token}`);
      const answers = { cold, report, warmReport, customers };
      for (const [name, res] of Object.entries(answers)) {
        expect({ name, status: res.status }).toEqual({ name, status: 503 });
        expect(res.headers['retry-after']).toMatch(/^\d+$/);
        const message = JSON.stringify(res.body);
        expect(message).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|connect /);
      }
      expect(cold.body).toEqual({ code: 503, message: expect.stringMatching(/^service: /), data: null });
      expect(customers.body).toEqual({ errors: expect.stringMatching(/^service: /) });
    } finally {
      startPostgresOnly(testEnv.dataDir, testEnv.pgPort);
    }
    // What was accepted during the outage is stored once the database is back.
    await waitFor(
      () =>
        db.query('test.outage', 'select 1 from event_facts where store_id = $1 and event_id = any($2::text[])', [
          shop.store.store_id,
          accepted,
        ]),
      (rows) => rows.length === accepted.length,
      60_000,
      250,
    );
  });
});
