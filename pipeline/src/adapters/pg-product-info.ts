/**
 * Product names and images (`product_info`): each product's row follows its latest sighting in the events,
 * compared as `supersedes` does (docs/decisions.md, Analytics).
 */
import type { StorefrontEvent } from '../../../contracts/src/events';
import type { Query } from '../../../storage/db';
import { keyProbeOfStoresSql } from '../../../storage/key-probe';
import { type ProductSighting, productInfoOfEvent, supersedes } from '../domain/facts';

/** A store's events of the batch. */
export interface StoreEvents {
  storeId: string;
  events: readonly StorefrontEvent[];
}

/** The latest sighting of each product in `events`. */
function latestSightings(events: readonly StorefrontEvent[]): Map<string, ProductSighting> {
  const latest = new Map<string, ProductSighting>();
  for (const e of events) {
    const at = Date.parse(e.timestamp);
    for (const info of productInfoOfEvent(e)) {
      const seen = { ...info, at };
      const cur = latest.get(info.productId);
      if (!cur || supersedes(seen, cur)) latest.set(info.productId, seen);
    }
  }
  return latest;
}

/**
 * Records what the batch's events say about products: a product's row follows its latest sighting, compared
 * as `supersedes` does, whichever order the events arrive in (docs/decisions.md, Analytics). Called last in
 * the batch, so the popular products' rows stay locked only until the commit. Every store of the batch in one
 * lookup and one upsert.
 */
export async function upsertProductInfo(q: Query, stores: readonly StoreEvents[]): Promise<void> {
  const sorted = [...stores].sort((a, b) => (a.storeId < b.storeId ? -1 : 1));
  const latest = sorted.map(({ storeId, events }) => ({ storeId, sightings: latestSightings(events) }));
  const keys = latest.flatMap(({ storeId, sightings }) => [...sightings.keys()].map((p) => [storeId, p] as const));
  if (keys.length === 0) return;
  const stored = await q<{
    probe_store: string;
    product_id: string;
    title: string;
    vendor: string;
    product_type: string;
    image_src: string;
    seen_at: Date;
  }>(
    'facts.product_info_load',
    keyProbeOfStoresSql({
      select: 'product_id, title, vendor, product_type, image_src, seen_at',
      from: 'product_info',
      key: 'product_id',
    }),
    [keys.map((k) => k[0]), keys.map((k) => k[1])],
  );
  const storedOf = new Map(
    stored.map((r): [string, ProductSighting] => [
      `${r.probe_store}\u0000${r.product_id}`,
      {
        productId: r.product_id,
        title: r.title,
        vendor: r.vendor,
        productType: r.product_type,
        imageSrc: r.image_src,
        at: r.seen_at.getTime(),
      },
    ]),
  );
  // Only what would change the stored row is sent: most sightings of a batch are older than the stored one.
  const rows = latest.flatMap(({ storeId, sightings }) =>
    [...sightings.values()]
      .filter((r) => {
        const s = storedOf.get(`${storeId}\u0000${r.productId}`);
        return !s || supersedes(r, s);
      })
      .sort((a, b) => (a.productId < b.productId ? -1 : 1))
      .map((sighting) => ({ storeId, sighting })),
  );
  await writeProductInfo(q, rows);
}

/**
 * Writes products' sightings (their latest name and image, and when they were seen); a stored row is replaced
 * only by a sighting that supersedes it, compared in the same order as `supersedes` (texts in the "C"
 * collation, whatever the database's default).
 */
export async function insertProductInfo(q: Query, storeId: string, rows: readonly ProductSighting[]): Promise<void> {
  await writeProductInfo(
    q,
    rows.map((sighting) => ({ storeId, sighting })),
  );
}

/** `insertProductInfo` for sightings of several stores, in one statement (in the order given: the lock order). */
async function writeProductInfo(
  q: Query,
  entries: ReadonlyArray<{ storeId: string; sighting: ProductSighting }>,
): Promise<void> {
  if (entries.length === 0) return;
  const rows = entries.map((e) => e.sighting);
  await q(
    'facts.product_info_upsert',
    `insert into product_info as p (store_id, product_id, title, vendor, product_type, image_src, seen_at)
     select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[])
     on conflict (store_id, product_id) do update set
       title = excluded.title, vendor = excluded.vendor, product_type = excluded.product_type,
       image_src = excluded.image_src, seen_at = excluded.seen_at
       where (excluded.seen_at, excluded.title collate "C", excluded.vendor collate "C",
              excluded.product_type collate "C", excluded.image_src collate "C")
           > (p.seen_at, p.title collate "C", p.vendor collate "C", p.product_type collate "C",
              p.image_src collate "C")`,
    [
      entries.map((e) => e.storeId),
      rows.map((r) => r.productId),
      rows.map((r) => r.title),
      rows.map((r) => r.vendor),
      rows.map((r) => r.productType),
      rows.map((r) => r.imageSrc),
      rows.map((r) => new Date(r.at).toISOString()),
    ],
  );
}
