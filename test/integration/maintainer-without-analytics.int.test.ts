/**
 * The maintainer with `analytics: false`, which `npm run bench -- analytics-cost` runs to measure what the
 * analytics views cost: it must leave exactly those views out and maintain every other one, or the bench
 * would measure something else.
 */
import { createBatchWriter } from '../../pipeline/src/adapters/pg-batch-writer';
import { createViewMaintainer } from '../../pipeline/src/adapters/pg-view-maintainer';
import { silentLogger } from '../../runtime/logger';
import type { Db } from '../../storage/db';
import { batchItem } from '../support/batch-items';
import { createTestStore, testDb } from '../support/harness';
import { addToCart, pageView, productView } from '../support/journeys';

let db: Db;
beforeAll(() => {
  db = testDb();
});
afterAll(() => db.close());

/** The analytics tables a visit with a product view and an add-to-cart writes to (no purchase: no credits). */
const ANALYTICS_TABLES = [
  'web_person_days',
  'product_person_days',
  'web_daily',
  'web_users',
  'product_daily',
  'product_users',
  'touch_groups',
  'product_info',
];

async function rowsOf(table: string, storeId: string): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    'test.rows',
    `select count(*)::int as n from ${table} where store_id = $1`,
    [storeId],
  );
  return row!.n;
}

it.each([true, false])(
  'with analytics %s, maintains the attribution views and the analytics ones only if asked',
  async (analytics) => {
    const { store } = await createTestStore(db);
    const s = store.store_id;
    const shopper = { client: `switch-${analytics}` };
    const events = [
      pageView({ ...shopper, at: '2026-03-02T10:00:00Z', url: 'https://shop.example/?utm_source=news' }),
      productView({ ...shopper, at: '2026-03-02T10:01:00Z' }),
      addToCart({ ...shopper, at: '2026-03-02T10:02:00Z' }, 25),
    ];
    const writer = createBatchWriter(db, createViewMaintainer(silentLogger(), { analytics }));
    await writer.applyBatch(events.map((e) => batchItem(s, 0, e.name, e)));

    expect(await rowsOf('sessions', s)).toBe(1);
    expect(await rowsOf('attribution_daily', s)).toBeGreaterThan(0);
    const rows = Object.fromEntries(await Promise.all(ANALYTICS_TABLES.map(async (t) => [t, await rowsOf(t, s)])));
    for (const table of ANALYTICS_TABLES) expect([table, rows[table] > 0]).toEqual([table, analytics]);
  },
);
