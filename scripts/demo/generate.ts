/**
 * Demo data generator: a realistic, deterministic storefront stream for one store (its public entry point).
 *
 * Pure: no I/O, no clock, no `Math.random`; everything comes from `opts.seed` through the PRNG of `random.ts`.
 * The same options give the same stream to the byte (`stream-digests.test.ts` holds it to that).
 *
 * Shape of the work, so that a million events never sit in memory at once:
 * 1. `planDemo(opts)` plans the whole stream cheaply: the catalogue, the persons (1 to 3 devices, i.e.
 *    clientIds, each), their sessions over the days (channel, landing page, funnel depth, cart), the orders
 *    with their later refund and cancellation versions, and the ad spend rows. A session is kept as a small
 *    plan object; its events are not built.
 * 2. `plan.items()` expands the sessions lazily and yields events and order pushes merged in time order
 *    (a heap over the sessions in progress); `plan.events()` yields the events only. Each call is a fresh,
 *    identical pass.
 * 3. `generateDemoStream(opts)` materializes everything as arrays (for tests and small runs).
 *
 * Events of one page share their `context` object and catalogue objects (variants, collections) are shared and
 * frozen: treat the yielded events as read-only (structuredClone one before editing it).
 *
 * Where things are (each module starts with what it holds and its knobs):
 * - a product, a collection, a search query: `catalog-data.ts` (built by `catalog.ts`);
 * - a paid campaign or an ad: `campaigns.ts`; the source mix, organic sources, email, click ids: `channels.ts`;
 * - people and their devices: `persons.ts`, `devices.ts`; their sessions over the days: `journeys.ts`;
 * - one session (touch, landing, purchase chance): `sessions.ts`; its funnel steps: `funnel.ts`; its cart:
 *   `cart.ts`; its events' data: `events.ts` and `checkout.ts` (a new event kind: `funnel.ts` then `events.ts`);
 * - orders, refunds, cancellations and the pushed versions: `orders.ts`; ad spend rows: `ad-spend.ts`;
 * - time in the window: `time.ts`; the PRNG and ids: `random.ts`; the time-ordered merge: `stream.ts`;
 * - a new kind of data pushed beside events and orders: plan it here, give `DemoPlan` (`output.ts`) a member for
 *   it, and push it in `push.ts`.
 *
 * Realism in short: about 3% of sessions buy (more from email, brand search, retargeting, desktop and returning
 * visits); 42% of people use two or three devices; ~3% of devices block the tracker (their orders still come, from
 * the store); ~7% of orders are refunded later and ~1.2% cancelled; ad spend rows match the sessions the ads
 * brought, all in USD.
 */
import type { StorefrontEvent } from '../../contracts/src/events';
import { adActivity, buildAdSpend } from './ad-spend';
import { createPlannerContext } from './context';
import { expandSession } from './events';
import { planJourneys } from './journeys';
import { type DemoOptions, normalizeOptions } from './options';
import { numberOrders, orderPushes } from './orders';
import type { DemoItem, DemoPlan, DemoStream } from './output';
import { mergeByTime, sortByStart } from './stream';
import { summarize } from './summary';

export { DEMO_CURRENCY } from './format';
export { DEFAULT_DEMO_DAYS, DEFAULT_STORE_HOST, type DemoOptions } from './options';
export type { DemoItem, DemoPlan, DemoStream, DemoSummary } from './output';
export { Rng } from './random';

/** Plans the stream for `opts` (see the module comment). Cheap: about 1 s and ~100 MB for a million events. */
export function planDemo(opts: DemoOptions): DemoPlan {
  const options = normalizeOptions(opts);
  const ctx = createPlannerContext(options);
  const { sessions, orders, persons } = planJourneys(ctx, options.events);
  numberOrders(orders, ctx.keys);
  const activity = adActivity(ctx, sessions, orders);
  const versions = orderPushes(ctx, orders);
  const spend = buildAdSpend(ctx, activity);
  sortByStart(sessions);
  const withEvents = sessions.filter((s) => s.eventCount > 0);
  const summary = summarize({
    events: options.events,
    persons,
    sessions,
    orders,
    orderVersions: versions.length,
    products: ctx.cat.pushes.length,
    adSpend: spend,
  });

  const items = (): Generator<DemoItem, void, undefined> =>
    mergeByTime(withEvents, versions, (s) => expandSession(ctx, s));

  function* events(): Generator<StorefrontEvent, void, undefined> {
    for (const item of items()) if (item.kind === 'event') yield item.event;
  }

  return {
    options,
    products: ctx.cat.pushes,
    orders: versions.map((v) => v.order),
    adSpend: spend.rows,
    summary,
    items,
    events,
  };
}

/** The events of the stream, lazily, in time order (`planDemo(opts).events()`). */
export function generateDemoEvents(opts: DemoOptions): Generator<StorefrontEvent, void, undefined> {
  return planDemo(opts).events();
}

/** The whole stream as arrays; for tests and small runs (a million events take a few GB this way). */
export function generateDemoStream(opts: DemoOptions): DemoStream {
  const plan = planDemo(opts);
  return {
    events: [...plan.events()],
    orders: plan.orders,
    products: plan.products,
    adSpend: plan.adSpend,
    summary: plan.summary,
  };
}
