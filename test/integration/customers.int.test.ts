/**
 * Customer listing (docs/product.md, API conventions): `GET /v2-4-2/api/customers` with
 * `Authorization: Bearer <access token>`, against the in-process API and the real PostgreSQL.
 *
 * Covers: every field of the spec's Customer and Address with its type (nullable members present as null,
 * Shopify's defaults for a minimal push, timestamps in the store's offset); since_id paging ascending by
 * numeric id across 3 pages by following the `Link` header (filters carried, ids above 2^53 paged exactly);
 * limit default 50, max 250, 251 / 0 / non-integer → 400 naming `limit`; date filters in store time
 * (America/New_York), inclusive, and min after max → 400; bad since_id / page_info / date → 400 naming the
 * parameter, in Shopify's `{"errors": ...}` body; missing, wrong, other-kind and revoked tokens → 401; another
 * store's token never sees this store's customers; the 11th request within a second → 429 with Retry-After;
 * and one customer pushed through the ingestion route and the pipeline shows up in the listing.
 *
 * Customers are inserted into `shop_customers` directly (as the validated push, which is what the pipeline
 * stores) except in the last test. Each test uses stores of its own so the per-token rate limit of
 * 10 requests/s never trips outside the rate-limit test.
 */
import { isLosslessNumber, parse as parseLossless } from 'lossless-json';
import request from 'supertest';
import type { Customer } from '../../contracts/src/customers';
import type { ShopCustomerInput } from '../../contracts/src/pushes';
import { validateCustomer } from '../../contracts/src/validation';
import { sampleCustomer } from '../support/samples';
import type { Db } from '../../storage/db';
import { revokeCredential, rotateCredential } from '../../storage/store-registry';
import type { RunningApi } from '../../query-api/src/app/api';
import {
  changeHeardByApi,
  createTestStore,
  startTestApi,
  startTestPipeline,
  testDb,
  type TestStore,
  waitFor,
} from '../support/harness';

let db: Db;
let api: RunningApi;

beforeAll(async () => {
  db = testDb();
  api = await startTestApi();
});

afterAll(async () => {
  await api.stop();
  await db.close();
});

const PATH = '/v2-4-2/api/customers';

/** Stores customers the way the pipeline does: the validated push as payload, keyed by its string id. */
async function insertCustomers(shop: TestStore, inputs: ShopCustomerInput[]): Promise<void> {
  const payloads = inputs.map((input) => {
    const r = validateCustomer(input);
    if (!r.ok) throw new Error(`invalid test customer: ${JSON.stringify(r.errors)}`);
    return r.value;
  });
  await db.query(
    'test.customers.insert',
    `insert into shop_customers (store_id, customer_id, updated_at, stream_seq, payload)
     select $1::text, * from unnest($2::text[], $3::timestamptz[], $4::bigint[], $5::jsonb[])`,
    [
      shop.store.store_id,
      payloads.map((p) => p.id),
      payloads.map((p) => p.updated_at),
      payloads.map((_, i) => i + 1),
      payloads.map((p) => JSON.stringify(p)),
    ],
  );
}

const minimalCustomer = (id: string | number, extra: Partial<ShopCustomerInput> = {}): ShopCustomerInput => ({
  id,
  created_at: '2026-01-05T12:00:00Z',
  updated_at: '2026-01-05T12:00:00Z',
  email: `c${id}@example.com`,
  ...extra,
});

const list = (shop: TestStore | string, query: Record<string, string | number> = {}) =>
  request(api.url)
    .get(PATH)
    .query(query)
    .set('Authorization', `Bearer ${typeof shop === 'string' ? shop : shop.credentials.access_token}`);

const customersOf = (res: request.Response): Customer[] => (res.body as { customers: Customer[] }).customers;
/** Exact ids (the JSON numbers lose precision above 2^53; admin_graphql_api_id does not). */
const exactIds = (res: request.Response): string[] =>
  customersOf(res).map((c) => c.admin_graphql_api_id!.replace('gid://shopify/Customer/', ''));

/** The URL of `Link: <url>; rel="next"`, or null when there is no such header. */
function nextLink(res: request.Response): URL | null {
  const header = res.headers.link;
  if (header === undefined) return null;
  const m = /^<([^>]+)>; rel="next"$/.exec(header);
  if (!m) throw new Error(`unexpected Link header: ${header}`);
  return new URL(m[1]!);
}

const follow = (shop: TestStore, url: URL) =>
  request(api.url)
    .get(url.pathname + url.search)
    .set('Authorization', `Bearer ${shop.credentials.access_token}`);

const CUSTOMER_KEYS = [
  'id',
  'email',
  'created_at',
  'updated_at',
  'first_name',
  'last_name',
  'orders_count',
  'state',
  'total_spent',
  'last_order_id',
  'last_order_name',
  'note',
  'verified_email',
  'multipass_identifier',
  'tax_exempt',
  'tags',
  'currency',
  'phone',
  'addresses',
  'tax_exemptions',
  'email_marketing_consent',
  'sms_marketing_consent',
  'admin_graphql_api_id',
  'default_address',
].sort();

const ADDRESS_KEYS = [
  'id',
  'customer_id',
  'first_name',
  'last_name',
  'company',
  'address1',
  'address2',
  'city',
  'province',
  'country',
  'zip',
  'phone',
  'name',
  'province_code',
  'country_code',
  'country_name',
  'default',
].sort();

const typeOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?[+-]\d{2}:\d{2}$/;

/** Checks one address against the spec's Address: every member present with its type. */
function expectSpecAddress(a: Record<string, unknown>): void {
  expect(Object.keys(a).sort()).toEqual(ADDRESS_KEYS);
  for (const k of ['id', 'customer_id']) expect(typeOf(a[k])).toBe('number');
  for (const k of ['first_name', 'last_name', 'address1', 'city', 'province', 'country', 'zip', 'name'])
    expect(typeOf(a[k])).toBe('string');
  for (const k of ['province_code', 'country_code', 'country_name']) expect(typeOf(a[k])).toBe('string');
  for (const k of ['company', 'address2', 'phone']) expect(['string', 'null']).toContain(typeOf(a[k]));
  expect(typeOf(a.default)).toBe('boolean');
}

/** Checks one customer against the spec's Customer: every member present with its type. */
function expectSpecCustomer(c: Customer): void {
  const r = c as unknown as Record<string, unknown>;
  expect(Object.keys(r).sort()).toEqual(CUSTOMER_KEYS);
  expect(typeOf(c.id)).toBe('number');
  for (const k of ['email', 'first_name', 'last_name', 'total_spent', 'tags', 'currency', 'admin_graphql_api_id'])
    expect(typeOf(r[k])).toBe('string');
  expect(c.created_at).toMatch(ISO_WITH_OFFSET);
  expect(c.updated_at).toMatch(ISO_WITH_OFFSET);
  expect(typeOf(c.orders_count)).toBe('number');
  expect(['enabled', 'disabled', 'invited', 'declined']).toContain(c.state);
  expect(c.total_spent).toMatch(/^\d+(\.\d+)?$/);
  expect(['number', 'null']).toContain(typeOf(c.last_order_id));
  expect(typeOf(c.verified_email)).toBe('boolean');
  expect(/^[A-Z]{3}$/.test(c.currency)).toBe(true);
  for (const k of ['phone', 'note', 'multipass_identifier', 'last_order_name'])
    expect(['string', 'null']).toContain(typeOf(r[k]));
  expect(typeOf(c.tax_exempt)).toBe('boolean');
  expect(typeOf(c.tax_exemptions)).toBe('array');
  expect(typeOf(c.addresses)).toBe('array');
  for (const a of c.addresses) expectSpecAddress(a as unknown as Record<string, unknown>);
  expectSpecAddress(c.default_address as unknown as Record<string, unknown>);
  expect(Object.keys(c.email_marketing_consent).sort()).toEqual(['consent_updated_at', 'opt_in_level', 'state']);
  expect(typeOf(c.email_marketing_consent.state)).toBe('string');
  expect(typeOf(c.email_marketing_consent.opt_in_level)).toBe('string');
  expect(['string', 'null']).toContain(typeOf(c.email_marketing_consent.consent_updated_at));
  expect(['object', 'null']).toContain(typeOf(c.sms_marketing_consent));
  expect(c.admin_graphql_api_id).toMatch(/^gid:\/\/shopify\/Customer\/\d+$/);
}

describe('GET /v2-4-2/api/customers: fields', () => {
  it('returns every field of the spec with its type, in the store offset, with defaults for what was not pushed', async () => {
    const shop = await createTestStore(db, { timezone: 'Europe/Paris', currency: 'EUR' });
    const full = sampleCustomer({
      id: '1001',
      created_at: '2026-01-02T09:00:00Z',
      updated_at: '2026-07-02T09:00:00.250Z',
      phone: '+33612345678',
      tags: 'vip, wholesale',
      note: 'prefers email',
      sms_marketing_consent: {
        state: 'subscribed',
        opt_in_level: 'single_opt_in',
        consent_updated_at: '2026-01-02T09:00:00Z',
        consent_collected_from: 'SHOPIFY',
      },
    });
    await insertCustomers(shop, [
      full,
      { id: 1002, created_at: '2026-01-03T00:00:00Z', updated_at: '2026-01-03T00:00:00Z' },
    ]);

    const res = await list(shop);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers.link).toBeUndefined();
    expect(Object.keys(res.body as object)).toEqual(['customers']);
    const [first, minimal] = customersOf(res);
    expect(customersOf(res)).toHaveLength(2);
    expectSpecCustomer(first!);
    expectSpecCustomer(minimal!);

    const address = {
      id: 9101234567890,
      customer_id: 7001234567890,
      first_name: 'Jane',
      last_name: 'Doe',
      company: null,
      address1: '1 Main Street',
      address2: null,
      city: 'Springfield',
      province: 'Oregon',
      country: 'United States',
      zip: '97477',
      phone: null,
      name: 'Jane Doe',
      province_code: 'OR',
      country_code: 'US',
      country_name: 'United States',
      default: true,
    };
    expect(first).toEqual({
      id: 1001,
      email: full.email,
      created_at: '2026-01-02T10:00:00+01:00',
      updated_at: '2026-07-02T11:00:00.250+02:00',
      first_name: 'Jane',
      last_name: 'Doe',
      orders_count: 1,
      state: 'enabled',
      total_spent: '68.18',
      last_order_id: Number(full.last_order_id),
      last_order_name: '#1001',
      note: 'prefers email',
      verified_email: true,
      multipass_identifier: null,
      tax_exempt: false,
      tags: 'vip, wholesale',
      currency: 'USD',
      phone: '+33612345678',
      addresses: [address],
      tax_exemptions: [],
      email_marketing_consent: {
        state: 'subscribed',
        opt_in_level: 'single_opt_in',
        consent_updated_at: '2025-01-12T05:31:10+01:00',
      },
      sms_marketing_consent: {
        state: 'subscribed',
        opt_in_level: 'single_opt_in',
        consent_updated_at: '2026-01-02T10:00:00+01:00',
        consent_collected_from: 'SHOPIFY',
      },
      admin_graphql_api_id: 'gid://shopify/Customer/1001',
      default_address: address,
    });

    // Nothing but id and the timestamps pushed: Shopify's defaults, nullable members null, placeholder address.
    expect(minimal).toMatchObject({
      id: 1002,
      email: '',
      created_at: '2026-01-03T01:00:00+01:00',
      first_name: '',
      last_name: '',
      orders_count: 0,
      state: 'disabled',
      total_spent: '0.00',
      last_order_id: null,
      verified_email: false,
      tags: '',
      currency: 'EUR',
      phone: null,
      addresses: [],
      email_marketing_consent: { state: 'not_subscribed', opt_in_level: 'single_opt_in', consent_updated_at: null },
      sms_marketing_consent: null,
      default_address: { id: 0, customer_id: 1002, address1: '', company: null, address2: null, phone: null },
    });
  });
});

describe('GET /v2-4-2/api/customers: ids beyond 2^53', () => {
  it('writes id, last_order_id and the address ids as JSON numbers with every digit', async () => {
    const shop = await createTestStore(db);
    // Shopify-sized ids above 2^53: as doubles they would read ...504, ...992 and ...992.
    await insertCustomers(shop, [
      minimalCustomer('9007199254740993', {
        last_order_id: '820982911946154508',
        addresses: [{ id: '9007199254740995', customer_id: '9007199254740993', default: true }],
      }),
    ]);
    const res = await list(shop);
    expect(res.status).toBe(200);
    // Parsed the way a client that keeps big integers does: every id exactly, and as a number.
    const body = parseLossless(res.text) as { customers: Array<Record<string, unknown>> };
    const [c] = body.customers;
    const digits = (v: unknown): string => {
      if (!isLosslessNumber(v)) throw new Error(`not a JSON number: ${JSON.stringify(v)}`);
      return v.toString();
    };
    const address = (c!.addresses as Array<Record<string, unknown>>)[0]!;
    const fallback = c!.default_address as Record<string, unknown>;
    expect([c!.id, c!.last_order_id, address.id, address.customer_id, fallback.id].map(digits)).toEqual([
      '9007199254740993',
      '820982911946154508',
      '9007199254740995',
      '9007199254740993',
      '9007199254740995',
    ]);
    expect(digits(c!.orders_count)).toBe('0');
  });
});

describe('GET /v2-4-2/api/customers: paging', () => {
  it('pages ascending by numeric id with since_id and a Link header across 3 pages, carrying the filters', async () => {
    const shop = await createTestStore(db);
    // Text order differs from numeric order; two ids are above 2^53 (not exact as JSON numbers).
    const ids = ['10000', '5', '9223372036854775807', '300', '2000', '40', '9007199254740993'];
    await insertCustomers(shop, [
      ...ids.map((id) => minimalCustomer(id)),
      minimalCustomer('7', { created_at: '2019-12-31T23:59:59Z' }),
    ]);
    const filter = { created_at_min: '2020-01-01 00:00:00' };

    const page1 = await list(shop, { limit: 3, ...filter });
    expect(page1.status).toBe(200);
    expect(exactIds(page1)).toEqual(['5', '40', '300']);
    expect(customersOf(page1).map((c) => c.id)).toEqual([5, 40, 300]);
    const link1 = nextLink(page1)!;
    expect(link1.origin).toBe(api.url);
    expect(link1.pathname).toBe(PATH);
    expect(Object.fromEntries(link1.searchParams)).toEqual({ limit: '3', since_id: '300', ...filter });
    expect(page1.headers.link).toBe(
      `<${api.url}${PATH}?limit=3&since_id=300&created_at_min=2020-01-01+00%3A00%3A00>; rel="next"`,
    );

    const page2 = await follow(shop, link1);
    expect(page2.status).toBe(200);
    expect(exactIds(page2)).toEqual(['2000', '10000', '9007199254740993']);
    // The JSON number itself keeps every digit.
    expect(page2.text).toContain('"id":9007199254740993,');
    const link2 = nextLink(page2)!;
    expect(link2.searchParams.get('since_id')).toBe('9007199254740993');

    const page3 = await follow(shop, link2);
    expect(page3.status).toBe(200);
    expect(exactIds(page3)).toEqual(['9223372036854775807']);
    expect(nextLink(page3)).toBeNull();

    // since_id given by hand works the same, exactly above 2^53.
    const bySince = await list(shop, { since_id: '9007199254740992', ...filter });
    expect(exactIds(bySince)).toEqual(['9007199254740993', '9223372036854775807']);
  });

  it('uses limit 50 by default, allows 250, and rejects 251, 0 and non-integers naming limit', async () => {
    const shop = await createTestStore(db);
    await insertCustomers(
      shop,
      Array.from({ length: 251 }, (_, i) => minimalCustomer(i + 1)),
    );

    const byDefault = await list(shop);
    expect(byDefault.status).toBe(200);
    expect(customersOf(byDefault).map((c) => c.id)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(Object.fromEntries(nextLink(byDefault)!.searchParams)).toEqual({ limit: '50', since_id: '50' });

    const max = await list(shop, { limit: 250 });
    expect(max.status).toBe(200);
    expect(customersOf(max)).toHaveLength(250);
    expect(nextLink(max)!.searchParams.get('since_id')).toBe('250');

    const last = await list(shop, { limit: 250, since_id: 250 });
    expect(customersOf(last).map((c) => c.id)).toEqual([251]);
    expect(last.headers.link).toBeUndefined();

    for (const limit of ['251', '0', 'abc', '2.5', '1e2']) {
      const res = await list(shop, { limit });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ errors: 'limit: must be an integer from 1 to 250' });
    }
  });
});

describe('GET /v2-4-2/api/customers: filters and bad parameters', () => {
  it('filters on creation and update time given in the store time zone, bounds inclusive', async () => {
    const shop = await createTestStore(db, { timezone: 'America/New_York' });
    await insertCustomers(shop, [
      // 2026-03-01 23:30:00 in New York (already March 2 in UTC).
      minimalCustomer(1, { created_at: '2026-03-02T04:30:00Z', updated_at: '2026-03-05T12:00:00Z' }),
      // 2026-03-02 00:30:00 in New York.
      minimalCustomer(2, { created_at: '2026-03-02T05:30:00Z', updated_at: '2026-03-02T05:30:00Z' }),
      // 2026-02-28 23:59:59 in New York.
      minimalCustomer(3, { created_at: '2026-03-01T04:59:59Z', updated_at: '2026-03-10T00:00:00Z' }),
    ]);
    const ids = async (query: Record<string, string>): Promise<number[]> => {
      const res = await list(shop, query);
      expect(res.status).toBe(200);
      return customersOf(res).map((c) => c.id);
    };

    expect(await ids({ created_at_min: '2026-03-01 00:00:00', created_at_max: '2026-03-01 23:59:59' })).toEqual([1]);
    expect(await ids({ created_at_min: '2026-03-01 23:30:00' })).toEqual([1, 2]);
    expect(await ids({ created_at_max: '2026-03-01 23:29:59' })).toEqual([3]);
    expect(await ids({ updated_at_min: '2026-03-05 07:00:00' })).toEqual([1, 3]);
    expect(await ids({ updated_at_max: '2026-03-05 06:59:59' })).toEqual([2]);
    // A Shopify client's ISO 8601 timestamp with an offset is that instant.
    expect(await ids({ created_at_min: '2026-03-02T04:30:00Z', created_at_max: '2026-03-01T23:30:00-05:00' })).toEqual([
      1,
    ]);

    const res = await list(shop, { created_at_min: '2026-03-01 00:00:00', created_at_max: '2026-03-01 23:59:59' });
    expect(customersOf(res)[0]!.created_at).toBe('2026-03-01T23:30:00-05:00');
  });

  it('rejects a bad since_id, page_info and bad dates with 400 naming the parameter', async () => {
    const shop = await createTestStore(db);
    await insertCustomers(shop, [minimalCustomer(1)]);
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ since_id: 'abc' }, /^since_id: must be an integer of at least 0$/],
      [{ since_id: '-1' }, /^since_id: must be an integer of at least 0$/],
      [{ since_id: '1.5' }, /^since_id: must be an integer of at least 0$/],
      [{ page_info: 'eyJsYXN0X2lkIjo0fQ' }, /^page_info: is not supported; page with since_id/],
      [
        { created_at_min: '2026-13-01 00:00:00' },
        /^created_at_min: must be a date-time YYYY-MM-DD HH:MM:SS in the store time zone \(UTC\)/,
      ],
      [{ updated_at_max: 'yesterday' }, /^updated_at_max: must be a date-time/],
      [
        { created_at_min: '2026-03-02 00:00:00', created_at_max: '2026-03-01 00:00:00' },
        /^created_at_min: is after created_at_max$/,
      ],
    ];
    for (const [query, message] of cases) {
      const res = await list(shop, query);
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
      expect(Object.keys(res.body as object)).toEqual(['errors']);
      expect((res.body as { errors: string }).errors).toMatch(message);
    }
    // A since_id beyond every id (and beyond 64 bits) is an empty page, not an error.
    const beyond = await list(shop, { since_id: '99999999999999999999999' });
    expect(beyond.status).toBe(200);
    expect(beyond.body).toEqual({ customers: [] });
  });
});

describe('GET /v2-4-2/api/customers: credentials and tenancy', () => {
  it('answers 401 in Shopify shape for a missing, wrong, other-kind or revoked token', async () => {
    const shop = await createTestStore(db);
    await insertCustomers(shop, [minimalCustomer(1)]);

    const missing = await request(api.url).get(PATH);
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ errors: 'Authorization: header is missing' });

    const notBearer = await request(api.url).get(PATH).set('Authorization', shop.credentials.access_token);
    expect(notBearer.status).toBe(401);
    expect(Object.keys(notBearer.body as object)).toEqual(['errors']);

    for (const token of ['at_not-a-real-token', shop.credentials.api_key, shop.credentials.ingest_key]) {
      const res = await list(token);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ errors: 'Authorization: unknown or revoked credential' });
    }

    const rotated = await changeHeardByApi(api, () => rotateCredential(db, shop.store.store_id, 'access_token'));
    expect((await list(shop)).status).toBe(401);
    expect(customersOf(await list(rotated)).map((c) => c.id)).toEqual([1]);
    await changeHeardByApi(api, () => revokeCredential(db, shop.store.store_id, 'access_token'));
    const revoked = await list(rotated);
    expect(revoked.status).toBe(401);
    expect(revoked.body).toEqual({ errors: 'Authorization: unknown or revoked credential' });
  });

  it("never shows another store's customers, even with the same customer id", async () => {
    const shopA = await createTestStore(db);
    const shopB = await createTestStore(db);
    await insertCustomers(shopA, [minimalCustomer(100, { email: 'a@example.com' }), minimalCustomer(101)]);
    await insertCustomers(shopB, [minimalCustomer(100, { email: 'b@example.com' })]);

    const a = await list(shopA);
    expect(customersOf(a).map((c) => [c.id, c.email])).toEqual([
      [100, 'a@example.com'],
      [101, 'c101@example.com'],
    ]);
    const b = await list(shopB);
    expect(customersOf(b).map((c) => [c.id, c.email])).toEqual([[100, 'b@example.com']]);
    const empty = await list((await createTestStore(db)).credentials.access_token);
    expect(empty.body).toEqual({ customers: [] });
  });

  it('answers the 11th request within a second with 429 and Retry-After', async () => {
    const shop = await createTestStore(db);
    await insertCustomers(shop, [minimalCustomer(1)]);
    // Start at the beginning of a one-second window so the 11 requests share it.
    await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 10));
    for (let i = 1; i <= 10; i++) expect((await list(shop)).status).toBe(200);
    const limited = await list(shop);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited.body).toEqual({ errors: 'Authorization: rate limit of 10 requests per second exceeded' });
    // The limit is per token: another store's token is not affected.
    expect((await list((await createTestStore(db)).credentials.access_token)).status).toBe(200);
  });

  it('answers an unknown API version with 404 in Shopify shape', async () => {
    const shop = await createTestStore(db);
    const res = await request(api.url)
      .get('/v1/api/customers')
      .set('Authorization', `Bearer ${shop.credentials.access_token}`);
    expect(res.status).toBe(404);
    expect(Object.keys(res.body as object)).toEqual(['errors']);
  });
});

describe('GET /v2-4-2/api/customers: end to end', () => {
  it('lists a customer pushed through the ingestion route once the pipeline stored it', async () => {
    const pipeline = await startTestPipeline();
    try {
      const shop = await createTestStore(db, { timezone: 'Asia/Tokyo', currency: 'JPY' });
      const pushed = sampleCustomer({ id: '7001234567890', currency: undefined, updated_at: '2026-02-01T00:00:00Z' });
      const res = await request(api.url)
        .post('/v2-4-2/api/store/customers')
        .set('X-Ingest-Key', shop.credentials.ingest_key)
        .send([{ ...pushed, id: 7001234567890 }]);
      expect(res.status).toBe(200);
      await waitFor(
        () =>
          db.query('test.customers.count', 'select count(*)::int as n from shop_customers where store_id = $1', [
            shop.store.store_id,
          ]),
        (rows) => (rows[0] as { n: number }).n === 1,
      );

      const listed = await list(shop);
      expect(listed.status).toBe(200);
      const [c] = customersOf(listed);
      expectSpecCustomer(c!);
      expect(c).toMatchObject({
        id: 7001234567890,
        currency: 'JPY',
        updated_at: '2026-02-01T09:00:00+09:00',
        admin_graphql_api_id: 'gid://shopify/Customer/7001234567890',
      });
    } finally {
      await pipeline.stop();
    }
  });
});
