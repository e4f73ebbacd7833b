/**
 * A repair beside a batch that changes a unit cost (docs/decisions.md, Conversions and goals, "Unit costs are
 * locked like identity keys"): the repair holds every view table from its start, so a product push that locked
 * a variant's cost waits for it at the views. The repair reads that cost without a lock; had it taken the shared
 * lock the batch's recomputations take, each would have waited for the other until PostgreSQL aborted one.
 */
import { PUSH_SUBJECT_NAMES } from '../../contracts/src/subjects';
import { silentLogger } from '../../runtime/logger';
import type { Db } from '../../storage/db';
import { createBatchWriter } from '../../pipeline/src/adapters/pg-batch-writer';
import { createViewMaintainer } from '../../pipeline/src/adapters/pg-view-maintainer';
import { reconcileStore } from '../../pipeline/src/operations/reconcile';
import { batchItem } from '../support/batch-items';
import { createTestStore, testDb, waitBlockedBy } from '../support/harness';
import { addToCart, pageView } from '../support/journeys';
import { sampleProduct } from '../support/samples';

let db: Db;
beforeAll(() => {
  db = testDb();
});
afterAll(() => db.close());

it('a repair and a batch changing a unit cost it reads both commit, the batch after the repair', async () => {
  const { store } = await createTestStore(db);
  const s = store.store_id;
  const shopper = { client: 'repair-cost-shopper' };
  const writer = createBatchWriter(db, createViewMaintainer(silentLogger()));
  await writer.applyBatch([
    batchItem(s, 5, 'page_viewed', pageView({ ...shopper, at: '2026-03-02T10:00:00Z' })),
    batchItem(s, 5, 'product_added_to_cart', addToCart({ ...shopper, at: '2026-03-02T10:01:00Z' }, 25)),
  ]);
  const cogs = () =>
    db.query<{ cogs: string }>(
      'test.cogs',
      `select cogs_micros::text as cogs from conversions where store_id = $1 and goal = 'add_to_cart'`,
      [s],
    );
  expect((await cogs()).map((r) => r.cogs)).toEqual(['0']);

  // Once the repair holds the views, the product push (the tee's cost) locks the variant in its facts step and
  // then waits for them at its first view write.
  const order: string[] = [];
  let pushed: Promise<void> | undefined;
  const repaired = await reconcileStore(db, s, {
    repair: true,
    beforeRepair: async (q) => {
      const pid = (await q<{ pid: number }>('test.pid', 'select pg_backend_pid() as pid'))[0]!.pid;
      pushed = writer
        .applyBatch([batchItem(s, 4, PUSH_SUBJECT_NAMES.products, sampleProduct())])
        .then(() => void order.push('push'));
      pushed.catch(() => undefined); // awaited below
      await waitBlockedBy(db, pid);
    },
  });
  order.push('repair');
  await pushed;

  expect(repaired.repaired).toBe(true);
  expect(order).toEqual(['repair', 'push']);
  expect((await cogs()).map((r) => r.cogs)).toEqual(['9400000']);
  expect((await reconcileStore(db, s)).drift).toEqual([]);
});
