/**
 * The clients a batch records (docs/decisions.md, Storage, "Two batches in flight wait for each other's locks only
 * where they must"): a new client is inserted, an earlier sighting lowers `first_seen_at`, and a client already
 * stored as first seen no later than the batch is left as it is, without a row lock that a concurrent batch of the
 * store would wait for.
 */
import type { Db, Query } from '../../storage/db';
import { recordIdentity } from '../../pipeline/src/adapters/pg-identity';
import type { EventFact } from '../../pipeline/src/domain/facts';
import { ms, page, pageView } from '../support/fact-builders';
import { createTestStore, testDb } from '../support/harness';

let db: Db;
beforeAll(() => {
  db = testDb();
});
afterAll(() => db.close());

/** A page view of `clientId` at an ISO instant. */
const sighting = (clientId: string, at: string): EventFact =>
  pageView(`${clientId}-${at}`, ms(at), page('/'), '', clientId);

const record = (q: Query, storeId: string, events: EventFact[]) =>
  recordIdentity(q, [{ storeId, batch: { events, orders: [], handoffs: [] } }]);

const firstSeen = async (storeId: string): Promise<Record<string, string>> => {
  const rows = await db.query<{ client_id: string; first: Date }>(
    'test.clients',
    'select client_id, first_seen_at as first from clients where store_id = $1 order by client_id',
    [storeId],
  );
  return Object.fromEntries(rows.map((r) => [r.client_id, r.first.toISOString()]));
};

it('inserts new clients, lowers an earlier sighting, and leaves a later one without locking its row', async () => {
  const storeId = (await createTestStore(db)).store.store_id;
  await db.transaction('test.seed', (tx) =>
    record(tx, storeId, [
      sighting('kept', '2026-03-02T10:00:00.000Z'),
      sighting('lowered', '2026-03-02T10:00:00.000Z'),
    ]),
  );

  // A batch sights `kept` later and `lowered` earlier, and holds its transaction open while another session
  // takes each row's lock without waiting.
  const locked: Record<string, string> = {};
  await db.transaction('test.batch', async (tx) => {
    await record(tx, storeId, [
      sighting('kept', '2026-03-03T10:00:00.000Z'),
      sighting('lowered', '2026-03-01T10:00:00.000Z'),
      sighting('new', '2026-03-03T10:00:00.000Z'),
    ]);
    for (const client of ['kept', 'lowered'])
      await db.transaction('test.other', async (other) => {
        await other('test.timeout', "set local lock_timeout = '50ms'");
        locked[client] = await other(
          'test.lock',
          'select client_id from clients where store_id = $1 and client_id = $2 for update',
          [storeId, client],
        ).then(
          () => 'free',
          (err: Error & { code?: string }) => (err.code === '55P03' ? 'locked' : `failed: ${err.message}`),
        );
      });
  });
  expect(locked).toEqual({ kept: 'free', lowered: 'locked' });
  expect(await firstSeen(storeId)).toEqual({
    kept: '2026-03-02T10:00:00.000Z',
    lowered: '2026-03-01T10:00:00.000Z',
    new: '2026-03-03T10:00:00.000Z',
  });
});
