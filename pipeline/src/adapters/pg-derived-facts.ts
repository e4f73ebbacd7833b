/**
 * The facts derived from a batch's new messages, written inside the batch transaction (docs/product.md,
 * Operations): event facts by COPY and order facts by upsert, the first step of a store's maintenance; unit
 * costs by upsert, which the maintainer runs after the identity locks (one lock order).
 */
import type { EventShown } from '../../../contracts/src/event-shown';
import type { Query } from '../../../storage/db';
import { copyLine } from '../../../storage/pg-copy-text';
import type { EventFact, OrderFact, VariantCost } from '../domain/facts';
import { copyNewRows } from './pg-fact-store';
import { EVENT_FACT_COLUMNS } from './pg-person-facts';
import { lockNames } from './pg-advisory-locks';

/** A new event's fact with what is shown of it, and when the API received it: one row of `event_facts`. */
export interface EventFactRecord {
  fact: EventFact;
  shown: EventShown;
  receivedAt: number;
}

const orNull = (s: string): string | null => (s === '' ? null : s);

/** One event fact as a line of COPY text, in the columns of `EVENT_FACTS_COPY_SQL`. */
export function eventFactLine(storeId: string, { fact: e, shown, receivedAt }: EventFactRecord): string {
  return copyLine([
    storeId,
    e.eventId,
    e.clientId,
    e.name,
    new Date(e.at).toISOString(),
    e.pageUrl,
    e.referrer,
    e.email,
    e.customerId,
    e.orderId,
    e.checkoutToken,
    e.isFirstOrder,
    e.valueMicros,
    e.valueOrig,
    e.currencyOrig,
    JSON.stringify(e.lines),
    JSON.stringify(e.items),
    new Date(receivedAt).toISOString(),
    orNull(shown.pageTitle),
    orNull(shown.clientIp),
    orNull(shown.userAgent),
    orNull(shown.fbp),
    shown.dataJson,
  ]);
}

/** The COPY of event facts, whose lines `eventFactLine` makes; `stored_at` takes its default, the time of the batch. */
export const EVENT_FACTS_COPY_SQL = `copy event_facts (store_id, ${EVENT_FACT_COLUMNS},
  received_at, page_title, client_ip, user_agent, fbp, data) from stdin`;

/**
 * Stores the facts of new events of one or more stores by one COPY (docs/decisions.md, Storage). The batch writer
 * has taken as new only the events whose facts its lookup did not find, in the same transaction.
 */
export async function insertEventFacts(
  q: Query,
  stores: ReadonlyArray<{ storeId: string; records: readonly EventFactRecord[] }>,
): Promise<void> {
  const lines = stores.flatMap(({ storeId, records }) => records.map((e) => eventFactLine(storeId, e)));
  if (lines.length === 0) return;
  await copyNewRows(q, 'facts.events_copy', EVENT_FACTS_COPY_SQL, lines);
}

/** Upserts the order facts of one or more stores in one statement. */
export async function upsertOrderFacts(
  q: Query,
  stores: ReadonlyArray<{ storeId: string; orders: readonly OrderFact[] }>,
): Promise<void> {
  const storeIds = stores.flatMap(({ storeId, orders }) => orders.map(() => storeId));
  const orders = stores.flatMap((s) => s.orders);
  if (orders.length === 0) return;
  await q(
    'facts.orders_upsert',
    `insert into order_facts (store_id, order_id, created_at, cancelled, email, customer_id, value_micros, refunded_micros, value_orig,
                              currency_orig, landing_site, referring_site, checkout_token, lines, items)
     select * from unnest($1::text[], $2::text[], $3::timestamptz[], $4::boolean[], $5::text[], $6::text[], $7::bigint[],
                          $8::bigint[], $9::numeric[], $10::text[], $11::text[], $12::text[], $13::text[], $14::jsonb[], $15::jsonb[])
     on conflict (store_id, order_id) do update set
       created_at = excluded.created_at, cancelled = excluded.cancelled, email = excluded.email, customer_id = excluded.customer_id,
       value_micros = excluded.value_micros, refunded_micros = excluded.refunded_micros, value_orig = excluded.value_orig,
       currency_orig = excluded.currency_orig, landing_site = excluded.landing_site, referring_site = excluded.referring_site,
       checkout_token = excluded.checkout_token, lines = excluded.lines, items = excluded.items`,
    [
      storeIds,
      orders.map((o) => o.orderId),
      orders.map((o) => new Date(o.createdAt).toISOString()),
      orders.map((o) => o.cancelled),
      orders.map((o) => o.email),
      orders.map((o) => o.customerId),
      orders.map((o) => o.valueMicros),
      orders.map((o) => o.refundedMicros),
      orders.map((o) => o.valueOrig),
      orders.map((o) => o.currencyOrig),
      orders.map((o) => o.landingSite),
      orders.map((o) => o.referringSite),
      orders.map((o) => o.checkoutToken),
      orders.map((o) => JSON.stringify(o.lines)),
      orders.map((o) => JSON.stringify(o.items)),
    ],
  );
}

/**
 * Upserts unit costs; returns the variants whose cost is new or changed. Those variants are locked exclusively
 * first: a concurrent batch reading their costs (under shared locks) either commits before this one looks up
 * the conversions to recompute, or reads the new costs after this one commits. A cost equal to the stored one is
 * neither locked nor written (docs/decisions.md, Conversions and goals, "Unit costs"): a store's catalogue sent
 * again would otherwise make every batch crediting those variants wait for this one's commit.
 */
export async function upsertVariantCosts(q: Query, storeId: string, costs: readonly VariantCost[]): Promise<string[]> {
  if (costs.length === 0) return [];
  const latest = new Map(costs.map((c) => [c.variantId, c]));
  const stored = await q<{ variant_id: string; cost_micros: string }>(
    'facts.variant_costs_stored',
    'select variant_id, cost_micros::text from variant_costs where store_id = $1 and variant_id = any($2::text[])',
    [storeId, [...latest.keys()]],
  );
  for (const r of stored)
    if (String(latest.get(r.variant_id)?.costMicros) === r.cost_micros) latest.delete(r.variant_id);
  if (latest.size === 0) return [];
  const rows = [...latest.values()];
  await lockNames(q, 'facts.variant_costs_lock', storeId, 'variant', latest.keys());
  const changed = await q<{ variant_id: string }>(
    'facts.variant_costs_upsert',
    `insert into variant_costs (store_id, variant_id, product_id, cost_micros)
     select $1, * from unnest($2::text[], $3::text[], $4::bigint[])
     on conflict (store_id, variant_id) do update set product_id = excluded.product_id, cost_micros = excluded.cost_micros
       where variant_costs.cost_micros <> excluded.cost_micros
     returning variant_id`,
    [storeId, rows.map((c) => c.variantId), rows.map((c) => c.productId), rows.map((c) => c.costMicros)],
  );
  return changed.map((r) => r.variant_id);
}
