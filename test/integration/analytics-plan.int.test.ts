/**
 * The analytics plan runs beside the batch's session and attribution writes on the same transaction
 * (docs/decisions.md, Analytics). Whichever side fails, the batch rolls back with the failure's own error, no
 * promise is left rejected unhandled (Jest fails a test during which one is), and the same batch applied again
 * gives exact views.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { createBatchWriter, type MaintainViews } from '../../pipeline/src/adapters/pg-batch-writer';
import { createViewMaintainer } from '../../pipeline/src/adapters/pg-view-maintainer';
import { reconcileStore } from '../../pipeline/src/operations/reconcile';
import { silentLogger } from '../../runtime/logger';
import type { Db } from '../../storage/db';
import { batchItem, queryThrough } from '../support/batch-items';
import { createTestStore, testDb } from '../support/harness';
import { pageView } from '../support/journeys';

let db: Db;
beforeAll(() => {
  db = testDb();
});
afterAll(() => db.close());

/** The standard maintainer with the statement tagged `tag` replaced by one that fails (division by zero). */
function failingAt(tag: string): MaintainViews {
  const maintain = createViewMaintainer(silentLogger());
  return (tx, facts, afterCommit) =>
    maintain(
      queryThrough(tx, (t, sql, params) => (t === tag ? tx(t, 'select 1 / 0') : tx(t, sql, params))),
      facts,
      afterCommit,
    );
}

it.each([
  ['a session write', 'views.sessions_insert'],
  ['a session read', 'views.sessions_load'],
  ["the plan's read of the stored contributions", 'views.web_person_days_load'],
  ["the plan's last read", 'views.product_person_credits_load'],
])('%s failing rolls the batch back with its own error', async (_what, tag) => {
  const { store } = await createTestStore(db);
  const s = store.store_id;
  // Returning visitors (stored contributions to read) and new ones, in one batch.
  const visit = (client: string, at: string, campaign: string) =>
    batchItem(
      s,
      0,
      'page_viewed',
      pageView({ client, at, url: `https://shop.example/?utm_source=news&utm_campaign=${campaign}` }),
    );
  const writer = createBatchWriter(db, createViewMaintainer(silentLogger()));
  await writer.applyBatch([visit('ap-1', '2026-03-01T10:00:00Z', 'a'), visit('ap-2', '2026-03-01T11:00:00Z', 'a')]);
  const batch = [
    visit('ap-1', '2026-03-02T10:00:00Z', 'b'),
    visit('ap-2', '2026-03-03T10:00:00Z', 'c'),
    visit('ap-3', '2026-03-03T12:00:00Z', 'c'),
  ];

  await expect(createBatchWriter(db, failingAt(tag)).applyBatch(batch)).rejects.toMatchObject({
    code: '22012',
    message: 'division by zero',
  });
  // A turn of the event loop: a rejection left unhandled is reported within this test.
  await nextTurn();
  const stored = await db.query<{ n: number }>(
    'test.event_facts',
    'select count(*)::int as n from event_facts where store_id = $1',
    [s],
  );
  expect(stored[0]!.n).toBe(2);

  // The same batch again, on the same pool: applied in full, the views exact.
  const again = await writer.applyBatch(batch);
  expect(again.stored).toBe(3);
  expect((await reconcileStore(db, s)).drift).toEqual([]);
  const users = await db.query<{ users: number }>(
    'test.web_users',
    `select sum(users)::int as users from web_users
     where store_id = $1 and dims = 0 and prev_day < '2026-03-01'::date`,
    [s],
  );
  expect(users[0]!.users).toBe(3);
});
