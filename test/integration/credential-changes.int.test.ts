/**
 * Verified credentials kept in the API (docs/decisions.md, Credentials and tenancy): while the API listens for
 * the database's announcements of credential and store changes, a verified key is served from memory; an
 * announced change (a revocation, a rotation, a settings change, made by another process as the CLI makes
 * them) makes it ask again; while it does not listen, every request asks the database.
 */
import request from 'supertest';
import type { RunningApi } from '../../query-api/src/app/api';
import type { Db } from '../../storage/db';
import { revokeCredential, updateStoreSettings } from '../../storage/store-registry';
import { migrate } from '../../infra/migrate';
import { createDb } from '../../storage/db';
import { createStore } from '../../storage/store-registry';
import {
  changeHeardByApi,
  credentialChangesListening,
  createTestStore,
  startTestApi,
  testDb,
  waitFor,
  withFreshDatabase,
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

/** An authenticated call that reads only tables of the first migrations (the old schema below has no newer ones). */
const goalsOf = (a: RunningApi, key: string) =>
  request(a.url).post('/v2-4-2/api/get/setting-goals').set({ ApiKey: key }).send({});
const goals = (key: string) => goalsOf(api, key);

/** How many credential lookups an API has sent to the database. */
async function lookupsOf(a: RunningApi): Promise<number> {
  const metric = await a.ctx.metrics.dbQuery.get();
  return metric.values
    .filter((v) => v.metricName === 'api_db_query_duration_seconds_count' && v.labels.tag === 'credential.lookup')
    .reduce((sum, v) => sum + v.value, 0);
}
const lookups = () => lookupsOf(api);

const listening = () => credentialChangesListening(api);

it('serves a verified key from memory, and asks again once a change is announced', async () => {
  const shop = await createTestStore(db);
  const key = shop.credentials.api_key;
  await waitFor(listening, (v) => v === 1);
  expect((await goals(key)).status).toBe(200);
  const afterFirst = await lookups();
  for (let i = 0; i < 3; i++) expect((await goals(key)).status).toBe(200);
  expect(await lookups()).toBe(afterFirst);

  // A settings change, as the CLI makes it: the next request reads the store again.
  await changeHeardByApi(api, () => updateStoreSettings(db, shop.store.store_id, { lookbackDays: 7 }));
  const changed = await goals(key);
  expect(changed.body.data.goals[0].lookback_days).toBe(7);
  expect(await lookups()).toBe(afterFirst + 1);

  await changeHeardByApi(api, () => revokeCredential(db, shop.store.store_id, 'api_key'));
  const refused = await goals(key);
  expect(refused.status).toBe(401);
  expect(refused.body.message).toMatch(/^ApiKey: unknown or revoked credential/);
});

/** Cuts the API's listening connection, as a database restart or a network fault would. */
async function cutListener(): Promise<void> {
  const [row] = await db.query<{ n: number }>(
    'test.cut_listener',
    `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
     where application_name = 'query-api-credential-changes'`,
  );
  expect(row?.n).toBeGreaterThanOrEqual(1);
}

it('asks the database on every request while it is not listening', async () => {
  // Slow to listen again, so that the test sees it deaf.
  const deaf = await startTestApi({ API_CREDENTIAL_LISTEN_RETRY_MS: '600000' });
  try {
    const shop = await createTestStore(db);
    const key = shop.credentials.api_key;
    const heard = () => credentialChangesListening(deaf);
    await waitFor(heard, (v) => v === 1);
    expect((await goalsOf(deaf, key)).status).toBe(200);
    await cutListener();
    await waitFor(heard, (v) => v === 0);
    const before = await lookupsOf(deaf);
    expect((await goalsOf(deaf, key)).status).toBe(200);
    expect((await goalsOf(deaf, key)).status).toBe(200);
    expect(await lookupsOf(deaf)).toBe(before + 2);
    // A revocation it cannot hear of is refused at once all the same.
    await revokeCredential(db, shop.store.store_id, 'api_key');
    expect((await goalsOf(deaf, key)).status).toBe(401);
  } finally {
    await deaf.stop();
  }
});

it('listens again on its own once its connection is back, and keeps verified keys again', async () => {
  const shop = await createTestStore(db);
  const key = shop.credentials.api_key;
  await waitFor(listening, (v) => v === 1);
  await cutListener();
  // Deaf for about a second (API_CREDENTIAL_LISTEN_RETRY_MS), then back.
  await waitFor(listening, (v) => v === 0);
  await waitFor(listening, (v) => v === 1);
  expect((await goals(key)).status).toBe(200);
  const verified = await lookups();
  expect((await goals(key)).status).toBe(200);
  expect(await lookups()).toBe(verified);
});

it('keeps nothing on a database whose migrations do not announce changes yet', async () => {
  await withFreshDatabase('unannounced', async (url) => {
    expect((await migrate(url, 15)).at(-1)).toBe('0015_credit_touches');
    const old = createDb({ connectionString: url, service: 'test' });
    const early = await startTestApi({ DATABASE_URL: url });
    try {
      const shop = await createStore(old, { name: 'early', timezone: 'UTC', currency: 'USD', lookbackDays: 30 });
      const key = shop.credentials.api_key;
      for (let i = 0; i < 3; i++) expect((await goalsOf(early, key)).status).toBe(200);
      expect(await lookupsOf(early)).toBe(3);
      expect(await credentialChangesListening(early)).toBe(0);
      await revokeCredential(old, shop.store.store_id, 'api_key');
      expect((await goalsOf(early, key)).status).toBe(401);
    } finally {
      await early.stop();
      await old.close();
    }
  });
});

it('hears a truncation of the credentials, which names no row', async () => {
  await withFreshDatabase('truncated', async (url) => {
    await migrate(url);
    const own = createDb({ connectionString: url, service: 'test' });
    const fresh = await startTestApi({ DATABASE_URL: url });
    try {
      const shop = await createStore(own, { name: 'gone', timezone: 'UTC', currency: 'USD', lookbackDays: 30 });
      const key = shop.credentials.api_key;
      await waitFor(
        () => credentialChangesListening(fresh),
        (v) => v === 1,
      );
      expect((await goalsOf(fresh, key)).status).toBe(200);
      await changeHeardByApi(fresh, () => own.query('test.truncate', 'truncate credentials'));
      expect((await goalsOf(fresh, key)).status).toBe(401);
    } finally {
      await fresh.stop();
      await own.close();
    }
  });
});
