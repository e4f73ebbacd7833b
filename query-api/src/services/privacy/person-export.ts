/**
 * Everything stored about a person as one document (docs/operations.md, Privacy): its identifiers, events (what
 * their facts keep, and the payload as received while the store keeps it), orders, customer records and link clicks. Read in one
 * snapshot, scoped to the caller's store.
 */
import type { ExportedEvent, ExportedOrder, PersonExport, PrivacySubject } from '../../../../contracts/src/privacy';
import { ORDER_CLIENT_PREFIX } from '../../../../contracts/src/identity';
import type { Query } from '../../../../storage/db';
import { findPerson, identifiersOfKeys } from '../../../../storage/privacy';

export async function exportPerson(
  q: Query,
  storeId: string,
  subject: PrivacySubject,
  now: number,
): Promise<PersonExport> {
  const found = await findPerson(q, storeId, subject);
  const browser = found.clientIds.filter((c) => !c.startsWith(ORDER_CLIENT_PREFIX));
  const ids = identifiersOfKeys(found.keys);
  const orderIds = [
    ...new Set([
      ...ids.orderIds,
      ...found.clientIds
        .filter((c) => c.startsWith(ORDER_CLIENT_PREFIX))
        .map((c) => c.slice(ORDER_CLIENT_PREFIX.length)),
    ]),
  ].sort();
  const { customerIds, emails } = ids;
  const [events, orders, customers, clicks] = await Promise.all([
    q<ExportedEvent & { occurred_at: Date }>(
      'privacy.export_events',
      `select f.event_id, f.client_id, f.name, f.occurred_at, f.page_url, f.referrer, f.page_title, f.client_ip,
              f.user_agent, f.fbp, f.data, r.payload
       from event_facts f left join raw_events r on r.store_id = f.store_id and r.event_id = f.event_id
       where f.store_id = $1 and f.client_id = any($2::text[]) order by f.occurred_at, f.event_id`,
      [storeId, browser],
    ),
    q<ExportedOrder & { created_at: Date }>(
      'privacy.export_orders',
      `select o.order_id, o.created_at, o.cancelled, o.email, o.customer_id, s.payload
       from order_facts o left join shop_orders s on s.store_id = o.store_id and s.order_id = o.order_id
       where o.store_id = $1 and o.order_id = any($2::text[]) order by o.created_at, o.order_id`,
      [storeId, orderIds],
    ),
    q<{ payload: unknown }>(
      'privacy.export_customers',
      'select payload from shop_customers where store_id = $1 and customer_id = any($2::text[]) order by customer_id',
      [storeId, customerIds],
    ),
    q<PersonExport['link_clicks'][number] & { clicked_at: Date }>(
      'privacy.export_clicks',
      `select click_id, code, client_id, clicked_at, ip, user_agent, referrer from link_clicks
       where store_id = $1 and client_id = any($2::text[]) order by clicked_at, click_id`,
      [storeId, browser],
    ),
  ]);
  return {
    store_id: storeId,
    exported_at: new Date(now).toISOString(),
    identifiers: { client_ids: browser, emails, customer_ids: customerIds, order_ids: orderIds },
    events: events.map((e) => ({ ...e, occurred_at: e.occurred_at.toISOString() })),
    orders: orders.map((o) => ({ ...o, created_at: o.created_at.toISOString() })),
    customers: customers.map((c) => c.payload),
    link_clicks: clicks.map((c) => ({ ...c, clicked_at: c.clicked_at.toISOString() })),
  };
}
