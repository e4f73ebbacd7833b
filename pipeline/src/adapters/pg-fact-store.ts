/**
 * The stores' settings and rates as a batch reads them, which of its events are new, and the stored facts it writes
 * in bulk inside its transaction besides the pushes (`pg-pushes.ts`): link clicks and dead letters. One statement
 * per table, arrays through unnest.
 */
import type { Query } from '../../../storage/db';
import { keyProbeOfStoresSql } from '../../../storage/key-probe';
import { copyData } from '../../../storage/pg-copy-text';
import type { StorefrontEvent } from '../../../contracts/src/events';
import type { LinkClick } from '../domain/decode-message';
import type { StoreRules } from '../domain/recompute-person';

export interface StoreSettings {
  storeId: string;
  timezone: string;
  currency: string;
  lookbackDays: number;
  /** Half-life of the time-decay model, in days. */
  halfLifeDays: number;
  /** The data-driven fit's integer weights by channel, per fitted goal. */
  dataDrivenWeights?: StoreRules['dataDrivenWeights'];
  /**
   * Whether the store has enabled destinations (any, and of an ad platform), read with the batch's settings so that
   * a store with none is not asked for them once per batch; unknown (undefined) means ask.
   */
  destinations?: { any: boolean; adPlatforms: boolean };
}

/** The rules a store's persons are recomputed under, from its settings. */
export const rulesOf = (s: StoreSettings): StoreRules => ({
  timezone: s.timezone,
  lookbackDays: s.lookbackDays,
  halfLifeDays: s.halfLifeDays,
  dataDrivenWeights: s.dataDrivenWeights,
});

/** Conversion rates of the stores to their currency (docs/product.md, Conversions and goals), per store: currency -> rate. */
export async function loadRates(q: Query, storeIds: readonly string[]): Promise<Map<string, Map<string, number>>> {
  const out = new Map<string, Map<string, number>>(storeIds.map((id) => [id, new Map<string, number>()]));
  if (storeIds.length === 0) return out;
  const rows = await q<{ store_id: string; currency: string; rate: string }>(
    'currency_rates.load',
    'select store_id, currency, rate from currency_rates where store_id = any($1::text[])',
    [storeIds],
  );
  for (const r of rows) out.get(r.store_id)?.set(r.currency, Number(r.rate));
  return out;
}

export async function loadStores(q: Query, storeIds: readonly string[]): Promise<Map<string, StoreSettings>> {
  if (storeIds.length === 0) return new Map();
  const rows = await q<{
    store_id: string;
    timezone: string;
    currency: string;
    lookback_days: number;
    half_life_days: number;
    data_driven: StoreRules['dataDrivenWeights'] | null;
    any_destination: boolean;
    ad_destination: boolean;
  }>(
    'stores.load',
    `select store_id, timezone, currency, lookback_days, half_life_days::float8 as half_life_days,
       (select jsonb_object_agg(f.goal, f.weights) from data_driven_fits f
         where f.store_id = s.store_id and f.weights is not null) as data_driven,
       exists (select 1 from webhook_destinations d where d.store_id = s.store_id and d.enabled) as any_destination,
       exists (select 1 from webhook_destinations d where d.store_id = s.store_id and d.enabled
                 and d.kind in ('meta_capi', 'google_ads', 'tiktok_events')) as ad_destination
     from stores s where store_id = any($1::text[])`,
    [storeIds],
  );
  return new Map(
    rows.map((r) => [
      r.store_id,
      {
        storeId: r.store_id,
        timezone: r.timezone,
        currency: r.currency,
        lookbackDays: r.lookback_days,
        halfLifeDays: r.half_life_days,
        dataDrivenWeights: r.data_driven ?? undefined,
        destinations: { any: r.any_destination, adPlatforms: r.ad_destination },
      },
    ]),
  );
}

/** A storefront event of a batch, with the message it came in. */
export interface RawEventRow {
  storeId: string;
  event: StorefrontEvent;
  /** The event's JSON as UTF-8 when the message carried it ready to store (see decode-message.ts). */
  json?: Uint8Array;
  receivedAt: number;
  seq: number;
}

/**
 * Copies rows that a lookup in the same transaction found not stored yet (`sql` a `copy ... from stdin`). A row
 * the other lane stores between the lookup and the COPY fails the COPY on the primary key: only one event id
 * sent with two client ids reaches both lanes. That is reported as a serialization failure (40001), so the
 * batch is retried and its lookup then finds the row.
 */
export async function copyNewRows(
  q: Query,
  tag: string,
  sql: string,
  lines: ReadonlyArray<string | Uint8Array>,
): Promise<void> {
  try {
    await q.copyFrom(tag, sql, copyData(lines));
  } catch (err) {
    if ((err as { code?: unknown }).code !== '23505') throw err;
    throw Object.assign(new Error(`a row of the batch was stored concurrently: ${(err as Error).message}`), {
      code: '40001',
      cause: err,
    });
  }
}

/**
 * The events (distinct keys) whose facts are not stored yet: what is new to a batch (docs/decisions.md, Storage).
 * One index probe per event, every store of the batch in one statement.
 */
export async function eventsWithoutFacts(q: Query, rows: readonly RawEventRow[]): Promise<RawEventRow[]> {
  if (rows.length === 0) return [];
  const stored = await q<{ probe_store: string; event_id: string }>(
    'facts.events_stored',
    keyProbeOfStoresSql({ select: 'event_id', from: 'event_facts', key: 'event_id' }),
    [rows.map((r) => r.storeId), rows.map((r) => r.event.id)],
  );
  const old = new Set(stored.map((r) => `${r.probe_store}\u0000${r.event_id}`));
  return rows.filter((r) => !old.has(`${r.storeId}\u0000${r.event.id}`));
}

export interface DeadLetterRow {
  storeId: string | null;
  seq: number;
  subject: string;
  reason: string;
  payload: string;
}

export async function insertDeadLetters(q: Query, rows: readonly DeadLetterRow[]): Promise<void> {
  if (rows.length === 0) return;
  await q(
    'dead_letters.insert',
    `insert into dead_letters (store_id, stream_seq, subject, reason, payload)
     select * from unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[])
     on conflict (stream_seq, subject) do nothing`,
    [
      rows.map((r) => r.storeId),
      rows.map((r) => r.seq),
      rows.map((r) => r.subject),
      rows.map((r) => r.reason),
      rows.map((r) => r.payload),
    ],
  );
}

export async function insertLinkClicks(
  q: Query,
  rows: ReadonlyArray<{ storeId: string; click: LinkClick }>,
): Promise<number> {
  if (rows.length === 0) return 0;
  const inserted = await q(
    'link_clicks.insert',
    `insert into link_clicks (store_id, click_id, code, client_id, clicked_at, ip, user_agent, referrer)
     select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::text[], $7::text[], $8::text[])
     on conflict (store_id, click_id) do nothing
     returning 1`,
    [
      rows.map((r) => r.storeId),
      rows.map((r) => r.click.clickId),
      rows.map((r) => r.click.code),
      rows.map((r) => r.click.clientId),
      rows.map((r) => r.click.at),
      rows.map((r) => r.click.ip),
      rows.map((r) => r.click.userAgent),
      rows.map((r) => r.click.referrer),
    ],
  );
  return inserted.length;
}
