/**
 * Product names and images (docs/decisions.md, Analytics): the latest storefront event of a product wins, and
 * a batch writes the row only when something changed or the stored sighting is more than a day old.
 */
import type { StorefrontEvent } from '../../contracts/src/events';
import { upsertProductInfo } from '../../pipeline/src/adapters/analytics-rollups';
import type { Db } from '../../storage/db';
import { createTestStore, testDb } from '../support/harness';
import { sampleEvent, sampleProductVariant } from '../support/samples';

let db: Db;
beforeAll(() => {
  db = testDb();
});
afterAll(() => db.close());

const view = (at: string, title: string): StorefrontEvent =>
  sampleEvent('product_viewed', {
    id: `pv-${at}-${title}`,
    timestamp: at,
    data: {
      productVariant: sampleProductVariant({
        product: { ...sampleProductVariant().product, title },
      }),
    },
  });

it('keeps the latest name and rewrites an unchanged one at most once a day', async () => {
  const { store } = await createTestStore(db);
  const s = store.store_id;
  const stored = async () =>
    (
      await db.query<{ title: string; seen_at: Date }>(
        'test.product_info',
        'select title, seen_at from product_info where store_id = $1',
        [s],
      )
    ).map((r) => `${r.title} @ ${r.seen_at.toISOString()}`);
  const apply = (events: StorefrontEvent[]) => db.transaction('test.apply', (tx) => upsertProductInfo(tx, s, events));

  await apply([view('2026-03-01T10:00:00.000Z', 'Tee'), view('2026-03-01T09:00:00.000Z', 'Old Tee')]);
  expect(await stored()).toEqual(['Tee @ 2026-03-01T10:00:00.000Z']);
  // Same name an hour later: not rewritten. An older event with another name: ignored.
  await apply([view('2026-03-01T11:00:00.000Z', 'Tee'), view('2026-03-01T08:00:00.000Z', 'Older Tee')]);
  expect(await stored()).toEqual(['Tee @ 2026-03-01T10:00:00.000Z']);
  // Same name two days later: the sighting moves forward.
  await apply([view('2026-03-03T10:00:00.000Z', 'Tee')]);
  expect(await stored()).toEqual(['Tee @ 2026-03-03T10:00:00.000Z']);
  // A new name wins at once.
  await apply([view('2026-03-03T10:30:00.000Z', 'Organic Tee')]);
  expect(await stored()).toEqual(['Organic Tee @ 2026-03-03T10:30:00.000Z']);
});
