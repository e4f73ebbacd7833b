/**
 * Small builders for hand-written journeys: events with a given client, time, page and referrer, sent
 * through the real ingestion route, and read-backs of the views.
 */
import request from 'supertest';
import type { EventName, EventOf, StorefrontEvent } from '../../contracts/src/events';
import type { ShopOrder } from '../../contracts/src/pushes';
import {
  sampleCartLine,
  sampleCheckout,
  sampleCompletedCheckout,
  sampleContext,
  sampleEvent,
  sampleLead,
  sampleOrder,
  sampleProductVariant,
  socksVariant,
} from './samples';
import type { Db } from '../../storage/db';
import { waitFor } from './harness';
import { ATTRIBUTION_DAILY } from '../../pipeline/src/domain/rollups/attribution';
import { byModel } from './attribution-by-model';

let counter = 0;
const nextId = (prefix: string): string => `${prefix}-${Date.now().toString(36)}-${++counter}`;

export interface At {
  client: string;
  at: string;
  url?: string;
  referrer?: string;
  id?: string;
}

function envelope<N extends EventName>(name: N, a: At, data?: EventOf<N>['data']): EventOf<N> {
  const ev = sampleEvent(name, {
    id: a.id ?? nextId(name),
    clientId: a.client,
    timestamp: a.at,
    context: sampleContext(a.url ?? 'https://shop.example/', a.referrer ?? ''),
  });
  return data ? { ...ev, data } : ev;
}

export const pageView = (a: At) => envelope('page_viewed', a);

/** A product view of the tee (0) or the socks (1). */
export const productView = (a: At, product: 0 | 1 = 0) =>
  envelope('product_viewed', a, { productVariant: product === 0 ? sampleProductVariant() : socksVariant() });

export const addToCart = (a: At, amount: number, variantId = '45737128657113') =>
  envelope('product_added_to_cart', a, {
    cartLine: sampleCartLine({
      quantity: 1,
      cost: { totalAmount: { amount, currencyCode: 'USD' } },
      merchandise: { ...sampleCartLine().merchandise, id: variantId },
    }),
  });

export const checkoutStarted = (a: At, token: string, amount: number, email: string | null = null) =>
  envelope(
    'checkout_started',
    { url: 'https://shop.example/checkouts/cn/x', ...a },
    {
      checkout: sampleCheckout({ token, email, totalPrice: { amount, currencyCode: 'USD' } }),
    },
  );

export const paymentInfo = (a: At, token: string, amount: number, email: string | null = null) =>
  envelope(
    'payment_info_submitted',
    { url: 'https://shop.example/checkouts/cn/x', ...a },
    {
      checkout: sampleCheckout({ token, email, totalPrice: { amount, currencyCode: 'USD' } }),
    },
  );

export const checkoutCompleted = (
  a: At,
  o: {
    orderId: string;
    token: string;
    amount: number;
    email: string;
    customerId?: string;
    firstOrder?: boolean | null;
  },
) =>
  envelope(
    'checkout_completed',
    { url: 'https://shop.example/checkouts/cn/x/thank-you', ...a },
    {
      checkout: sampleCompletedCheckout({
        token: o.token,
        email: o.email,
        totalPrice: { amount: o.amount, currencyCode: 'USD' },
        order: {
          id: o.orderId,
          customer: { id: o.customerId ?? `cust-${o.email}`, isFirstOrder: o.firstOrder ?? null },
        },
      }),
    },
  );

export const leadForm = (a: At, email: string) => envelope('lead_form_submitted', a, { lead: sampleLead({ email }) });

export function order(overrides: Partial<ShopOrder> & { id: string }): ShopOrder {
  return sampleOrder({ line_items: [], refunds: [], ...overrides });
}

/** Sends events through the ingestion route and waits until the pipeline committed them. */
export async function send(
  apiUrl: string,
  ingestKey: string,
  db: Db,
  storeId: string,
  events: StorefrontEvent[],
): Promise<void> {
  const res = await request(apiUrl).post('/v2-4-2/api/events').set('X-Ingest-Key', ingestKey).send(events);
  if (res.status !== 200 || res.body.data.rejected.length)
    throw new Error(`ingest failed: ${res.status} ${JSON.stringify(res.body)}`);
  const ids = [...new Set(events.map((e) => e.id))];
  // The facts, and the raw payloads where the store keeps them (their writer follows the views').
  await waitFor(
    () =>
      db
        .query<{ facts: string; raw: string; kept: boolean }>(
          'test.facts',
          `select (select count(*) from event_facts where store_id = $1 and event_id = any($2::text[])) as facts,
                  (select count(*) from raw_events where store_id = $1 and event_id = any($2::text[])) as raw,
                  (select raw_payloads_stored from stores where store_id = $1) as kept`,
          [storeId, ids],
        )
        .then((r) => r[0]!),
    (r) => Number(r.facts) === ids.length && (!r.kept || Number(r.raw) === ids.length),
  );
}

/** Pushes an order version and waits until its fact reflects that version. */
export async function pushOrder(
  apiUrl: string,
  ingestKey: string,
  db: Db,
  storeId: string,
  o: ShopOrder,
): Promise<void> {
  const res = await request(apiUrl).post('/v2-4-2/api/store/orders').set('X-Ingest-Key', ingestKey).send([o]);
  if (res.status !== 200) throw new Error(`order push failed: ${res.status} ${JSON.stringify(res.body)}`);
  await waitFor(
    () =>
      db
        .query<{ updated_at: Date }>(
          'test.order',
          'select updated_at from shop_orders where store_id = $1 and order_id = $2',
          [storeId, o.id],
        )
        .then((r) => r[0]?.updated_at.toISOString() ?? null),
    (t) => t !== null && Date.parse(t) >= Date.parse(o.updated_at),
  );
}

export interface RollupRow {
  day: string;
  channel: string;
  source: string;
  medium: string;
  campaign: string;
  /** Conversions credited (weight / 1e6). */
  conversions: number;
  new_lead_conversions: number;
  /** Value credited in store currency units. */
  value: number;
}

/** The attribution rollup of a goal and model, by touchpoint source. */
export async function rollup(db: Db, storeId: string, goal: string, model: string): Promise<RollupRow[]> {
  return db.query<RollupRow>(
    'test.rollup',
    `select to_char(day, 'YYYY-MM-DD') as day, channel, source, medium, campaign,
            weight::float / 1e6 as conversions, new_weight::float / 1e6 as new_lead_conversions, value_micros::float / 1e6 as value
     from ${byModel(ATTRIBUTION_DAILY)} where store_id = $1 and goal = $2 and model = $3
     order by day, source, medium, campaign`,
    [storeId, goal, model],
  );
}
