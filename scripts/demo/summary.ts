/** The figures of a planned stream (`DemoSummary`), for the CLI's report and the tests. */
import type { AdSpendRow } from '../../contracts/src/pushes';
import type { Device } from './devices';
import type { OrderPlan } from './orders';
import type { DemoSummary } from './output';
import type { Session } from './sessions';

export interface SummaryInput {
  events: number;
  persons: number;
  /** Every session, in stream order (ties of the channel counts keep it). */
  sessions: readonly Session[];
  orders: readonly OrderPlan[];
  orderVersions: number;
  products: number;
  adSpend: { rows: readonly AdSpendRow[]; total: number };
}

export function summarize({
  events,
  persons,
  sessions,
  orders,
  orderVersions,
  products,
  adSpend,
}: SummaryInput): DemoSummary {
  const channels: Record<string, number> = {};
  const clientIds = new Set<Device>();
  for (const s of sessions) {
    channels[s.touch.label] = (channels[s.touch.label] ?? 0) + 1;
    if (s.eventCount > 0) clientIds.add(s.device);
  }
  let revenue = 0;
  for (const o of orders) revenue += o.cart.total;
  return {
    events,
    persons,
    clients: clientIds.size,
    sessions: sessions.length,
    orders: orders.length,
    orderVersions,
    ordersWithoutEvent: orders.filter((o) => !o.hasEvent).length,
    repeatOrders: orders.filter((o) => !o.isFirstOrder).length,
    refundedOrders: orders.filter((o) => o.refund && o.cancelledAt === null).length,
    cancelledOrders: orders.filter((o) => o.cancelledAt !== null).length,
    products,
    adSpendRows: adSpend.rows.length,
    revenue: revenue / 100,
    adSpend: Math.round(adSpend.total * 100) / 100,
    channels: Object.fromEntries(Object.entries(channels).sort((a, b) => b[1] - a[1])),
    purchaseRate: sessions.length === 0 ? 0 : Math.round((orders.length / sessions.length) * 10000) / 10000,
  };
}
