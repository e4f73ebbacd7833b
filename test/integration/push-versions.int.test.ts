/**
 * Which push version wins (docs/decisions.md, Storage): one stream holding versions of an order, a product, a
 * customer and an ad spend row with the same `updated_at`, published to a real nats-server, is applied through
 * the daemon's batch writer cut into batches every possible way, each cut into a store of its own with the
 * messages' real stream sequences; every cut must store what a rebuild of the stream stores, and that is the
 * later message of each tie.
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import type { AdSpendRow, ShopCustomer, ShopOrder, ShopProduct } from '../../contracts/src/pushes';
import { eventSubject, PUSH_SUBJECT_NAMES } from '../../contracts/src/subjects';
import { silentLogger } from '../../runtime/logger';
import type { Db } from '../../storage/db';
import { createBatchWriter } from '../../pipeline/src/adapters/pg-batch-writer';
import { createViewMaintainer } from '../../pipeline/src/adapters/pg-view-maintainer';
import { replayStore } from '../../pipeline/src/operations/replay';
import { batchItem } from '../support/batch-items';
import { testEnv } from '../support/env';
import { createTestStore, testDb } from '../support/harness';
import { order } from '../support/journeys';
import { sampleAdSpendRow, sampleCustomer, sampleProduct } from '../support/samples';

let db: Db;
let nc: NatsConnection;
beforeAll(async () => {
  db = testDb();
  nc = await connect({ servers: testEnv.natsUrl });
});
afterAll(async () => {
  await nc.close();
  await db.close();
});

const T = '2026-03-02T10:00:00Z';
const product = (cost: string): ShopProduct => {
  const p = sampleProduct({ updated_at: T });
  return { ...p, variants: p.variants.map((v) => ({ ...v, cost })) };
};
const spend = (amount: number): AdSpendRow => sampleAdSpendRow({ date: '2026-03-01', spend: amount, updated_at: T });

/** The stream: each key's tied versions interleaved with the others', and an older order version last. */
const MESSAGES: Array<{ name: string; body: ShopOrder | ShopProduct | ShopCustomer | AdSpendRow }> = [
  { name: PUSH_SUBJECT_NAMES.orders, body: order({ id: '5001', updated_at: T, total_price: '10.00' }) },
  { name: PUSH_SUBJECT_NAMES.products, body: product('3.00') },
  { name: PUSH_SUBJECT_NAMES.orders, body: order({ id: '5001', updated_at: T, total_price: '20.00' }) },
  // Microseconds apart, the same millisecond: a tie, which the later message wins though its time reads earlier.
  {
    name: PUSH_SUBJECT_NAMES.customers,
    body: sampleCustomer({ updated_at: '2026-03-02T10:00:00.000900Z', first_name: 'Ann' }),
  },
  { name: PUSH_SUBJECT_NAMES.products, body: product('4.00') },
  {
    name: PUSH_SUBJECT_NAMES.customers,
    body: sampleCustomer({ updated_at: '2026-03-02T10:00:00.000400Z', first_name: 'Bea' }),
  },
  { name: PUSH_SUBJECT_NAMES['ad-spend'], body: spend(5) },
  { name: PUSH_SUBJECT_NAMES['ad-spend'], body: spend(7) },
  {
    name: PUSH_SUBJECT_NAMES.orders,
    body: order({ id: '5001', updated_at: '2026-03-02T09:00:00Z', total_price: '1.00' }),
  },
];

/** The tables the push versions decide, row by row without their store id. */
const TABLES = [
  'shop_orders',
  'shop_products',
  'shop_customers',
  'ad_spend',
  'order_facts',
  'variant_costs',
  'ad_spend_daily',
];

async function stored(storeId: string): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of TABLES) {
    const rows = await db.query<{ row: string }>(
      'test.rows',
      `select (to_jsonb(t) - 'store_id')::text as row from ${table} t where store_id = $1 order by 1`,
      [storeId],
    );
    out[table] = rows.map((r) => r.row);
  }
  return out;
}

/** Every way to cut `n` messages into consecutive batches: the sizes of the batches, in order. */
function everyCut(n: number): number[][] {
  const cuts: number[][] = [];
  for (let mask = 0; mask < 2 ** (n - 1); mask++) {
    const sizes: number[] = [];
    let size = 1;
    for (let i = 0; i < n - 1; i++) {
      if (mask & (2 ** i)) {
        sizes.push(size);
        size = 1;
      } else size++;
    }
    sizes.push(size);
    cuts.push(sizes);
  }
  return cuts;
}

it('every cut of a stream into batches stores what its rebuild stores: the later message of a tie', async () => {
  // The stream, as the rebuild reads it.
  const rebuilt = (await createTestStore(db)).store.store_id;
  const js = jetstream(nc);
  const seqs: number[] = [];
  for (const m of MESSAGES) {
    const ack = await js.publish(eventSubject(0, rebuilt, m.name), JSON.stringify(m.body));
    seqs.push(ack.seq);
  }
  const progress = await replayStore(nc, db, { storeId: rebuilt, rebuild: true }, silentLogger());
  expect(progress.loadedBy).toBe('bulk');
  expect(progress.processed).toBe(MESSAGES.length);
  const expected = await stored(rebuilt);

  // The rule itself: the later message of each tie, the older order version ignored.
  const [orderRow] = await db.query<{ total: string; seq: string }>(
    'test.order',
    `select payload->>'total_price' as total, stream_seq::text as seq from shop_orders where store_id = $1`,
    [rebuilt],
  );
  expect(orderRow).toEqual({ total: '20.00', seq: String(seqs[2]) });
  const [customerRow] = await db.query<{ name: string; updated_at: string }>(
    'test.customer',
    `select payload->>'first_name' as name, to_char(updated_at at time zone 'UTC', 'HH24:MI:SS.US') as updated_at
     from shop_customers where store_id = $1`,
    [rebuilt],
  );
  expect(customerRow).toEqual({ name: 'Bea', updated_at: '10:00:00.000000' });
  const costs = await db.query('test.costs', 'select cost_micros::text as c from variant_costs where store_id = $1', [
    rebuilt,
  ]);
  expect(costs).toEqual([{ c: '4000000' }]);
  const spendRows = await db.query(
    'test.spend',
    'select spend_micros::text as s from ad_spend_daily where store_id = $1',
    [rebuilt],
  );
  expect(spendRows).toEqual([{ s: '7000000' }]);

  // Every cut, through the daemon's batch writer.
  const writer = createBatchWriter(db, createViewMaintainer(silentLogger()));
  const differing: string[] = [];
  for (const sizes of everyCut(MESSAGES.length)) {
    const storeId = (await createTestStore(db)).store.store_id;
    let at = 0;
    for (const size of sizes) {
      const batch = MESSAGES.slice(at, at + size).map((m, i) =>
        batchItem(storeId, 0, m.name, m.body, Date.parse(T), seqs[at + i]),
      );
      await writer.applyBatch(batch);
      at += size;
    }
    const got = await stored(storeId);
    if (JSON.stringify(got) !== JSON.stringify(expected)) differing.push(sizes.join('+'));
  }
  expect(differing).toEqual([]);
}, 300_000);
