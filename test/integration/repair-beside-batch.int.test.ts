/**
 * The operations that hold every view table from their start, the repair and the re-credit after a new
 * data-driven fit, beside a batch that changes a unit cost (docs/decisions.md, Conversions and goals, "Unit costs
 * are locked like identity keys"): a product push that locked a variant's cost waits for them at the views. They
 * read that cost without a lock; had they taken the shared lock the batch's recomputations take, each would have
 * waited for the other until PostgreSQL aborted one.
 */
import { PUSH_SUBJECT_NAMES } from '../../contracts/src/subjects';
import { silentLogger } from '../../runtime/logger';
import type { Db, Query } from '../../storage/db';
import { createBatchWriter } from '../../pipeline/src/adapters/pg-batch-writer';
import { createViewMaintainer } from '../../pipeline/src/adapters/pg-view-maintainer';
import { reconcileStore } from '../../pipeline/src/operations/reconcile';
import { recreditStore } from '../../pipeline/src/operations/reconcile/recredit';
import { batchItem } from '../support/batch-items';
import { createTestStore, testDb, waitBlockedBy } from '../support/harness';
import { addToCart, pageView } from '../support/journeys';
import { sampleProduct } from '../support/samples';

let db: Db;
beforeAll(() => {
  db = testDb();
});
afterAll(() => db.close());

/**
 * A store with a shopper's add-to-cart of the tee at no known cost, and a product push (the tee's cost) to start
 * from inside an operation that holds the views: it locks the variant in its facts step and then waits for them at
 * its first view write. `order` says which of the two finished first.
 */
async function costChangeBesideViewsHolder() {
  const { store } = await createTestStore(db);
  const s = store.store_id;
  const shopper = { client: 'repair-cost-shopper' };
  const writer = createBatchWriter(db, createViewMaintainer(silentLogger()));
  await writer.applyBatch([
    batchItem(s, 5, 'page_viewed', pageView({ ...shopper, at: '2026-03-02T10:00:00Z' })),
    batchItem(s, 5, 'product_added_to_cart', addToCart({ ...shopper, at: '2026-03-02T10:01:00Z' }, 25)),
  ]);
  const cogs = async () =>
    (
      await db.query<{ cogs: string }>(
        'test.cogs',
        `select cogs_micros::text as cogs from conversions where store_id = $1 and goal = 'add_to_cart'`,
        [s],
      )
    ).map((r) => r.cogs);
  expect(await cogs()).toEqual(['0']);

  const order: string[] = [];
  let pushed: Promise<void> | undefined;
  /** Starts the push from the holder's transaction `q` and returns once it waits for the holder's locks. */
  const pushHeldAtTheViews = async (q: Query): Promise<void> => {
    const pid = (await q<{ pid: number }>('test.pid', 'select pg_backend_pid() as pid'))[0]!.pid;
    pushed = writer
      .applyBatch([batchItem(s, 4, PUSH_SUBJECT_NAMES.products, sampleProduct())])
      .then(() => void order.push('push'));
    pushed.catch(() => undefined); // awaited by `pushDone`
    await waitBlockedBy(db, pid);
  };
  const pushDone = async (): Promise<void> => {
    await pushed;
  };
  return { storeId: s, cogs, order, pushHeldAtTheViews, pushDone };
}

it('a repair and a batch changing a unit cost it reads both commit, the batch after the repair', async () => {
  const t = await costChangeBesideViewsHolder();
  const repaired = await reconcileStore(db, t.storeId, { repair: true, beforeRepair: t.pushHeldAtTheViews });
  t.order.push('repair');
  await t.pushDone();

  expect(repaired.repaired).toBe(true);
  expect(t.order).toEqual(['repair', 'push']);
  expect(await t.cogs()).toEqual(['9400000']);
  expect((await reconcileStore(db, t.storeId)).drift).toEqual([]);
});

it('a re-credit and a batch changing a unit cost it reads both commit, the batch after the re-credit', async () => {
  const t = await costChangeBesideViewsHolder();
  const recredited = await recreditStore(db, t.storeId, { before: t.pushHeldAtTheViews });
  t.order.push('recredit');
  await t.pushDone();

  expect(recredited.persons).toBe(1);
  expect(t.order).toEqual(['recredit', 'push']);
  expect(await t.cogs()).toEqual(['9400000']);
  expect((await reconcileStore(db, t.storeId)).drift).toEqual([]);
});
