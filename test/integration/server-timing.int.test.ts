/**
 * `API_SERVER_TIMING=true` (docs/operations.md, Metrics): each JSON answer says how long the API took and how
 * much of that its statements took, counted per request even when requests overlap.
 */
import request from 'supertest';
import type { RunningApi } from '../../query-api/src/app/api';
import { parseServerTiming } from '../../query-api/src/app/request-timing';
import type { Db } from '../../storage/db';
import {
  createTestStore,
  credentialChangesListening,
  startTestApi,
  testDb,
  type TestStore,
  waitFor,
} from '../support/harness';

let db: Db;
let timed: RunningApi;
let plain: RunningApi;
let shop: TestStore;

beforeAll(async () => {
  db = testDb();
  [timed, plain] = await Promise.all([startTestApi({ API_SERVER_TIMING: 'true' }), startTestApi()]);
  shop = await createTestStore(db);
});

afterAll(async () => {
  await Promise.all([timed.stop(), plain.stop()]);
  await db.close();
});

const REPORT = {
  start_date: '2026-01-01',
  end_date: '2026-02-01',
  dimensions: ['channel'],
  model: 'last',
  goal: 'purchase',
};
const sum = (api: RunningApi) =>
  request(api.url)
    .post('/v2-4-2/api/all-attribution/get-list-sum')
    .set({ ApiKey: shop.credentials.api_key })
    .send(REPORT);
const sumWith = (key: string) =>
  request(timed.url).post('/v2-4-2/api/all-attribution/get-list-sum').set({ ApiKey: key }).send(REPORT);

it('times a report and its statements', async () => {
  const res = await sum(timed);
  expect(res.status).toBe(200);
  const t = parseServerTiming(res.headers['server-timing']);
  expect(t.db).toBeGreaterThan(0);
  expect(t.app).toBeGreaterThanOrEqual(t.db!);
});

it('counts each statement against its own request when requests overlap', async () => {
  await waitFor(
    () => credentialChangesListening(timed),
    (v) => v === 1,
  );
  expect((await sum(timed)).status).toBe(200); // the API key is now verified and kept
  // The dashboard key is not: its lookup waits on the lock below for a second, while two reports with the kept
  // API key run beside it.
  const { slow, fast } = await db.transaction('test.hold_credentials', async (tx) => {
    await tx('test.lock', 'lock table credentials in access exclusive mode');
    const slow = sumWith(shop.credentials.dashboard_key).then((r) => r);
    // Asked on another connection: within a transaction, pg_stat_activity stays as it was first read.
    await waitFor(
      () =>
        db.query<{ n: number }>(
          'test.waiting',
          `select count(*)::int as n from pg_stat_activity
           where wait_event_type = 'Lock' and query like '%credential.lookup%'`,
        ),
      (rows) => rows[0]!.n === 1,
    );
    const fast = await Promise.all([sum(timed), sum(timed)]);
    await tx('test.hold', 'select pg_sleep(1)');
    return { slow, fast };
  });
  const timing = (r: request.Response) => parseServerTiming(r.headers['server-timing']);
  const held = await slow;
  expect(held.status).toBe(200);
  expect(timing(held).db).toBeGreaterThanOrEqual(1000);
  for (const r of fast) {
    expect(r.status).toBe(200);
    expect(timing(r).db).toBeLessThan(1000);
    expect(timing(r).db).toBeLessThanOrEqual(timing(r).app!);
  }
});

it('times errors too, and is off by default', async () => {
  const refused = await request(timed.url)
    .post('/v2-4-2/api/all-attribution/get-list-sum')
    .set({ ApiKey: 'ak_unknown' })
    .send(REPORT);
  expect(refused.status).toBe(401);
  expect(parseServerTiming(refused.headers['server-timing'] as string).app).toBeGreaterThan(0);
  const res = await sum(plain);
  expect(res.status).toBe(200);
  expect(res.headers['server-timing']).toBeUndefined();
});
