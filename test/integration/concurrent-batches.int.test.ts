/**
 * Two batches in flight that touch the same facts from different partitions, each held in the interleaving
 * that matters whatever the timing (batch A open after its views are written until B is seen waiting on it):
 * - they link the same identity key (docs/decisions.md, Identity): a shopper's checkout on one device (A) and a
 *   lead form of the same email on a second device with the store's order push (B). Neither sees the other's
 *   uncommitted links; without the key lock B would credit the order under a person of its own and fail on
 *   A's credits (or leave two persons);
 * - one changes a variant's unit cost while the other credits that variant (docs/decisions.md, Conversions
 *   and goals): without the cost locks the credit keeps the old cost and the product push never sees it.
 */
import type { StorefrontEvent } from '../../contracts/src/events';
import type { ShopOrder } from '../../contracts/src/pushes';
import { PUSH_SUBJECT_NAMES } from '../../contracts/src/subjects';
import { silentLogger } from '../../runtime/logger';
import type { Db } from '../../storage/db';
import { createBatchWriter, type MaintainViews } from '../../pipeline/src/adapters/pg-batch-writer';
import { createViewMaintainer } from '../../pipeline/src/adapters/pg-view-maintainer';
import { reconcileStore } from '../../pipeline/src/operations/reconcile';
import type { BatchItem } from '../../pipeline/src/stream/build-pipeline';
import { batchItem } from '../support/batch-items';
import { createTestStore, testDb, waitBlockedBy } from '../support/harness';
import { addToCart, checkoutCompleted, leadForm, order, pageView } from '../support/journeys';
import { sampleProduct } from '../support/samples';

let db: Db;
beforeAll(() => {
  db = testDb();
});
afterAll(() => db.close());

const eventItem = (storeId: string, partition: number, e: StorefrontEvent) => batchItem(storeId, partition, e.name, e);
const orderItem = (storeId: string, partition: number, o: ShopOrder) =>
  batchItem(storeId, partition, PUSH_SUBJECT_NAMES.orders, o);

/** Applies batch A and holds its transaction open after its views are written, until `release` is called. */
async function applyHeld(batchA: BatchItem[], maintain: MaintainViews) {
  let backend = 0;
  let release!: () => void;
  let applied!: Promise<unknown>;
  const written = new Promise<void>((resolve) => {
    const hold = new Promise<void>((r) => (release = r));
    const holding: MaintainViews = async (tx, facts, afterCommit) => {
      await maintain(tx, facts, afterCommit);
      backend = (await tx<{ pid: number }>('test.pid', 'select pg_backend_pid() as pid'))[0]!.pid;
      resolve();
      await hold;
    };
    applied = createBatchWriter(db, holding).applyBatch(batchA);
  });
  await written;
  return { backend, release, applied };
}

/**
 * Applies batch A and holds its transaction open after its views are written, until batch B is seen waiting on
 * it (or has finished without waiting); then lets A commit and waits for both.
 */
async function applyInterleaved(batchA: BatchItem[], batchB: BatchItem[]): Promise<void> {
  const maintain = createViewMaintainer(silentLogger());
  const a = await applyHeld(batchA, maintain);
  let settledB = false;
  const appliedB = createBatchWriter(db, maintain)
    .applyBatch(batchB)
    .finally(() => (settledB = true));
  // B either waits for A (the interleaving under test) or, if it never touches what A holds, finishes first.
  await waitBlockedBy(db, a.backend, () => settledB);
  a.release();
  await a.applied;
  await appliedB;
}

/** The cost of goods of the store's add-to-cart conversions, in views that equal a recomputation. */
async function expectCartCogs(storeId: string, cogs: string[]): Promise<void> {
  const rows = await db.query<{ cogs: string }>(
    'test.cogs',
    `select cogs_micros::text as cogs from conversions where store_id = $1 and goal = 'add_to_cart'`,
    [storeId],
  );
  expect(rows.map((r) => r.cogs)).toEqual(cogs);
  expect((await reconcileStore(db, storeId)).drift).toEqual([]);
}

it('an event id stored by the other lane while a batch copies it fails that batch as retryable, then counts as a duplicate', async () => {
  const store = await createTestStore(db);
  const s = store.store.store_id;
  const ev = pageView({ client: 'twin-1', at: '2026-03-02T10:00:00Z' });
  // The same event id sent with a second client id: another partition, so the other lane.
  const twin = { ...ev, clientId: 'twin-2' };
  const maintain = createViewMaintainer(silentLogger());
  const a = await applyHeld([eventItem(s, 1, ev)], maintain);
  let settledB = false;
  const writerB = createBatchWriter(db, maintain);
  const appliedB = writerB.applyBatch([eventItem(s, 2, twin)]).finally(() => (settledB = true));
  appliedB.catch(() => undefined); // asserted below
  // B found no stored event, and its COPY now waits on A's uncommitted row of the same key.
  await waitBlockedBy(db, a.backend, () => settledB);
  expect(settledB).toBe(false);
  a.release();
  await a.applied;
  const err = await appliedB.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toMatchObject({ code: '40001' });
  expect(writerB.isTransient(err)).toBe(true);

  // Retried, as the pipeline retries a transient failure: the event is A's, and B's copy a duplicate.
  expect(await writerB.applyBatch([eventItem(s, 2, twin)])).toMatchObject({ stored: 0, duplicates: 1 });
  const rows = await db.query<{ client_id: string }>(
    'test.facts',
    'select client_id from event_facts where store_id = $1 and event_id = $2',
    [s, ev.id],
  );
  expect(rows).toEqual([{ client_id: 'twin-1' }]);
});

it('two batches linking the same email and order concurrently end with one person and the order credited once', async () => {
  const store = await createTestStore(db);
  const s = store.store.store_id;
  const email = 'ada@example.com';
  const phone = { client: 'phone-1' };
  const laptop = { client: 'laptop-1' };
  const batchA = [
    eventItem(s, 1, pageView({ ...phone, at: '2026-03-02T10:00:00Z', url: 'https://shop.example/?utm_source=tiktok' })),
    eventItem(
      s,
      1,
      checkoutCompleted(
        { ...phone, at: '2026-03-02T10:05:00Z' },
        { orderId: '7001', token: 'tok-1', amount: 40, email },
      ),
    ),
  ];
  const batchB = [
    eventItem(s, 2, pageView({ ...laptop, at: '2026-03-01T09:00:00Z', url: 'https://shop.example/?utm_source=news' })),
    eventItem(s, 2, leadForm({ ...laptop, at: '2026-03-01T09:01:00Z' }, email)),
    orderItem(
      s,
      3,
      order({ id: '7001', email, created_at: '2026-03-02T10:05:00Z', updated_at: '2026-03-02T10:05:00Z' }),
    ),
  ];

  await applyInterleaved(batchA, batchB);

  const persons = await db.query<{ person_id: string }>(
    'test.persons',
    `select distinct person_id from clients where store_id = $1 and client_id = any($2::text[])`,
    [s, ['phone-1', 'laptop-1', 'order:7001']],
  );
  expect(persons).toHaveLength(1);
  const conversions = await db.query<{ n: number }>(
    'test.conversions',
    `select count(*)::int as n from conversions where store_id = $1 and goal = 'purchase'`,
    [s],
  );
  expect(conversions[0]!.n).toBe(1);
  // The first touch is the laptop's newsletter visit: the order belongs to the merged person.
  const firstTouch = await db.query<{ source: string }>(
    'test.first_touch',
    `select source from conversion_credits where store_id = $1 and goal = 'purchase' and model = 'first'`,
    [s],
  );
  expect(firstTouch.map((r) => r.source)).toEqual(['news']);
  expect((await reconcileStore(db, s)).drift).toEqual([]);
});

it('a batch crediting a variant while another changes its unit cost ends with the new cost', async () => {
  const { store } = await createTestStore(db);
  const s = store.store_id;
  const shopper = { client: 'cost-shopper' };
  // A: the product push that sets the tee's cost. B: a new shopper adds the tee to the cart meanwhile.
  const batchA = [batchItem(s, 4, PUSH_SUBJECT_NAMES.products, sampleProduct())];
  const batchB = [
    eventItem(s, 5, pageView({ ...shopper, at: '2026-03-02T10:00:00Z' })),
    eventItem(s, 5, addToCart({ ...shopper, at: '2026-03-02T10:01:00Z' }, 25)),
  ];
  await applyInterleaved(batchA, batchB);

  await expectCartCogs(s, ['9400000']);
});

it('a product push repeating the stored unit cost holds no lock that a batch crediting the variant waits for', async () => {
  const { store } = await createTestStore(db);
  const s = store.store_id;
  const maintain = createViewMaintainer(silentLogger());
  await createBatchWriter(db, maintain).applyBatch([batchItem(s, 4, PUSH_SUBJECT_NAMES.products, sampleProduct())]);
  // A: a later version of the product with the same cost (a catalogue sent again), held open after its views.
  const again = sampleProduct({ updated_at: '2025-02-01T00:00:00Z' });
  const a = await applyHeld([batchItem(s, 4, PUSH_SUBJECT_NAMES.products, again)], maintain);
  // B credits the tee meanwhile, under a shared lock on its cost: it must not wait for A.
  const shopper = { client: 'repeat-shopper' };
  let settledB = false;
  const appliedB = createBatchWriter(db, maintain)
    .applyBatch([
      eventItem(s, 5, pageView({ ...shopper, at: '2026-03-02T10:00:00Z' })),
      eventItem(s, 5, addToCart({ ...shopper, at: '2026-03-02T10:01:00Z' }, 25)),
    ])
    .finally(() => (settledB = true));
  await waitBlockedBy(db, a.backend, () => settledB);
  const settledWhileAHeld = settledB;
  a.release();
  await a.applied;
  await appliedB;
  expect(settledWhileAHeld).toBe(true);
  const versions = await db.query<{ updated_at: string }>(
    'test.product_version',
    `select to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD') as updated_at from shop_products where store_id = $1`,
    [s],
  );
  expect(versions.map((r) => r.updated_at)).toEqual(['2025-02-01']);
  await expectCartCogs(s, ['9400000']);
});
