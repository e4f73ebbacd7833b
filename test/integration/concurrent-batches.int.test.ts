/**
 * Two batches in flight that link the same identity key (docs/decisions.md, Identity): a shopper's checkout on
 * one device (batch A) and, in another partition, a lead form of the same email on a second device with the
 * store's order push (batch B). Neither transaction sees the other's uncommitted links; without the key lock
 * B would credit the order under a person of its own and fail on A's credits (or leave two persons). Batch A
 * is held open after its views are written until B is seen waiting on it, so the interleaving is the one that
 * matters whatever the timing.
 */
import type { StorefrontEvent } from '../../contracts/src/events';
import type { ShopOrder } from '../../contracts/src/pushes';
import { eventSubject, PUSH_SUBJECT_NAMES } from '../../contracts/src/subjects';
import { silentLogger } from '../../runtime/logger';
import type { Db } from '../../storage/db';
import { createBatchWriter, type MaintainViews } from '../../pipeline/src/adapters/pg-batch-writer';
import { createViewMaintainer } from '../../pipeline/src/adapters/pg-view-maintainer';
import { decodeMessage } from '../../pipeline/src/domain/decode-message';
import { reconcileStore } from '../../pipeline/src/operations/reconcile';
import type { BatchItem } from '../../pipeline/src/stream/build-pipeline';
import { createTestStore, testDb, waitFor } from '../support/harness';
import { checkoutCompleted, leadForm, order, pageView } from '../support/journeys';

let db: Db;
let seq = 0;
beforeAll(() => {
  db = testDb();
});
afterAll(() => db.close());

function item(storeId: string, partition: number, name: string, body: unknown): BatchItem {
  const subject = eventSubject(partition, storeId, name);
  const data = new TextEncoder().encode(JSON.stringify(body));
  const msg = {
    subject,
    seq: ++seq,
    data,
    receivedAt: Date.now(),
    redelivered: false,
    ack: () => undefined,
    nak: () => undefined,
    working: () => undefined,
  };
  return { msg, decoded: decodeMessage(subject, data, msg.receivedAt) };
}
const eventItem = (storeId: string, partition: number, e: StorefrontEvent) => item(storeId, partition, e.name, e);
const orderItem = (storeId: string, partition: number, o: ShopOrder) =>
  item(storeId, partition, PUSH_SUBJECT_NAMES.orders, o);

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

  const maintain = createViewMaintainer(silentLogger());
  let backendA = 0;
  let heldA!: () => void;
  let appliedA!: Promise<unknown>;
  const writtenA = new Promise<void>((resolve) => {
    const hold = new Promise<void>((release) => (heldA = release));
    const holdingA: MaintainViews = async (tx, facts) => {
      await maintain(tx, facts);
      backendA = (await tx<{ pid: number }>('test.pid', 'select pg_backend_pid() as pid'))[0]!.pid;
      resolve();
      await hold;
    };
    appliedA = createBatchWriter(db, holdingA).applyBatch(batchA);
  });
  await writtenA;

  let settledB = false;
  const appliedB = createBatchWriter(db, maintain)
    .applyBatch(batchB)
    .finally(() => (settledB = true));
  // B either waits for A (the interleaving under test) or, if it never touches what A holds, finishes first.
  await waitFor(
    async () =>
      settledB ||
      (
        await db.query<{ n: number }>(
          'test.blocked',
          'select count(*)::int as n from pg_stat_activity where $1 = any(pg_blocking_pids(pid))',
          [backendA],
        )
      )[0]!.n > 0,
    (blocked) => blocked,
    30_000,
  );
  heldA();
  await appliedA;
  await appliedB;

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
