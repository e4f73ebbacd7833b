/**
 * Product names and images (docs/decisions.md, Analytics): a product's row follows its latest sighting, the
 * texts breaking a tie, whichever batches the events arrive in, and each store's own when a batch holds several.
 */
import type { StorefrontEvent } from '../../contracts/src/events';
import { insertProductInfo, upsertProductInfo } from '../../pipeline/src/adapters/pg-product-info';
import { productInfoOfEvent } from '../../pipeline/src/domain/facts';
import type { Db } from '../../storage/db';
import { createTestStore, testDb } from '../support/harness';
import { sampleEvent, sampleProductVariant } from '../support/samples';

let db: Db;
beforeAll(() => {
  db = testDb();
});
afterAll(() => db.close());

const view = (at: string, title: string, imageSrc = 'tee.jpg'): StorefrontEvent =>
  sampleEvent('product_viewed', {
    id: `pv-${at}-${title}-${imageSrc}`,
    timestamp: at,
    data: {
      productVariant: sampleProductVariant({
        product: { ...sampleProductVariant().product, title },
        image: { src: imageSrc },
      }),
    },
  });

async function productRows(storeId: string): Promise<string[]> {
  const rows = await db.query<{ title: string; image_src: string; seen_at: Date }>(
    'test.product_info',
    'select title, image_src, seen_at from product_info where store_id = $1',
    [storeId],
  );
  return rows.map((r) => `${r.title} ${r.image_src} @ ${r.seen_at.toISOString()}`);
}

const apply = (storeId: string, events: StorefrontEvent[]) =>
  db.transaction('test.apply', (tx) => upsertProductInfo(tx, [{ storeId, events }]));

it('keeps the latest sighting of a product, each newer one moving it forward', async () => {
  const { store } = await createTestStore(db);
  const s = store.store_id;
  await apply(s, [view('2026-03-01T10:00:00.000Z', 'Tee'), view('2026-03-01T09:00:00.000Z', 'Old Tee')]);
  expect(await productRows(s)).toEqual(['Tee tee.jpg @ 2026-03-01T10:00:00.000Z']);
  // The same name an hour later moves the sighting; an older event with another name is ignored.
  await apply(s, [view('2026-03-01T11:00:00.000Z', 'Tee'), view('2026-03-01T08:00:00.000Z', 'Older Tee')]);
  expect(await productRows(s)).toEqual(['Tee tee.jpg @ 2026-03-01T11:00:00.000Z']);
  // A late event older than the stored sighting, by minutes only, does not set its older image.
  await apply(s, [view('2026-03-01T10:59:00.000Z', 'Tee', 'tee-2.jpg')]);
  expect(await productRows(s)).toEqual(['Tee tee.jpg @ 2026-03-01T11:00:00.000Z']);
  // A new name wins at once.
  await apply(s, [view('2026-03-01T11:30:00.000Z', 'Organic Tee')]);
  expect(await productRows(s)).toEqual(['Organic Tee tee.jpg @ 2026-03-01T11:30:00.000Z']);
});

it('keeps each store to its own sightings when one batch holds several stores', async () => {
  const [a, b] = [(await createTestStore(db)).store.store_id, (await createTestStore(db)).store.store_id];
  await apply(a, [view('2026-03-01T10:00:00.000Z', 'Tee')]);
  // One call for both: the same product, older in a (left as it is) and new in b.
  await db.transaction('test.apply', (tx) =>
    upsertProductInfo(tx, [
      { storeId: b, events: [view('2026-03-01T09:00:00.000Z', 'B Tee')] },
      { storeId: a, events: [view('2026-03-01T09:30:00.000Z', 'Old Tee')] },
    ]),
  );
  expect(await productRows(a)).toEqual(['Tee tee.jpg @ 2026-03-01T10:00:00.000Z']);
  expect(await productRows(b)).toEqual(['B Tee tee.jpg @ 2026-03-01T09:00:00.000Z']);
});

it('breaks a tie at the same instant the same way in the batch and in the database', async () => {
  const at = '2026-03-02T10:00:00.000Z';
  // By UTF-16 code units U+FF5E sorts above the emoji; by code point (the "C" collation) below it.
  const [wide, emoji, plain] = [
    view(at, 'Tee \uFF5E', 'a.jpg'),
    view(at, 'Tee \u{1F455}', 'a.jpg'),
    view(at, 'Tee', 'b.jpg'),
  ];
  const outcomes = new Set<string>();
  for (const events of [
    [wide, emoji, plain],
    [plain, emoji, wide],
    [emoji, wide, plain],
  ]) {
    const inOneBatch = (await createTestStore(db)).store.store_id;
    await apply(inOneBatch, events);
    const oneByOne = (await createTestStore(db)).store.store_id;
    for (const e of events) await apply(oneByOne, [e]);
    // Past the batch's own comparison: every sighting sent, the upsert alone deciding.
    const upsertOnly = (await createTestStore(db)).store.store_id;
    for (const e of events) {
      const sightings = productInfoOfEvent(e).map((info) => ({ ...info, at: Date.parse(at) }));
      await db.transaction('test.insert', (tx) => insertProductInfo(tx, upsertOnly, sightings));
    }
    for (const storeId of [inOneBatch, oneByOne, upsertOnly]) outcomes.add(JSON.stringify(await productRows(storeId)));
  }
  expect([...outcomes]).toEqual([JSON.stringify([`Tee \u{1F455} a.jpg @ ${at}`])]);
});
