/**
 * Store pushes (orders, products, customers, ad spend rows) written inside the batch transaction: the greatest
 * version of each key wins (`supersedesVersion`, docs/decisions.md, Storage), and what changed is returned for
 * the views. One statement per table, arrays through unnest.
 */
import type { Query } from '../../../storage/db';
import type { AdSpendRow, ShopCustomer, ShopOrder, ShopProduct } from '../../../contracts/src/pushes';
import { adSpendKey, type AdSpendFact } from '../domain/facts';
import { greatestPerKey, type PushVersion, pushVersionOf, storedUpdatedAt } from '../domain/push-versions';

interface Versioned {
  storeId: string;
  key: string;
  updatedAt: string;
  seq: number;
  payload: unknown;
}

/** A version as it is written: its place in the order of versions, `updated_at` to the millisecond. */
type Picked<T extends Versioned> = T & { version: PushVersion; storedUpdatedAt: string };

/** Keeps, per key, the greatest version in the batch (an upsert may not touch one row twice). */
function newestPerKey<T extends Versioned>(rows: readonly T[]): Array<Picked<T>> {
  const versioned = rows.map((r): Picked<T> => {
    const version = pushVersionOf(r.updatedAt, r.seq);
    return { ...r, version, storedUpdatedAt: storedUpdatedAt(version) };
  });
  return greatestPerKey(
    versioned,
    (r) => `${r.storeId}\u0000${r.key}`,
    (r) => r.version,
  );
}

/**
 * The upserts' condition, `supersedesVersion` in SQL: the stored row is replaced only by a greater version. The
 * incoming `updated_at` is already to the millisecond; the stored one is truncated too, for rows written before
 * versions were (microseconds then survived).
 */
const supersedesStoredSql = (table: string): string =>
  `(excluded.updated_at, excluded.stream_seq) > (date_trunc('milliseconds', ${table}.updated_at), ${table}.stream_seq)`;

async function upsertVersioned(
  q: Query,
  table: 'shop_orders' | 'shop_products' | 'shop_customers',
  keyColumn: 'order_id' | 'product_id' | 'customer_id',
  rows: readonly Versioned[],
): Promise<Versioned[]> {
  const fresh = newestPerKey(rows);
  if (fresh.length === 0) return [];
  const changed = await q<{ store_id: string; key: string }>(
    `${table}.upsert`,
    `insert into ${table} (store_id, ${keyColumn}, updated_at, stream_seq, payload)
     select * from unnest($1::text[], $2::text[], $3::timestamptz[], $4::bigint[], $5::jsonb[])
     on conflict (store_id, ${keyColumn}) do update
       set updated_at = excluded.updated_at, stream_seq = excluded.stream_seq, payload = excluded.payload
       where ${supersedesStoredSql(table)}
     returning store_id, ${keyColumn} as key`,
    [
      fresh.map((r) => r.storeId),
      fresh.map((r) => r.key),
      fresh.map((r) => r.storedUpdatedAt),
      fresh.map((r) => r.seq),
      fresh.map((r) => JSON.stringify(r.payload)),
    ],
  );
  const keys = new Set(changed.map((r) => `${r.store_id}\u0000${r.key}`));
  return fresh.filter((r) => keys.has(`${r.storeId}\u0000${r.key}`));
}

export interface PushRows {
  orders: Array<{ storeId: string; order: ShopOrder; seq: number }>;
  products: Array<{ storeId: string; product: ShopProduct; seq: number }>;
  customers: Array<{ storeId: string; customer: ShopCustomer; seq: number }>;
  adSpend: Array<{ storeId: string; row: AdSpendRow; fact: AdSpendFact; seq: number }>;
}

export interface ChangedPushes {
  orders: Array<{ storeId: string; order: ShopOrder }>;
  products: Array<{ storeId: string; product: ShopProduct }>;
  customers: Array<{ storeId: string; customer: ShopCustomer }>;
  /** The new version of each changed ad spend row and the version it replaced (for the spend rollup). */
  adSpend: Array<{ storeId: string; fact: AdSpendFact; previous: AdSpendFact | null }>;
}

/** Upserts store pushes; returns the ones that changed stored state (new, or a greater version than what was stored). */
export async function upsertPushes(q: Query, rows: PushRows): Promise<ChangedPushes> {
  const orders = await upsertVersioned(
    q,
    'shop_orders',
    'order_id',
    rows.orders.map((r) => ({
      storeId: r.storeId,
      key: r.order.id,
      updatedAt: r.order.updated_at,
      seq: r.seq,
      payload: r.order,
    })),
  );
  const products = await upsertVersioned(
    q,
    'shop_products',
    'product_id',
    rows.products.map((r) => ({
      storeId: r.storeId,
      key: r.product.id,
      updatedAt: r.product.updated_at,
      seq: r.seq,
      payload: r.product,
    })),
  );
  const customers = await upsertVersioned(
    q,
    'shop_customers',
    'customer_id',
    rows.customers.map((r) => ({
      storeId: r.storeId,
      key: r.customer.id,
      updatedAt: r.customer.updated_at,
      seq: r.seq,
      payload: r.customer,
    })),
  );
  const adSpend = await upsertAdSpend(q, rows.adSpend);
  return {
    orders: orders.map((r) => ({ storeId: r.storeId, order: r.payload as ShopOrder })),
    products: products.map((r) => ({ storeId: r.storeId, product: r.payload as ShopProduct })),
    customers: customers.map((r) => ({ storeId: r.storeId, customer: r.payload as ShopCustomer })),
    adSpend,
  };
}

interface AdSpendDbRow {
  store_id: string;
  day: string;
  platform: string;
  account_id: string;
  campaign_id: string;
  adset_id: string;
  ad_id: string;
  channel: string;
  source: string;
  medium: string;
  campaign: string;
  spend_micros: string;
  impressions: string;
  clicks: string;
  conv_value_micros: string;
}

export function adSpendFactOf(r: AdSpendDbRow): AdSpendFact {
  return {
    day: r.day,
    platform: r.platform,
    accountId: r.account_id,
    campaignId: r.campaign_id,
    adsetId: r.adset_id,
    adId: r.ad_id,
    channel: r.channel as AdSpendFact['channel'],
    source: r.source,
    medium: r.medium,
    campaign: r.campaign,
    spendMicros: Number(r.spend_micros),
    impressions: Number(r.impressions),
    clicks: Number(r.clicks),
    convValueMicros: Number(r.conv_value_micros),
  };
}

async function upsertAdSpend(q: Query, rows: PushRows['adSpend']): Promise<ChangedPushes['adSpend']> {
  const fresh = newestPerKey(
    rows.map((r) => ({
      storeId: r.storeId,
      key: adSpendKey(r.fact),
      updatedAt: r.row.updated_at ?? '1970-01-01T00:00:00Z',
      seq: r.seq,
      payload: r,
    })),
  );
  if (fresh.length === 0) return [];
  const facts = fresh.map((f) => f.payload.fact);
  const keys = ['store_id', 'day', 'platform', 'account_id', 'campaign_id', 'adset_id', 'ad_id'].join(', ');
  const cols = `${keys}, channel, source, medium, campaign, spend_micros, impressions, clicks, conv_value_micros`;
  // One statement: the stored version before the upsert (for the exact rollup difference), then the upsert
  // of versions greater than what is stored. Both CTEs see the same snapshot.
  const changed = await q<AdSpendDbRow & { previous: AdSpendDbRow | null }>(
    'ad_spend.upsert',
    `with input as (
       select * from unnest($1::text[], $2::date[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
                            $8::text[], $9::text[], $10::text[], $11::text[], $12::bigint[], $13::bigint[], $14::bigint[], $15::bigint[],
                            $16::timestamptz[], $17::bigint[], $18::jsonb[])
         as t(${cols}, updated_at, stream_seq, row)
     ), prev as (
       select a.* from ad_spend a join input i using (store_id, day, platform, account_id, campaign_id, adset_id, ad_id)
     ), up as (
       insert into ad_spend (${cols}, updated_at, stream_seq, row)
       select ${cols}, updated_at, stream_seq, row from input
       on conflict (store_id, day, platform, account_id, campaign_id, adset_id, ad_id) do update
         set updated_at = excluded.updated_at, stream_seq = excluded.stream_seq, row = excluded.row,
             channel = excluded.channel, source = excluded.source, medium = excluded.medium, campaign = excluded.campaign,
             spend_micros = excluded.spend_micros, impressions = excluded.impressions, clicks = excluded.clicks,
             conv_value_micros = excluded.conv_value_micros
         where ${supersedesStoredSql('ad_spend')}
       returning ${cols}
     )
     select up.*, to_char(up.day, 'YYYY-MM-DD') as day,
            case when prev.store_id is null then null else
              jsonb_build_object('store_id', prev.store_id, 'day', to_char(prev.day, 'YYYY-MM-DD'), 'platform', prev.platform,
                'account_id', prev.account_id, 'campaign_id', prev.campaign_id, 'adset_id', prev.adset_id, 'ad_id', prev.ad_id,
                'channel', prev.channel, 'source', prev.source, 'medium', prev.medium, 'campaign', prev.campaign,
                'spend_micros', prev.spend_micros, 'impressions', prev.impressions, 'clicks', prev.clicks,
                'conv_value_micros', prev.conv_value_micros) end as previous
     from up left join prev using (store_id, day, platform, account_id, campaign_id, adset_id, ad_id)`,
    [
      fresh.map((f) => f.storeId),
      facts.map((f) => f.day),
      facts.map((f) => f.platform),
      facts.map((f) => f.accountId),
      facts.map((f) => f.campaignId),
      facts.map((f) => f.adsetId),
      facts.map((f) => f.adId),
      facts.map((f) => f.channel),
      facts.map((f) => f.source),
      facts.map((f) => f.medium),
      facts.map((f) => f.campaign),
      facts.map((f) => f.spendMicros),
      facts.map((f) => f.impressions),
      facts.map((f) => f.clicks),
      facts.map((f) => f.convValueMicros),
      fresh.map((f) => f.storedUpdatedAt),
      fresh.map((f) => f.seq),
      fresh.map((f) => JSON.stringify(f.payload.row)),
    ],
  );
  return changed.map((c) => ({
    storeId: c.store_id,
    fact: adSpendFactOf(c),
    previous: c.previous ? adSpendFactOf(c.previous) : null,
  }));
}
