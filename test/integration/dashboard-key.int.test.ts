/**
 * The read-only dashboard key (docs/product.md, Credentials and tenancy): sent in the `ApiKey` header, it reads
 * every report operation of its store, and a valid one is refused with 403 wherever something would change or
 * customers would be read (link creation, event and store pushes, /collect, the customer listing); an unknown
 * or revoked one is 401. Rotation replaces it as soon as the API hears the database announce it.
 */
import request from 'supertest';
import type { Db } from '../../storage/db';
import type { RunningApi } from '../../query-api/src/app/api';
import { generateCredential } from '../../storage/credentials';
import { revokeCredential, rotateCredential } from '../../storage/store-registry';
import { changeHeardByApi, createTestStore, startTestApi, testDb, type TestStore } from '../support/harness';
import { sampleEvent } from '../support/samples';

let db: Db;
let api: RunningApi;
let shop: TestStore;
let other: TestStore;

const V = '/v2-4-2/api';
const RANGE = { start_date: '2026-01-01', end_date: '2026-02-01' };
const REPORT = { ...RANGE, dimensions: ['channel'], model: 'last', goal: 'purchase' };

beforeAll(async () => {
  db = testDb();
  api = await startTestApi();
  shop = await createTestStore(db);
  other = await createTestStore(db);
});

afterAll(async () => {
  await api.stop();
  await db.close();
});

const post = (path: string, headers: Record<string, string>, body: unknown = {}) =>
  request(api.url)
    .post(path)
    .set(headers)
    .send(body as object);

describe('a dashboard key', () => {
  it('is issued with the store, with its own prefix', () => {
    expect(shop.credentials.dashboard_key).toMatch(/^dk_[\w-]{43}$/);
  });

  it.each([
    ['get-list', `${V}/all-attribution/get-list`, { ...REPORT, page: 1, page_size: 10 }],
    ['get-list-sum', `${V}/all-attribution/get-list-sum`, REPORT],
    ['attribution-touch', `${V}/order/attribution-touch`, { order_ids: ['1'] }],
    ['the link report', `${V}/get/link-builder-analysis/list`, RANGE],
    ['mcp-config', `${V}/get/mcp-config`, {}],
  ])('reads %s', async (_name, path, body) => {
    const res = await post(path, { ApiKey: shop.credentials.dashboard_key }, body);
    expect(res.status).toBe(200);
    expect(res.body.code).toBe(1);
  });

  it('reads an order journey (404 for an order the store does not know, not 401 or 403)', async () => {
    const res = await post(`${V}/order/event`, { ApiKey: shop.credentials.dashboard_key }, { order_id: 'nope' });
    expect(res.status).toBe(404);
  });

  it('cannot create a tracking link: 403 naming the header', async () => {
    const res = await post(
      `${V}/link-builder/create`,
      { ApiKey: shop.credentials.dashboard_key },
      { landing_page: 'https://shop.example/', campaign: 'c', source: 's', medium: 'm' },
    );
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      code: 403,
      message: expect.stringMatching(/^ApiKey: a dashboard key is read-only/),
      data: null,
    });
    const links = await db.query('test.links', 'select 1 from tracking_links where store_id = $1', [
      shop.store.store_id,
    ]);
    expect(links).toHaveLength(0);
  });

  it('cannot push events or store data: 403', async () => {
    const key = shop.credentials.dashboard_key;
    const event = sampleEvent('page_viewed', { id: `dk-${Date.now()}` });
    const events = await post(`${V}/events`, { 'X-Ingest-Key': key }, event);
    expect(events.status).toBe(403);
    expect(events.body.message).toMatch(/^X-Ingest-Key: a dashboard key is read-only/);
    const orders = await post(`${V}/store/orders`, { 'X-Ingest-Key': key }, [{ id: 1 }]);
    expect(orders.status).toBe(403);
    const collect = await request(api.url)
      .post(`/collect/${key}`)
      .set('Content-Type', 'text/plain')
      .send(JSON.stringify(event));
    expect(collect.status).toBe(403);
    const stored = await db.query('test.raw', 'select 1 from raw_events where store_id = $1', [shop.store.store_id]);
    expect(stored).toHaveLength(0);
  });

  it('cannot read customers: 403 in the listing’s own error shape', async () => {
    const res = await request(api.url)
      .get(`${V}/customers`)
      .set('Authorization', `Bearer ${shop.credentials.dashboard_key}`);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ errors: expect.stringMatching(/^Authorization: a dashboard key is read-only/) });
  });

  it('is 401 when unknown, whatever the route', async () => {
    const unknown = generateCredential('dashboard_key');
    expect((await post(`${V}/all-attribution/get-list-sum`, { ApiKey: unknown }, REPORT)).status).toBe(401);
    expect((await post(`${V}/link-builder/create`, { ApiKey: unknown }, {})).status).toBe(401);
    expect((await post(`${V}/events`, { 'X-Ingest-Key': unknown }, {})).status).toBe(401);
    const customers = await request(api.url).get(`${V}/customers`).set('Authorization', `Bearer ${unknown}`);
    expect(customers.status).toBe(401);
  });

  it('reads its own store only', async () => {
    const mine = await post(`${V}/get/link-builder-analysis/list`, { ApiKey: shop.credentials.dashboard_key }, RANGE);
    await post(
      `${V}/link-builder/create`,
      { ApiKey: other.credentials.api_key },
      { landing_page: 'https://other.example/', campaign: 'c', source: 's', medium: 'm' },
    ).expect(200);
    const after = await post(`${V}/get/link-builder-analysis/list`, { ApiKey: shop.credentials.dashboard_key }, RANGE);
    expect(after.body.data.total).toBe(mine.body.data.total);
    const theirs = await post(
      `${V}/get/link-builder-analysis/list`,
      { ApiKey: other.credentials.dashboard_key },
      RANGE,
    );
    expect(theirs.body.data.total).toBe(1);
  });

  it('stops working once the API hears it was rotated or revoked', async () => {
    const store = await createTestStore(db);
    const sum = (key: string) => post(`${V}/all-attribution/get-list-sum`, { ApiKey: key }, REPORT);
    expect((await sum(store.credentials.dashboard_key)).status).toBe(200);
    const fresh = await changeHeardByApi(api, () => rotateCredential(db, store.store.store_id, 'dashboard_key'));
    expect((await sum(store.credentials.dashboard_key)).status).toBe(401);
    expect((await sum(fresh)).status).toBe(200);
    // The API key is another credential: untouched.
    expect((await sum(store.credentials.api_key)).status).toBe(200);
    expect(await changeHeardByApi(api, () => revokeCredential(db, store.store.store_id, 'dashboard_key'))).toBe(1);
    expect((await sum(fresh)).status).toBe(401);
  });
});
