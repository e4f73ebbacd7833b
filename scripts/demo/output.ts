/** What the demo generator gives: a plan of the stream, its items and its summary. */
import type { StorefrontEvent } from '../../contracts/src/events';
import type { AdSpendRow, ShopOrder, ShopProduct } from '../../contracts/src/pushes';
import type { DemoOptions } from './options';

/** One element of the time-ordered stream: a storefront event or a version of an order to push. */
export type DemoItem =
  { kind: 'event'; at: number; event: StorefrontEvent } | { kind: 'order'; at: number; order: ShopOrder };

/** What was planned (before any event is built). */
export interface DemoSummary {
  events: number;
  persons: number;
  /** clientIds that appear in events (devices with the tracker blocked are not counted). */
  clients: number;
  /** Sessions, including the ones on tracker-blocked devices (which produce no event). */
  sessions: number;
  /** Distinct orders. */
  orders: number;
  /** Order pushes: first versions plus refund and cancellation versions. */
  orderVersions: number;
  /** Orders with no checkout_completed event (tracker blocked). */
  ordersWithoutEvent: number;
  /** Orders whose `checkout_completed` says `isFirstOrder: false`. */
  repeatOrders: number;
  refundedOrders: number;
  cancelledOrders: number;
  products: number;
  adSpendRows: number;
  /** Revenue of the orders (before refunds), in USD. */
  revenue: number;
  adSpend: number;
  /** Sessions per acquisition channel label (e.g. `google_cpc`, `email`, `direct`). */
  channels: Record<string, number>;
  /** Share of sessions that end in a purchase. */
  purchaseRate: number;
}

/** A planned stream. `items()` and `events()` each start a fresh pass over the same stream. */
export interface DemoPlan {
  readonly options: Readonly<Required<DemoOptions>>;
  /** The catalogue, to push once before anything else. */
  readonly products: ShopProduct[];
  /** Every order version, in push order (time order); a refund or cancellation version follows its order. */
  readonly orders: ShopOrder[];
  /** Daily rows per ad of the paid campaigns. */
  readonly adSpend: AdSpendRow[];
  readonly summary: DemoSummary;
  /** Events and order versions merged in time order (an order version comes after the events before it). */
  items(): Generator<DemoItem, void, undefined>;
  /** The events in time order (timestamps increase per client). */
  events(): Generator<StorefrontEvent, void, undefined>;
}

/** Everything as arrays (`generateDemoStream`). */
export interface DemoStream {
  events: StorefrontEvent[];
  orders: ShopOrder[];
  products: ShopProduct[];
  adSpend: AdSpendRow[];
  summary: DemoSummary;
}
