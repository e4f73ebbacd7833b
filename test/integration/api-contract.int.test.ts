/**
 * Contract tests of the query API ("Must show" 1): every field name and type of every response
 * against the spec's tables, checked twice from the same data (test/support/spec-fields.ts): over the OpenAPI
 * document the running API serves at GET /openapi.json ($refs resolved), and over live responses of the
 * in-process API, with the real NATS, pipeline and PostgreSQL behind it.
 *
 * Seed (one store in America/New_York, pushed through the ingestion routes with the pipeline running):
 *   visitor V: 4 days ago a google cpc ad (campaign brand, utm_term "running shoes", gclid) and a product view;
 *              3 days ago a klaviyo email; 2 days ago a facebook referral (organic social); yesterday a
 *              google.com referral (organic search); 10 minutes ago a tracking link (created through
 *              link-builder/create, clicked through GET /<code>, creator "jo"), then a collection view, a
 *              search, an add to cart of 25, a cart view, checkout started, payment info and the purchase of
 *              order ORDER_ID for 60.
 *   visitor W: 20 minutes ago lands through the same tracking link (first visit).
 *   ad spend: one google row for campaign brand on V's first day (spend 40, 1000 impressions, 50 clicks,
 *             conversion value 60, with account, campaign, ad set and ad ids).
 *   a customer pushed through /store/customers.
 *
 * Besides the shapes: the empty-string rule for all 25 combinations of 1, 2 and 3 dimensions; the order
 * journey's event_type and kind objects ("null when the event is of another kind", docs/product.md, API conventions); and the few
 * values that follow directly from the seed (worked out in the comments).
 *
 * Rate limits are not under test here: every request uses an API key of its own (extra keys of the store,
 * inserted as the store registry does), so the 5/s limit of get-list never trips.
 */
import request from 'supertest';
import { sampleAdSpendRow, sampleContext, sampleCustomer, sampleEvent } from '../support/samples';
import type { EventName, StorefrontEvent } from '../../contracts/src/events';
import type { Db } from '../../storage/db';
import { digestCredential, generateCredential } from '../../storage/credentials';
import type { RunningApi } from '../../query-api/src/app/api';
import type { RunningPipeline } from '../../pipeline/src/app/daemon';
import { createTestStore, startTestApi, startTestPipeline, testDb, type TestStore, waitFor } from '../support/harness';
import { addToCart, checkoutCompleted, checkoutStarted, pageView, paymentInfo, send } from '../support/journeys';
import {
  AD_FIELDS,
  DIMENSIONS,
  ERROR_ENVELOPE,
  GOALS,
  KIND_OBJECT_FIELDS,
  METRIC_FIELDS,
  MODELS,
  OPERATIONS,
  RATE_LIMITS,
  RECORD_STRING_FIELDS,
  TRACKING_LINK_NUMBERS,
  VERSION,
  checkSchema,
  checkTable,
  checkValue,
  envelope,
  operation,
  resolve,
  urlOf,
  type Field,
  type OpenApiDoc,
  type Operation,
  type Schema,
} from '../support/spec-fields';

const SHORT_LINK_HOST = 'go.test'; // what startTestApi configures
const TZ = 'America/New_York';
const MIN = 60_000;
const DAY = 86_400_000;

let db: Db;
let api: RunningApi;
let pipeline: RunningPipeline;
let shop: TestStore;
let doc: OpenApiDoc;

// ---------------------------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------------------------

/** Extra API keys of a store, inserted the way the store registry inserts one (digest only). */
async function newApiKeys(storeId: string, n: number): Promise<string[]> {
  const keys = Array.from({ length: n }, () => generateCredential('api_key'));
  await db.query(
    'test.api_keys',
    `insert into credentials (store_id, kind, digest) select $1, 'api_key', d from unnest($2::bytea[]) as d`,
    [storeId, keys.map(digestCredential)],
  );
  return keys;
}

let keyPool: string[] = [];
/** A key of the seeded store that has not been used yet. */
async function freshKey(): Promise<string> {
  if (keyPool.length === 0) keyPool = await newApiKeys(shop.store.store_id, 50);
  return keyPool.pop()!;
}

async function call(name: string, body: unknown): Promise<request.Response> {
  return request(api.url)
    .post(urlOf(operation(name)))
    .set('ApiKey', await freshKey())
    .send(body as object);
}

/** `YYYY-MM-DD HH:MM:SS` of an instant in the store's zone, worked out here independently of the API. */
function storeTime(epochMs: number): string {
  const p = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone: TZ,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(new Date(epochMs))
      .map((x) => [x.type, x.value]),
  );
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
}
const storeDay = (epochMs: number): string => storeTime(epochMs).slice(0, 10);

const combinations = <T>(items: readonly T[], k: number): T[][] =>
  k === 0 ? [[]] : items.flatMap((x, i) => combinations(items.slice(i + 1), k - 1).map((rest) => [x, ...rest]));

// ---------------------------------------------------------------------------------------------------------------
// Seed
// ---------------------------------------------------------------------------------------------------------------

const NOW = Date.now();
const RANGE = { start_date: storeDay(NOW - 10 * DAY), end_date: storeDay(NOW + 2 * DAY) };
const ORDER_ID = `ct-${NOW.toString(36)}`;
const GOOGLE_AD =
  'https://shop.example/?utm_source=google&utm_medium=cpc&utm_campaign=brand&utm_term=running+shoes&gclid=ct1';
const EMAIL = 'https://shop.example/sale?utm_source=klaviyo&utm_medium=email&utm_campaign=spring';
const LINK = {
  landing_page: 'https://shop.example/collections/summer',
  campaign: 'summer_collab',
  source: 'partner-blog',
  medium: 'referral',
  creator: 'jo',
};
const AD_ROW = sampleAdSpendRow({
  date: storeDay(NOW - 4 * DAY),
  platform: 'google',
  account_id: '123-456-7890',
  campaign_id: '20001',
  campaign_name: 'Brand - Exact',
  adset_id: '30001',
  adset_name: 'Brand terms',
  ad_id: '40001',
  ad_name: 'Brand RSA',
  source: 'google',
  medium: 'cpc',
  campaign: 'brand',
  spend: 40,
  impressions: 1000,
  clicks: 50,
  conversion_value: 60,
  currency: 'USD',
  updated_at: new Date(NOW).toISOString(),
});

/** A storefront event of any kind with its sample data, for client V at a time, page and referrer. */
function event(name: EventName, id: string, at: number, url: string, referrer = 'https://shop.example/') {
  return sampleEvent(name, {
    id,
    clientId: 'V',
    timestamp: new Date(at).toISOString(),
    context: sampleContext(url, referrer),
  }) as StorefrontEvent;
}

interface Seeded {
  code: string;
  trackingLink: string;
  location: string;
  /** event id → [time, expected event_type] in the order of the journey. */
  journey: Array<{ id: string; at: number; type: string }>;
}
let seeded: Seeded;

async function seed(): Promise<Seeded> {
  const created = await request(api.url)
    .post(urlOf(operation('link-create')))
    .set('ApiKey', await freshKey())
    .send(LINK);
  if (created.status !== 200) throw new Error(`link-builder/create: ${created.status} ${JSON.stringify(created.body)}`);
  const { code, tracking_link: trackingLink } = created.body.data as { code: string; tracking_link: string };

  // Both visitors click the short link (the cookie names the visitor), then land on where it redirects.
  let location = '';
  for (const client of ['V', 'W']) {
    const click = await request(api.url).get(`/${code}`).set('Cookie', `_shopify_y=${client}`).redirects(0);
    if (click.status !== 302) throw new Error(`GET /${code}: ${click.status}`);
    location = click.headers.location!;
  }

  const at = {
    ad: NOW - 4 * DAY,
    email: NOW - 3 * DAY,
    social: NOW - 2 * DAY,
    organic: NOW - 1 * DAY,
    link: NOW - 10 * MIN,
  };
  const p = `ev-${NOW.toString(36)}`;
  const journey: Seeded['journey'] = [
    { id: `${p}-ad`, at: at.ad, type: 'ad' },
    { id: `${p}-product`, at: at.ad + 2 * MIN, type: 'product_viewed' },
    { id: `${p}-email`, at: at.email, type: 'email' },
    { id: `${p}-social`, at: at.social, type: 'social_media' },
    { id: `${p}-organic`, at: at.organic, type: 'organic_search' },
    { id: `${p}-link`, at: at.link, type: 'referral' },
    { id: `${p}-collection`, at: at.link + 1 * MIN, type: 'collection_viewed' },
    { id: `${p}-search`, at: at.link + 2 * MIN, type: 'search_submitted' },
    { id: `${p}-atc`, at: at.link + 3 * MIN, type: 'product_added_to_cart' },
    { id: `${p}-cart`, at: at.link + 4 * MIN, type: 'cart_viewed' },
    { id: `${p}-cos`, at: at.link + 5 * MIN, type: 'checkout_started' },
    { id: `${p}-pay`, at: at.link + 6 * MIN, type: 'payment_info_submitted' },
    { id: `${p}-done`, at: at.link + 7 * MIN, type: 'checkout_completed' },
  ];
  const t = (i: number) => ({ client: 'V', id: journey[i]!.id, at: new Date(journey[i]!.at).toISOString() });
  const token = `tok-${ORDER_ID}`;
  const events: StorefrontEvent[] = [
    pageView({ ...t(0), url: GOOGLE_AD }),
    event('product_viewed', journey[1]!.id, journey[1]!.at, 'https://shop.example/products/organic-cotton-tee'),
    pageView({ ...t(2), url: EMAIL }),
    pageView({ ...t(3), url: 'https://shop.example/blog', referrer: 'https://www.facebook.com/' }),
    pageView({ ...t(4), url: 'https://shop.example/products/tee', referrer: 'https://www.google.com/' }),
    pageView({ ...t(5), url: location }),
    event('collection_viewed', journey[6]!.id, journey[6]!.at, 'https://shop.example/collections/summer-essentials'),
    event('search_submitted', journey[7]!.id, journey[7]!.at, 'https://shop.example/search?q=tee'),
    addToCart({ ...t(8), url: 'https://shop.example/products/organic-cotton-tee' }, 25),
    event('cart_viewed', journey[9]!.id, journey[9]!.at, 'https://shop.example/cart'),
    checkoutStarted(t(10), token, 60, 'v@example.com'),
    paymentInfo(t(11), token, 60, 'v@example.com'),
    checkoutCompleted(t(12), { orderId: ORDER_ID, token, amount: 60, email: 'v@example.com', firstOrder: true }),
    pageView({ client: 'W', id: `${p}-w`, at: new Date(NOW - 20 * MIN).toISOString(), url: location }),
  ];

  const spend = await request(api.url)
    .post(`/${VERSION}/api/store/ad-spend`)
    .set('X-Ingest-Key', shop.credentials.ingest_key)
    .send([AD_ROW]);
  if (spend.status !== 200) throw new Error(`ad-spend push: ${spend.status} ${JSON.stringify(spend.body)}`);
  const customer = await request(api.url)
    .post(`/${VERSION}/api/store/customers`)
    .set('X-Ingest-Key', shop.credentials.ingest_key)
    .send([sampleCustomer({ id: '8101', email: 'v@example.com' })]);
  if (customer.status !== 200) throw new Error(`customer push: ${customer.status} ${JSON.stringify(customer.body)}`);

  await send(api.url, shop.credentials.ingest_key, db, shop.store.store_id, events);
  const count = (sql: string) => () =>
    db.query<{ n: string }>('test.count', sql, [shop.store.store_id]).then((r) => Number(r[0]!.n));
  await waitFor(count('select count(*) as n from ad_spend_daily where store_id = $1'), (n) => n > 0);
  await waitFor(count('select count(*) as n from link_clicks where store_id = $1'), (n) => n === 2);
  await waitFor(count('select count(*) as n from shop_customers where store_id = $1'), (n) => n === 1);
  return { code, trackingLink, location, journey };
}

beforeAll(async () => {
  db = testDb();
  api = await startTestApi();
  pipeline = await startTestPipeline();
  shop = await createTestStore(db, { timezone: TZ, currency: 'USD' });
  seeded = await seed();
  const res = await request(api.url).get('/openapi.json');
  if (res.status !== 200) throw new Error(`GET /openapi.json: ${res.status}`);
  doc = res.body as OpenApiDoc;
});

afterAll(async () => {
  await pipeline.stop();
  await api.stop();
  await db.close();
});

const obj = (table: Operation['response']): Field => ({ type: 'object', fields: table });

// ---------------------------------------------------------------------------------------------------------------
// The OpenAPI document
// ---------------------------------------------------------------------------------------------------------------

describe('the OpenAPI document served at /openapi.json', () => {
  it('is an OpenAPI 3 document with every operation of the spec', () => {
    expect(String(doc.openapi)).toMatch(/^3\./);
    for (const op of OPERATIONS) expect(doc.paths[op.path]?.[op.method]).toBeDefined();
  });

  const opOf = (op: Operation) => doc.paths[op.path]![op.method]!;
  const jsonSchema = (content: Record<string, { schema?: Schema }> | undefined): Schema | undefined =>
    content?.['application/json']?.schema;

  describe.each(OPERATIONS.map((op) => [op.name, op] as const))('%s', (_name, op) => {
    it('documents the 200 response with every field and type of the spec table', () => {
      const schema = jsonSchema(opOf(op).responses['200']?.content);
      expect(checkSchema(doc, schema, obj(op.response), `${op.name} 200`)).toEqual([]);
    });

    if (op.request) {
      const table = op.request;
      it('documents the request body with the fields, types and limits of the spec', () => {
        const body = opOf(op).requestBody;
        expect(body?.required).toBe(true);
        expect(checkSchema(doc, jsonSchema(body?.content), obj(table), `${op.name} body`)).toEqual([]);
      });
    }

    it('takes the version as a required path parameter and documents its credential', () => {
      const params = opOf(op).parameters ?? [];
      expect(params.find((p) => p.name === 'version')).toMatchObject({ in: 'path', required: true });
      const schemes = (opOf(op).security ?? []).flatMap((s) => Object.keys(s));
      const defined = schemes.map((s) => doc.components.securitySchemes?.[s]);
      expect(defined).toContainEqual(
        expect.objectContaining(
          op.auth === 'ApiKey' ? { type: 'apiKey', in: 'header', name: 'ApiKey' } : { type: 'http', scheme: 'bearer' },
        ),
      );
    });

    if (op.auth === 'Bearer') {
      it('documents its errors in Shopify’s {errors} shape (docs/product.md, API conventions)', () => {
        const errors = Object.entries(opOf(op).responses).filter(([s]) => !s.startsWith('2'));
        expect(errors.map(([s]) => s)).toEqual(expect.arrayContaining(['400', '401']));
        for (const [, r] of errors)
          expect(resolve(doc, jsonSchema(r.content) ?? {}).properties).toHaveProperty('errors');
      });
    }

    if (op.auth === 'ApiKey') {
      it('documents 400, 401 (and 429 when rate limited) with the error envelope', () => {
        const responses = opOf(op).responses;
        const documented = Object.keys(responses);
        const expected = ['400', '401', ...(op.name in RATE_LIMITS ? ['429'] : [])];
        expect(expected.filter((s) => !documented.includes(s))).toEqual([]);
        const problems = documented
          .filter((s) => !s.startsWith('2'))
          .flatMap((s) => checkSchema(doc, jsonSchema(responses[s]!.content), obj(ERROR_ENVELOPE), `${op.name} ${s}`));
        expect(problems).toEqual([]);
      });
    }
  });

  it('documents the customer listing query parameters (spec operation 6)', () => {
    const params = doc.paths[operation('customers').path]!.get!.parameters ?? [];
    const param = (name: string) => resolve(doc, params.find((p) => p.name === name && p.in === 'query')?.schema ?? {});
    for (const name of ['since_id', 'limit']) expect(param(name).type).toBe('integer');
    for (const name of ['created_at_min', 'created_at_max', 'updated_at_min', 'updated_at_max'])
      expect(param(name).type).toBe('string');
  });
});

describe('the checkers generated from the tables', () => {
  // Guards against a vacuous contract check: each kind of drift is reported by name.
  it('report a missing, extra, retyped or null member of a live value', () => {
    const record = Object.fromEntries([
      ...RECORD_STRING_FIELDS.map((f) => [f, ''] as const),
      ...METRIC_FIELDS.map((f) => [f, 0] as const),
    ]);
    const table = (operation('get-list').response.data as { fields: Operation['response'] }).fields;
    const recordField = (table.records as { items: Field }).items;
    expect(checkValue(record, recordField)).toEqual([]);
    const { campaign: _c, ...missing } = record;
    expect(checkValue(missing, recordField)).toEqual(['$.campaign: missing']);
    expect(checkValue({ ...record, extra: 1 }, recordField)).toEqual(['$.extra: not in the spec']);
    expect(checkValue({ ...record, spend: '1' }, recordField)).toEqual(['$.spend: expected number, got string "1"']);
    expect(checkValue({ ...record, channel: null }, recordField)).toEqual(['$.channel: got null']);
    expect(checkValue({ total: 1.5, page_size: 1, records: [] }, { type: 'object', fields: table })).toEqual([
      '$.total: expected integer, got number',
    ]);
    expect(checkValue('2026-01-05T10:00:00Z', { type: 'string', format: 'local-datetime' })).toHaveLength(1);
  });

  it('report an undocumented, retyped or optional member of the OpenAPI schema', () => {
    const mutated = JSON.parse(JSON.stringify(doc)) as OpenApiDoc;
    const rec = mutated.components.schemas.AttributionRecord!;
    const props = rec.properties!;
    delete props.landing_page;
    props.spend = { type: 'string' };
    rec.required = (rec.required ?? []).filter((k) => k !== 'roas');
    const op = operation('get-list');
    const schema = mutated.paths[op.path]!.post!.responses['200']!.content!['application/json']!.schema;
    const problems = checkSchema(mutated, schema, obj(op.response));
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/records\[\]\.landing_page: not documented$/),
        expect.stringMatching(/records\[\]\.spend: type string, the spec says number$/),
        expect.stringMatching(/records\[\]\.roas: not required/),
      ]),
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Live responses
// ---------------------------------------------------------------------------------------------------------------

/** Problems of a live 200 response of an operation against its table (status and envelope included). */
function liveProblems(op: Operation, res: request.Response): string[] {
  const status = res.status === 200 ? [] : [`HTTP ${res.status}: ${JSON.stringify(res.body)}`];
  const code = op.auth === 'ApiKey' && res.body?.code !== 1 ? [`$.code: ${JSON.stringify(res.body?.code)}, not 1`] : [];
  return [...status, ...code, ...checkTable(res.body, op.response, '$', { shortLinkHost: SHORT_LINK_HOST })];
}

const listBody = (dimensions: readonly string[], model = 'linear', goal = 'purchase') => ({
  ...RANGE,
  dimensions,
  model,
  goal,
  page: 1,
  page_size: 100,
});

interface Rec {
  [k: string]: string | number;
}

describe('live get-list and get-list-sum', () => {
  it.each(MODELS.flatMap((m) => GOALS.map((g) => [m, g] as const)))(
    'get-list (%s, %s) has every field of the attribution record with its type',
    async (model, goal) => {
      const res = await call('get-list', listBody(['campaign', 'channel', 'source'], model, goal));
      expect(liveProblems(operation('get-list'), res)).toEqual([]);
      expect(res.body.data.records.length).toBeGreaterThan(0);
      expect(res.body.data.total).toBe(res.body.data.records.length);
      expect(res.body.data.page_size).toBe(100);
    },
  );

  it.each(MODELS.flatMap((m) => GOALS.map((g) => [m, g] as const)))(
    'get-list-sum (%s, %s) has the fourteen numbers and no dimension field',
    async (model, goal) => {
      const { page: _p, page_size: _s, ...body } = listBody(['source'], model, goal);
      const res = await call('get-list-sum', body);
      expect(liveProblems(operation('get-list-sum'), res)).toEqual([]);
      expect(Object.keys((res.body.data ?? {}) as Rec).sort()).toEqual([...METRIC_FIELDS].sort());
    },
  );

  const combos = [1, 2, 3].flatMap((k) => combinations(DIMENSIONS, k));
  it.each(combos.map((c) => [c.join(', '), c] as const))(
    'dimensions [%s]: the requested ones are filled, the others are "" in every record',
    async (_label, dims) => {
      const res = await call('get-list', listBody(dims));
      expect(liveProblems(operation('get-list'), res)).toEqual([]);
      const records = res.body.data.records as Rec[];
      expect(records.length).toBeGreaterThan(0);
      const notRequested = DIMENSIONS.filter((d) => !dims.includes(d));
      const violations = records.flatMap((r, i) =>
        notRequested.filter((d) => r[d] !== '').map((d) => `records[${i}].${d} = ${JSON.stringify(r[d])}`),
      );
      expect(violations).toEqual([]);
      // Each requested dimension is filled in some record (the seed has a value for each).
      for (const d of dims) expect(records.some((r) => typeof r[d] === 'string' && r[d] !== '')).toBe(true);
      // platform is a member of every record and, not being a get-list dimension, always "".
      for (const r of records) expect(r.platform).toBe('');
      // One record per combination of the requested dimensions.
      const keys = records.map((r) => JSON.stringify(dims.map((d) => r[d])));
      expect(new Set(keys).size).toBe(keys.length);
    },
  );

  it('the seed adds up as worked out by hand', async () => {
    // One purchase of 60 (the only conversion of goal purchase): conversions sum to 1 under every model.
    // Spend of the seed: 40, 1000 impressions, 50 clicks, ad conversion value 60.
    for (const model of MODELS) {
      const { page: _p, page_size: _s, ...body } = listBody(['source'], model, 'purchase');
      const sum = (await call('get-list-sum', body)).body.data as Rec;
      expect(sum).toMatchObject({
        conversions: 1,
        conversion_value: 60,
        spend: 40,
        impressions: 1000,
        clicks: 50,
        ad_conversion_value: 60,
      });
    }
    // Linear over the five touches (ad, email, social, organic, link): 0.2 each.
    const list = (await call('get-list', listBody(['source', 'medium']))).body.data.records as Rec[];
    const conv = Object.fromEntries(list.map((r) => [`${r.source}/${r.medium}`, r.conversions]));
    expect(conv).toEqual({
      'google/cpc': 0.2,
      'klaviyo/email': 0.2,
      'facebook/social': 0.2,
      'google/organic': 0.2,
      'partner-blog/referral': 0.2,
    });
    const paid = list.find((r) => r.source === 'google' && r.medium === 'cpc')!;
    expect(paid).toMatchObject({ platform: '', spend: 40, impressions: 1000, clicks: 50 });
  });
});

describe('live order/event', () => {
  const journey = async (page = 1, page_size = 100) => call('order-event', { order_id: ORDER_ID, page, page_size });

  it('has every field of the order journey and of each event item with its type', async () => {
    const res = await journey();
    expect(liveProblems(operation('order-event'), res)).toEqual([]);
    expect(res.body.data).toMatchObject({
      order_id: ORDER_ID,
      shop_currency: 'USD',
      total: seeded.journey.length,
      page: 1,
      page_size: 100,
    });
  });

  it('pages with the documented defaults (page 1, page_size 20) and page 2 of 5', async () => {
    const def = await call('order-event', { order_id: ORDER_ID });
    expect(liveProblems(operation('order-event'), def)).toEqual([]);
    expect(def.body.data).toMatchObject({ page: 1, page_size: 20, total: seeded.journey.length });
    const p2 = await journey(2, 5);
    expect(liveProblems(operation('order-event'), p2)).toEqual([]);
    const ids = (p2.body.data.events as Rec[]).map((e) => e.event_id);
    expect(ids).toEqual(seeded.journey.slice(5, 10).map((e) => e.id));
  });

  it('gives each event its event_type, the matching object filled and every other one null', async () => {
    const events = (await journey()).body.data.events as Array<Record<string, unknown>>;
    expect(events.map((e) => e.event_id)).toEqual(seeded.journey.map((e) => e.id));
    // The kind object of each kind name (docs/product.md, API conventions); landing events fill ad, email, social_media or organic_search.
    const objectOf: Record<string, string | null> = {
      ad: 'ad',
      email: 'email',
      social_media: 'social_media',
      organic_search: 'organic_search',
      referral: null,
      direct: null,
      page_viewed: null,
      product_viewed: 'products',
      collection_viewed: 'products',
      product_added_to_cart: 'products',
      cart_viewed: 'cart_viewed',
      search_submitted: 'search_submitted',
      checkout_started: 'checkout_started',
      payment_info_submitted: 'payment_info_submitted',
      checkout_completed: 'checkout_completed',
    };
    const problems: string[] = [];
    for (const [i, e] of events.entries()) {
      const want = seeded.journey[i]!;
      if (e.event_type !== want.type)
        problems.push(`${want.id}: event_type ${String(e.event_type)}, want ${want.type}`);
      const filled = objectOf[want.type] ?? null;
      for (const k of ['ad', ...KIND_OBJECT_FIELDS]) {
        const isNull = e[k] === null;
        if (k === filled && isNull) problems.push(`${want.id}: ${k} is null, want an object`);
        if (k !== filled && !isNull) problems.push(`${want.id}: ${k} is ${JSON.stringify(e[k])}, want null`);
      }
      if (e.event_at !== storeTime(want.at)) problems.push(`${want.id}: event_at ${String(e.event_at)}`);
    }
    expect(problems).toEqual([]);
  });

  it('fills the ad object of the paid landing from the ad spend row, every member a string', async () => {
    const events = (await journey()).body.data.events as Array<Record<string, unknown>>;
    const ad = events[0]!.ad as Record<string, unknown>;
    expect(Object.keys(ad).sort()).toEqual([...AD_FIELDS].sort());
    expect(ad).toMatchObject({
      account_id: AD_ROW.account_id,
      campaign_id: AD_ROW.campaign_id,
      campaign_name: AD_ROW.campaign_name,
      set_id: AD_ROW.adset_id,
      set_name: AD_ROW.adset_name,
      ad_id: AD_ROW.ad_id,
      ad_name: AD_ROW.ad_name,
      ad_platform: 'google',
      keyword: 'running shoes',
    });
    expect(events[0]).toMatchObject({
      event_campaign: 'brand',
      event_source: 'google',
      event_medium: 'cpc',
      event_page_url: GOOGLE_AD,
      event_page_ip: '203.0.113.7',
    });
    // The link landing names the creator of the tracking link.
    expect(events[5]!.creator).not.toBeNull();
  });
});

describe('live order/attribution-touch', () => {
  it('has order_id and the first and last touchpoints with every field; unknown ids get null touchpoints', async () => {
    const res = await call('attribution-touch', { order_ids: [ORDER_ID, 'no-such-order'] });
    expect(liveProblems(operation('attribution-touch'), res)).toEqual([]);
    const [known, unknown] = res.body.data as Array<Record<string, unknown>>;
    expect(unknown).toEqual({ order_id: 'no-such-order', first_touchpoint: null, last_touchpoint: null });
    expect(known).toEqual({
      order_id: ORDER_ID,
      first_touchpoint: {
        campaign: 'brand',
        channel: 'paid_search',
        source: 'google',
        medium: 'cpc',
        time: storeTime(seeded.journey[0]!.at),
      },
      last_touchpoint: {
        campaign: LINK.campaign,
        channel: 'referral',
        source: LINK.source,
        medium: LINK.medium,
        time: storeTime(seeded.journey[5]!.at),
      },
    });
  });
});

describe('live tracking links', () => {
  it('link-builder/create answers the envelope with a short link on the short-link host', async () => {
    const res = await call('link-create', { ...LINK, campaign: 'second' });
    expect(liveProblems(operation('link-create'), res)).toEqual([]);
    expect(res.body.data.tracking_link).toMatch(new RegExp(`^https://${SHORT_LINK_HOST.replace('.', '\\.')}/\\w+$`));
  });

  it('GET /<code> answers 302 with the utm parameters and ab_lnk added; an unknown code is 404', async () => {
    const url = new URL(seeded.location);
    expect(`${url.origin}${url.pathname}`).toBe(LINK.landing_page);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      utm_source: LINK.source,
      utm_medium: LINK.medium,
      utm_campaign: LINK.campaign,
      ab_lnk: seeded.code,
    });
    expect(seeded.trackingLink).toBe(`https://${SHORT_LINK_HOST}/${seeded.code}`);
    const unknown = await request(api.url).get('/Zz9Zz9Zz9').redirects(0);
    expect(unknown.status).toBe(404);
    expect(checkTable(unknown.body, ERROR_ENVELOPE)).toEqual([]);
    expect(unknown.body).toMatchObject({ code: 404, message: expect.stringMatching(/^code: /), data: null });
  });

  it('link-builder-analysis/list has every field of the tracking-link record with its type', async () => {
    const res = await call('link-analysis', { ...RANGE, page: 1, page_size: 100 });
    expect(liveProblems(operation('link-analysis'), res)).toEqual([]);
    const records = res.body.data.records as Rec[];
    const rec = records.find((r) => r.tracking_link === seeded.trackingLink);
    expect(rec).toBeDefined();
    expect(Object.keys(rec!).sort()).toEqual(
      ['tracking_link', 'campaign', 'source', 'medium', 'landing_page', 'created_at', ...TRACKING_LINK_NUMBERS].sort(),
    );
    // Two clicks (V, W); two visitors with a session from the link, W new; under last touch the link has V's
    // purchase (60) and add to cart (25); one collection view and one search in V's link session.
    expect(rec).toMatchObject({
      campaign: LINK.campaign,
      source: LINK.source,
      medium: LINK.medium,
      landing_page: LINK.landing_page,
      clicks: 2,
      total_users: 2,
      new_users: 1,
      purchase: 1,
      purchase_conversion_value: 60,
      add_to_cart: 1,
      add_to_cart_conversion_value: 25,
      collection_view: 1,
      search_submit: 1,
    });
  });
});

describe('live customers and errors', () => {
  it('the customer listing has every customer and address field of the spec with its type', async () => {
    const res = await request(api.url)
      .get(urlOf(operation('customers')))
      .set('Authorization', `Bearer ${shop.credentials.access_token}`);
    expect(res.status).toBe(200);
    expect(checkTable(res.body, operation('customers').response)).toEqual([]);
    expect(res.body.customers).toHaveLength(1);
  });

  it('an error answers the error envelope {code: <status>, message: "<field>: ...", data: null}', async () => {
    const res = await call('get-list', { ...listBody(['source']), page_size: 0 });
    expect(res.status).toBe(400);
    expect(checkTable(res.body, ERROR_ENVELOPE)).toEqual([]);
    expect(res.body).toEqual({ code: 400, message: expect.stringMatching(/^page_size: \S/), data: null });
  });

  it('every success envelope is {code: 1, message: "success", data}', async () => {
    const res = await call('get-list', listBody(['channel']));
    expect(checkTable(res.body, envelope({ type: 'any' }))).toEqual([]);
    expect(res.body).toMatchObject({ code: 1, message: 'success' });
  });

  it('string fields of records are strings and platform is "" (not a get-list dimension)', async () => {
    const records = (await call('get-list', listBody(['campaign']))).body.data.records as Rec[];
    for (const r of records) for (const f of RECORD_STRING_FIELDS) expect(typeof r[f]).toBe('string');
    expect(records.find((r) => r.campaign === 'brand')?.platform).toBe('');
  });
});
